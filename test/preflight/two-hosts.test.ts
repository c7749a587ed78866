// Two real hosts: the "head" (an sshd on 127.0.0.1) and "node2" (an sshd on 127.0.0.2). The test
// reaches the head through the Transport; the head reaches node2 over a real ssh hop with a
// test-only ssh_config (Host node2 and node3, node2's key and known_hosts; the user's ~/.ssh is never
// read or written), given to the fan-out as `sshConfigFile` or through AWRL_NODE_SSH_CONFIG. node3
// points at a closed port on 127.0.0.3: unreachable. Each sshd's SetEnv points the fake nvidia-smi
// (test/preflight/fixtures) at its own data dir, so GPU figures and GPU holders differ per host:
// what is reported for node2 can only have come through node2's sshd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startSshd, type SshdHandle } from '../harness/sshd.js';
import { pidAlive, waitFor } from '../harness/wait.js';
import { openTransport, type ExecOptions, type Transport } from '../../src/remote/index.js';
import { findLeftovers, formatLeftovers, stopLeftovers, type NodeFailure } from '../../src/preflight/index.js';
import { GpuPoller, gpuPollScope, type GpuSnapshot } from '../../src/gpu/index.js';

const FAKE_SMI_DIR = new URL('./fixtures', import.meta.url).pathname;
// Only PATH: which data the fake nvidia-smi answers from comes from each sshd's SetEnv.
const SETUP = `export PATH='${FAKE_SMI_DIR}':"$PATH"`;
const H100 = 'NVIDIA H100 80GB HBM3';

let head: SshdHandle;
let node2: SshdHandle;
let headTransport: Transport;
let transport: Transport;
let dir: string;
let nodesConfig: string;
const smi = { head: '', node2: '' };
const children: ChildProcess[] = [];
/** Every argv the head was asked to run (to prove ONE exec per round / sweep). */
const execs: string[][] = [];

