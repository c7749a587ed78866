// Leftover sweep over the real sshd: only processes carrying the run's tag are stopped; GPU holders
// without it are listed, never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecResult } from '../../src/remote/transport.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import {
  findLeftovers,
  formatLeftovers,
  leftoverCommand,
  stopLeftovers,
  type NodeFailure,
} from '../../src/preflight/index.js';
import { makeWorld, type World } from './world.js';

let sshd: SshdHandle;
let transport: Transport;
let world: World;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  world = makeWorld();
});

afterAll(async () => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  await transport?.close();
  await sshd?.stop();
  world?.remove();
});

async function holder(tag: string | null, ignoreTerm = false): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AWRL_RUN_ID;
  if (tag) env.AWRL_RUN_ID = tag;
  const c = ignoreTerm
    ? spawn('bash', ['-c', 'trap "" TERM; while :; do sleep 1; done'], { env, stdio: 'ignore' })
    : spawn('sleep', ['300'], { env, stdio: 'ignore' });
  children.push(c);
  await waitFor(() => pidAlive(c.pid!), { what: `process ${c.pid}` });
  return c.pid!;
}

describe('leftover sweep', () => {
  it('lists tagged processes and GPU holders, and stops only the tagged ones', async () => {
    const mine = await holder('20260529-run-mine');
    const stubborn = await holder('20260529-run-mine', true);
    const other = await holder('20260529-run-other');
    const untagged = await holder(null);
    world.setApps([
      `${other}, GPU-10000000-1111-2222-3333-444444444444, 20000, sleep`,
      `${untagged}, GPU-20000000-1111-2222-3333-444444444444, 1000, sleep`,
    ]);
    const setup = world.setup;
    const found = await findLeftovers(transport, '20260529-run-mine', { setup });
    const byPid = new Map(found.map((l) => [l.pid, l]));
    expect(byPid.get(mine)).toMatchObject({ tagged: true, cmd: 'sleep 300 ' });
    expect(byPid.get(stubborn)?.tagged).toBe(true);
    expect(byPid.get(other)).toMatchObject({ tagged: false, otherRunId: '20260529-run-other', gpuMiB: 20000 });
    expect(byPid.get(untagged)).toMatchObject({ tagged: false, otherRunId: null, gpuMiB: 1000 });
    expect(formatLeftovers([byPid.get(other)!])).toMatch(
      new RegExp(
        `^PID ${other} \\(\\w+\\) sleep 300 — 20000 MiB GPU \\[of run 20260529-run-other \\(its state not checked\\)\\]$`,
      ),
    );

    const report = await stopLeftovers(transport, '20260529-run-mine', { setup, graceSeconds: 1 });
    // Only processes with the run's tag are stopped. The stubborn loop's `sleep 1` children carry the
    // tag too, and a new one is born every second: the sweep may stop one the first listing never saw.
    expect(report.stopped.map((l) => l.pid)).toEqual(expect.arrayContaining([mine, stubborn]));
    for (const l of report.stopped) expect(l.tagged, `stopped ${l.pid} (${l.cmd})`).toBe(true);
    expect(report.stopped.map((l) => l.pid)).not.toContain(other);
    expect(report.stopped.map((l) => l.pid)).not.toContain(untagged);
    await waitFor(() => !pidAlive(mine) && !pidAlive(stubborn), { what: 'tagged processes to be gone' });
    expect(pidAlive(other)).toBe(true);
    expect(pidAlive(untagged)).toBe(true);
    expect(report.remaining.map((l) => l.pid).sort()).toEqual([other, untagged].sort());
  });

  it('a run id is never used as a pattern', async () => {
    const dotted = await holder('20260529.run');
    const near = await holder('20260529xrun'); // would match the regex 20260529.run
    const found = await findLeftovers(transport, '20260529.run');
    expect(found.filter((l) => l.tagged).map((l) => l.pid)).toEqual([dotted]);
    expect(found.some((l) => l.pid === near)).toBe(false);
    await expect(findLeftovers(transport, 'x; rm -rf /')).rejects.toThrow(/is not a run id/);
  });
});

