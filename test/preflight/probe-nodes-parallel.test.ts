// The pre-flight probe asks a job's nodes several at once (bounded), not one after another: run for
// real on this machine with `ssh` on PATH replaced by a script that answers for a node as its
// nvidia-smi would, holding the question a moment and recording how many questions were open at once.
// The answers come back in the order the nodes were given, whatever order they finished in.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/index.js';
import { runProbe } from '../../src/preflight/probe.js';

// The fake ssh: `ssh OPTS… NODE nvidia-smi ARGS`; counts open questions under a lock, answers a GPU
// row naming the node (later nodes answer sooner, so finishing order differs from the given one).
const SSH = `#!/bin/bash
d=$AWRL_TEST_SSH_DIR
while [ $# -gt 0 ] && [ "\${1#-}" != "$1" ]; do shift 2; done
node=$1
{ flock 9; n=$(( $(cat "$d/open") + 1 )); echo $n > "$d/open"; [ $n -gt $(cat "$d/max") ] && echo $n > "$d/max"; } 9>"$d/lock"
sleep 0.$(( 9 - \${node#n} ))
{ flock 9; echo $(( $(cat "$d/open") - 1 )) > "$d/open"; } 9>"$d/lock"
case "$*" in *query-gpu*) echo "0, GPU-$node, NVIDIA H100 80GB HBM3, 0, 81559" ;; esac
`;

describe('the probe asks the nodes in parallel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-probe-par-'));
  const bin = join(dir, 'bin');
  const t = new LocalTransport();
  const saved = { PATH: process.env.PATH, AWRL_TEST_SSH_DIR: process.env.AWRL_TEST_SSH_DIR };
  beforeAll(() => {
    mkdirSync(bin);
    writeFileSync(join(bin, 'ssh'), SSH);
    chmodSync(join(bin, 'ssh'), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH}`;
    process.env.AWRL_TEST_SSH_DIR = dir;
  });
  afterAll(async () => {
    process.env.PATH = saved.PATH;
    if (saved.AWRL_TEST_SSH_DIR === undefined) delete process.env.AWRL_TEST_SSH_DIR;
    else process.env.AWRL_TEST_SSH_DIR = saved.AWRL_TEST_SSH_DIR;
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const probe = async (parallel: number) => {
    writeFileSync(join(dir, 'open'), '0');
    writeFileSync(join(dir, 'max'), '0');
    const nodes = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8'];
    const facts = await runProbe(t, {
      workdir: dir,
      python: 'python3',
      modelPath: join(dir, 'model'),
      fileroot: join(dir, 'fileroot'),
      experiment: 'e',
      trial: 't',
      datasets: [],
      nodes,
      parallel,
    });
    return { facts, nodes, max: Number(readFileSync(join(dir, 'max'), 'utf8')) };
  };

  it('at most `parallel` nodes at once, more than one; answers in the given order', async () => {
    const { facts, nodes, max } = await probe(4);
    expect(max).toBeGreaterThan(1);
    expect(max).toBeLessThanOrEqual(4);
    expect(facts.gpuNodes.map((n) => n.node)).toEqual(['', ...nodes]);
    for (const n of facts.gpuNodes.slice(1))
      expect(n.gpus).toMatchObject({ ok: true, out: expect.stringContaining(`GPU-${n.node}`) });
  }, 60_000);

  it('parallel 1: one after another (the reference the bench compares with)', async () => {
    const { max } = await probe(1);
    expect(max).toBe(1);
  }, 60_000);
});
