// A 16-node fan-out where one node hangs (accepts, then never answers) under real bash, through a
// stand-in `ssh` on PATH: the first round reports it after the limit; while its question is still
// pending, later rounds report it at once and do NOT ask it again (so the panel is not held by it
// every round, and a sick node does not collect one stuck process per round). When the pending
// question ends, the node is asked again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFanOutArgv, splitNodeAnswers, unreachableReason } from '../../src/remote/node-fan-out.js';
import { killTree } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { pendingQuestion, endPendingQuestions } from '../harness/fan-out-pending.js';

let bin: string;
let tmp: string;

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'awrl-fanout-hung-'));
  tmp = mkdtempSync(join(tmpdir(), 'awrl-fanout-tmp-'));
  writeFileSync(
    join(bin, 'ssh'),
    [
      '#!/bin/bash',
      'while [ $# -gt 0 ]; do case $1 in -o|-F) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done',
      'printf "%s\\n" "$1" >> "$(dirname "$0")/calls"',
      'case $1 in',
      '  hang-*) exec sleep 600;;',
      '  slow-*) read -r -t 1 _ <> <(:); AWRL_NODE=$1 exec bash -s;;',
      '  *) AWRL_NODE=$1 exec bash -s;;',
      'esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
});

afterAll(async () => {
  await endPendingQuestions(tmp);
  rmSync(bin, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

function run(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      argv[0],
      argv.slice(1),
      { env: { ...process.env, TMPDIR: tmp, PATH: `${bin}:${process.env.PATH}` }, maxBuffer: 1 << 24 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
}

const calls = (node: string): number =>
  existsSync(join(bin, 'calls'))
    ? readFileSync(join(bin, 'calls'), 'utf8')
        .split('\n')
        .filter((l) => l === node).length
    : 0;

describe('a hung node in a 16-node fan-out', () => {
  const nodes = Array.from({ length: 16 }, (_, i) => (i === 7 ? 'hang-7' : `gpu-${i}`));
  const round = async () =>
    splitNodeAnswers(
      await run(
        nodeFanOutArgv('awrl-gpu', 'echo "0, H100, ${AWRL_NODE:-?}"', [], nodes, {
          nodeTimeoutSec: 2,
          pendingTimeoutSec: 120,
        }),
      ),
    );

  it('holds only the first round; later rounds report it at once without asking it again', async () => {
    const first = await round();
    expect([...first.values()].filter((a) => a.rc === 0)).toHaveLength(15);
    expect(first.get('gpu-15')).toEqual({ lines: ['0, H100, gpu-15'], rc: 0 });
    expect(first.get('hang-7')?.rc).toBe(124);
    expect(unreachableReason(first.get('hang-7'), 2)).toBe('no answer within 2 s');
    expect(calls('hang-7')).toBe(1);
    expect(pendingQuestion(tmp, 'awrl-gpu', 'hang-7')).not.toBeNull();
    expect(pendingQuestion(tmp, 'awrl-gpu', 'gpu-0')).toBeNull();

    const second = await round();
    expect([...second.values()].filter((a) => a.rc === 0)).toHaveLength(15);
    expect(second.get('hang-7')?.rc).toBe(124);
    expect(second.get('hang-7')?.lines.join('\n')).toMatch(/^still no answer to the question asked \d+ s ago$/);
    expect(calls('hang-7')).toBe(1); // not asked again: one pending question per node
    expect(calls('gpu-0')).toBe(2);

    // The pending question ends (here: killed; in life: it answers or hits pendingTimeoutSec).
    const pid = pendingQuestion(tmp, 'awrl-gpu', 'hang-7')!;
    await killTree(pid);
    await waitFor(() => !pidAlive(pid), { what: 'the pending question to end' });
    const third = await round();
    expect(third.get('hang-7')?.rc).toBe(124);
    expect(calls('hang-7')).toBe(2); // asked again
  }, 60_000);

  it('two cockpits asking the same slow (not hung) node at once both get its answer', async () => {
    const ask = () =>
      run(nodeFanOutArgv('awrl-gpu', 'echo "ok ${AWRL_NODE:-?}"', [], ['slow-1'], { nodeTimeoutSec: 5 })).then(
        splitNodeAnswers,
      );
    const [a, b] = await Promise.all([ask(), ask()]);
    expect(a.get('slow-1')).toEqual({ lines: ['ok slow-1'], rc: 0 });
    expect(b.get('slow-1')).toEqual({ lines: ['ok slow-1'], rc: 0 });
  });
});