function gpuRows(used: number[], util: number): string {
  return (
    used.map((u, i) => `${i}, GPU-${i}0000000-1111-2222-3333-444444444444, ${H100}, ${u}, 81559, ${util}`).join('\n') +
    '\n'
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-two-hosts-'));
  for (const h of ['head', 'node2'] as const) {
    smi[h] = mkdtempSync(join(dir, `smi-${h}-`));
    writeFileSync(join(smi[h], 'apps.csv'), '');
  }
  writeFileSync(join(smi.head, 'gpus.csv'), gpuRows([100, 100], 0));
  writeFileSync(join(smi.node2, 'gpus.csv'), gpuRows([70000, 71000, 72000, 73000], 97));
  // sshd uses its first SetEnv line only: both variables on it (SHLVL=1 keeps pyenv's .bashrc out).
  node2 = await startSshd({
    listenAddress: '127.0.0.2',
    extraConfig: [`SetEnv SHLVL=1 AWRL_FAKE_SMI_DIR=${smi.node2}`],
  });
  head = await startSshd({ extraConfig: [`SetEnv SHLVL=1 AWRL_FAKE_SMI_DIR=${smi.head}`] });
  const closedPort = await freePort('127.0.0.3');
  nodesConfig = join(dir, 'nodes_ssh_config');
  const hostBlock = (name: string, addr: string, port: number) => [
    `Host ${name}`,
    `  HostName ${addr}`,
    `  Port ${port}`,
    `  User ${node2.user}`,
    `  IdentityFile ${node2.identityFile}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${node2.knownHostsFile}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
  ];
  writeFileSync(
    nodesConfig,
    [...hostBlock('node2', '127.0.0.2', node2.port), ...hostBlock('node3', '127.0.0.3', closedPort)].join('\n') + '\n',
  );
  headTransport = await openTransport(head.alias, { sshConfigFile: head.sshConfigFile });
  // The sweep and the poller use only exec and target: this one counts the head's execs.
  const t = headTransport;
  transport = {
    target: t.target,
    exec: (argv: string[], o?: ExecOptions) => (execs.push(argv), t.exec(argv, o)),
  } as unknown as Transport;
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  await headTransport?.close();
  await head?.stop();
  await node2?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function holder(tag: string | null): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AWRL_RUN_ID;
  if (tag) env.AWRL_RUN_ID = tag;
  const c = spawn('sleep', ['300'], { env, stdio: 'ignore' });
  children.push(c);
  await waitFor(() => pidAlive(c.pid!), { what: `process ${c.pid}` });
  return c.pid!;
}

/** Sessions node2's sshd accepted so far (each is one hop from the head). */
const node2Logins = () => (readFileSync(join(node2.dir, 'sshd.log'), 'utf8').match(/Accepted publickey/g) ?? []).length;

describe('leftovers on a second real host, reached from the head over ssh', () => {
  it("lists node2's tagged leftover and untagged GPU holder with node, PID and command; stops only the tagged one; node3 is unreachable", async () => {
    const runId = '20261129-two-hosts-a1b2';
    const mine = await holder(runId);
    const untagged = await holder(null);
    writeFileSync(join(smi.node2, 'apps.csv'), `${untagged}, GPU-00000000-1111-2222-3333-444444444444, 3000, python\n`);
    const opts = { setup: SETUP, nodes: ['node2', 'node3'], sshConfigFile: nodesConfig };
    const failures: NodeFailure[][] = [];
    const logins = node2Logins();
    execs.length = 0;

    const found = await findLeftovers(transport, runId, { ...opts, onUnreachable: (f) => failures.push(f) });
    expect(execs).toHaveLength(1); // one command on the head for both nodes
    expect(node2Logins()).toBe(logins + 1); // and it went through node2's sshd
    const byPid = new Map(found.map((l) => [l.pid, l]));
    expect(byPid.get(mine)).toMatchObject({ node: 'node2', pid: mine, tagged: true, cmd: 'sleep 300 ' });
    // Listed because node2's nvidia-smi says it holds 3000 MiB: the head's says nothing of it.
    expect(byPid.get(untagged)).toMatchObject({
      node: 'node2',
      pid: untagged,
      tagged: false,
      otherRunId: null,
      gpuMiB: 3000,
      cmd: 'sleep 300 ',
    });
    expect(found.every((l) => l.node === 'node2')).toBe(true);
    expect(failures).toEqual([
      [{ node: 'node3', error: expect.stringMatching(/^node3: ssh to the node failed.*Connection refused/) }],
    ]);
    expect(
      formatLeftovers([byPid.get(mine)!, byPid.get(untagged)!, { ...byPid.get(mine)!, node: 'node9' }])
        .split('\n')
        .slice(0, 2),
    ).toEqual([
      expect.stringMatching(new RegExp(`^node2: PID ${mine} \\(\\w+\\) sleep 300 \\[tagged with this run\\]$`)),
      expect.stringMatching(new RegExp(`^node2: PID ${untagged} \\(\\w+\\) sleep 300 — 3000 MiB GPU \\[untagged\\]$`)),
    ]);

    const report = await stopLeftovers(transport, runId, { ...opts, graceSeconds: 1 });
    expect(report.stopped.map((l) => [l.node, l.pid, l.cmd])).toEqual([['node2', mine, 'sleep 300 ']]);
    await waitFor(() => !pidAlive(mine), { what: 'the tagged process on node2 to be gone' });
    expect(pidAlive(untagged)).toBe(true);
    expect(report.remaining.map((l) => [l.node, l.pid, l.tagged])).toEqual([['node2', untagged, false]]);
    expect(report.unreachable).toEqual([
      { node: 'node3', error: expect.stringMatching(/^node3: ssh to the node failed/) },
    ]);

    await expect(findLeftovers(transport, runId, { ...opts, nodes: ['node3'] })).rejects.toThrow(
      /could not check any node for leftovers: node3: ssh to the node failed/,
    );
    writeFileSync(join(smi.node2, 'apps.csv'), '');
  });

  it("honours AWRL_NODE_SSH_CONFIG in the head's environment when no config file is passed", async () => {
    // A local head (this machine's own processes, environment inherited) hopping to node2's sshd.
    const local = await openTransport('local');
    const saved = process.env.AWRL_NODE_SSH_CONFIG;
    const runId = '20261129-two-hosts-env';
    const mine = await holder(runId);
    try {
      await expect(findLeftovers(local, runId, { setup: SETUP, nodes: ['node2'] })).rejects.toThrow(
        /node2: ssh to the node failed/,
      );
      process.env.AWRL_NODE_SSH_CONFIG = nodesConfig;
      const logins = node2Logins();
      const found = await findLeftovers(local, runId, { setup: SETUP, nodes: ['node2'] });
      expect(found.filter((l) => l.tagged).map((l) => [l.node, l.pid])).toEqual([['node2', mine]]);
      // At most one login: the connection an earlier round left open (ControlMaster) may be reused.
      expect(node2Logins() - logins).toBeLessThanOrEqual(1);
    } finally {
      if (saved === undefined) delete process.env.AWRL_NODE_SSH_CONFIG;
      else process.env.AWRL_NODE_SSH_CONFIG = saved;
      await local.close();
    }
  });
});

describe('GPU panel of a direct multi-node run across the two hosts', () => {
  it("one exec per round: the head's own GPUs and node2's over ssh; node3 unreachable (not zero GPUs); node2's figures kept and marked stale once it dies", async () => {
    let clock = 1_000_000;
    const scope = gpuPollScope('direct', [], ['node2', 'node3']);
    expect(scope).toEqual({ nodes: ['node2', 'node3'], includeHead: true });
    const poller = new GpuPoller(transport, {
      ...scope,
      headName: 'head',
      setup: SETUP,
      sshConfigFile: nodesConfig,
      onSnapshot: () => {},
      now: () => clock,
    });
    execs.length = 0;
    const first = await poller.pollOnce();
    expect(execs).toHaveLength(1);
    expect(execs[0].slice(-2)).toEqual(['node2', 'node3']);
    expect(execs[0][2]).toMatch(/BatchMode=yes/);
    expect(execs[0][2]).toMatch(/ConnectTimeout=/);
    const used = (s: GpuSnapshot) => s.gpus.map((g) => g.memoryUsedMiB);
    expect(first.map((s) => s.node)).toEqual(['head', 'node2', 'node3']);
    expect(first[0]).toMatchObject({
      node: 'head',
      at: clock,
      gpus: [{ index: 0, name: H100, memoryUsedMiB: 100, memoryTotalMiB: 81559, utilizationPct: 0 }, { index: 1 }],
    });
    expect(first[0].error).toBeUndefined();
    expect(used(first[1])).toEqual([70000, 71000, 72000, 73000]);
    expect(first[1].gpus.every((g) => g.utilizationPct === 97 && g.name === H100)).toBe(true);
    expect(first[1].error).toBeUndefined();
    expect(first[2]).toMatchObject({
      node: 'node3',
      gpus: [],
      unreachable: true,
      error: expect.stringMatching(/^node3: ssh to the node failed.*Connection refused/),
    });
    expect(first[2].stale).toBeUndefined();

    // node2 goes down; the head's figures change: the next round has fresh head figures and node2's last ones, marked.
    const firstAt = clock;
    await node2.stop();
    writeFileSync(join(smi.head, 'gpus.csv'), gpuRows([5000, 6000], 40));
    clock += 15_000;
    const second = await poller.pollOnce();
    expect(execs).toHaveLength(2);
    expect(used(second[0])).toEqual([5000, 6000]);
    expect(second[0].stale).toBeUndefined();
    expect(second[1]).toMatchObject({ node: 'node2', at: clock, unreachable: true, stale: true, figuresAt: firstAt });
    expect(used(second[1])).toEqual([70000, 71000, 72000, 73000]);
    expect(second[1].error).toMatch(/^node2: ssh to the node failed.*\(its figures are 15 s old\)$/);
    expect(second[2]).toMatchObject({ node: 'node3', gpus: [], unreachable: true });
    expect(second[2].stale).toBeUndefined();
  });
});