// The node fan-out under real bash: ONE command on the "head" (this machine) asks each node over
// `ssh NODE bash -s`. A stand-in `ssh` on PATH runs the remote command locally for node2 (with the
// node's name in AWRL_STANDIN_NODE, the marker that it went through ssh) and fails like ssh for node1.
describe("leftover sweep across a run's nodes", () => {
  it('reports each leftover with its node, stops the tagged one on its node, leaves the untagged alone', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'awrl-ssh-standin-'));
    try {
      writeFileSync(
        join(bin, 'ssh'),
        [
          '#!/bin/bash',
          'while [ $# -gt 0 ]; do case $1 in -o) shift 2;; -*) shift;; *) break;; esac; done',
          'host=$1; shift',
          'echo "$host" >> "$(dirname "$0")/ssh-calls"',
          'case $host in',
          '  node2) AWRL_STANDIN_NODE=$host exec bash -c "$*";;',
          '  *) echo "ssh: connect to host $host port 22: Connection refused" >&2; exit 255;;',
          'esac',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const execs: string[][] = [];
      const head = {
        target: 'head',
        exec: (argv: string[]) =>
          new Promise<ExecResult>((resolve) => {
            execs.push(argv);
            execFile(
              argv[0],
              argv.slice(1),
              { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'buffer', maxBuffer: 1 << 24 },
              (err, stdout, stderr) =>
                resolve({
                  code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
                  signal: null,
                  stdout,
                  stderr,
                }),
            );
          }),
      } as unknown as Transport;

      const mine = await holder('20260601-run-nodes');
      const untagged = await holder(null);
      world.setApps([`${untagged}, GPU-30000000-1111-2222-3333-444444444444, 5000, sleep`]);
      const opts = { setup: world.setup, nodes: ['node1', 'node2'] };
      const failures: NodeFailure[][] = [];
      const found = await findLeftovers(head, '20260601-run-nodes', {
        ...opts,
        onUnreachable: (f) => failures.push(f),
      });
      expect(execs).toHaveLength(1); // one command on the head, whatever the number of nodes
      expect(execs[0].slice(0, 2)).toEqual(['bash', '-c']);
      expect(execs[0].slice(-2)).toEqual(['node1', 'node2']);
      expect(execs[0][2]).toContain('BatchMode=yes');
      const byPid = new Map(found.map((l) => [l.pid, l]));
      expect(byPid.get(mine)).toMatchObject({ node: 'node2', tagged: true, cmd: 'sleep 300 ' });
      expect(byPid.get(untagged)).toMatchObject({ node: 'node2', tagged: false, otherRunId: null, gpuMiB: 5000 });
      expect(found.every((l) => l.node === 'node2')).toBe(true);
      expect(failures).toEqual([
        [{ node: 'node1', error: expect.stringMatching(/^node1: ssh to the node failed.*Connection refused/) }],
      ]);
      expect(formatLeftovers([byPid.get(mine)!, { ...byPid.get(mine)!, node: 'node3' }]).split('\n')[0]).toMatch(
        new RegExp(`^node2: PID ${mine} `),
      );

      const report = await stopLeftovers(head, '20260601-run-nodes', { ...opts, graceSeconds: 1 });
      expect(report.stopped.map((l) => [l.node, l.pid])).toEqual([['node2', mine]]);
      await waitFor(() => !pidAlive(mine), { what: 'the tagged process on node2 to be gone' });
      expect(pidAlive(untagged)).toBe(true);
      expect(report.remaining.map((l) => [l.node, l.pid, l.tagged])).toEqual([['node2', untagged, false]]);
      expect(report.unreachable.map((f) => f.node)).toEqual(['node1']);

      await expect(findLeftovers(head, '20260601-run-nodes', { nodes: ['node1'] })).rejects.toThrow(
        /could not check any node.*node1/,
      );
      await expect(findLeftovers(head, '20260601-run-nodes', { nodes: ['-oProxyCommand=x'] })).rejects.toThrow(
        /is not a node name/,
      );
      expect(leftoverCommand('list', 'r', 0, '', [])[3]).toBe('awrl-sweep'); // no nodes: the target itself, no ssh
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

describe('where `awrl-tui stop` looks for leftovers', () => {
  it('a Slurm run: every node its attempts recorded; a direct run: the target, plus --check-nodes', async () => {
    const { leftoverScope } = await import('../../src/cli/stop-command.js');
    const rec = (backend: 'slurm' | 'direct', nodes: string[][]) =>
      ({
        backend,
        attempts: nodes.map((n, i) => ({ n: i + 1, reason: 'launch', startedAt: '', nodes: n })),
      }) as unknown as Parameters<typeof leftoverScope>[0];
    expect(
      leftoverScope(
        rec('slurm', [
          ['gpu-1', 'gpu-2'],
          ['gpu-2', 'gpu-7'],
        ]),
        [],
      ),
    ).toEqual({ nodes: ['gpu-1', 'gpu-2', 'gpu-7'], includeHead: false });
    expect(leftoverScope(rec('slurm', [[]]), [])).toEqual({});
    expect(leftoverScope(rec('direct', []), [])).toEqual({});
    expect(leftoverScope(rec('direct', []), ['box-2'])).toEqual({ nodes: ['box-2'], includeHead: true });
  });
});
