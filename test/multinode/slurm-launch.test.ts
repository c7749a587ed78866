// A 4-node Slurm launch on the one-machine cluster (test/harness/cluster.ts) with the simulator as the
// trainer: the batch script brings Ray up on the 4 nodes, run.json records n1-n4, and every node's
// GPUs are its own: 8 per node, different per node, held by real processes of THAT node.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GpuPoller } from '../../src/gpu/index.js';
import { parseRunRecord, planFromConfig, runNodes } from '../../src/runs/index.js';
import { runPreflight } from '../../src/preflight/index.js';
import { waitFor } from '../harness/wait.js';
import { ENV, rayRunOverrides, startWorld, type World } from './world.js';

describe('a 4-node Slurm run on the one-machine cluster', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(4);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
  }, 60_000);

  it("pre-flight checks the nodes sbatch --test-only names, and names the node of a busy GPU's PID", async () => {
    const planned = planFromConfig({
      target: w.target(),
      fileName: w.config,
      text: readFileSync(w.config, 'utf8'),
      overrides: rayRunOverrides(4, 'mn-pre'),
      env: ENV,
    });
    if (!planned.ok) throw new Error(planned.messages.join('\n'));
    const holder = Number(w.cluster.onNode('n3', 'setsid nohup sleep 600 </dev/null >/dev/null 2>&1 & echo $!').trim());
    mkdirSync(join(w.workdir, 'state', 'gpu-holders'), { recursive: true });
    writeFileSync(join(w.workdir, 'state', 'gpu-holders', 'n3'), `3 ${holder} 30720 python3\n`);
    try {
      const checks = await runPreflight(w.t, {
        evaluation: planned.evaluation,
        target: w.target(),
        envNames: Object.keys(ENV),
      });
      const gpus = checks.find((c) => c.id === 'gpus')!;
      expect(gpus.seen).toBe(
        `the job's nodes (sbatch --test-only: n[1-4]): ${['n1', 'n2', 'n3', 'n4'].map((n) => `${n}: 8 × NVIDIA H100 80GB HBM3`).join('; ')}`,
      );
      const mem = checks.find((c) => c.id === 'gpu-memory')!;
      expect(mem.seen).toMatch(
        new RegExp(`^n3 GPU 3: \\d+/81559 MiB in use by PID ${holder} \\(python3, 30720 MiB\\)$`),
      );
      expect(mem.todo).toContain(`kill ${holder} on n3`);
    } finally {
      w.cluster.onNode('n3', `kill ${holder}`);
    }
  }, 120_000);

  it('starts Ray on 4 nodes, records them, and each node reports its own GPUs and holders', async () => {
    // Epochs enough that the run still holds its GPUs while every node is checked (a loaded machine is slow).
    const res = await w.launch([...rayRunOverrides(4, 'mn-launch'), 'total_train_epochs=10']);
    const runDir = res.record.runDir;
    const log = (): string => readFileSync(join(runDir, 'stdout.log'), 'utf8');
    await waitFor(() => log().includes('awrl: starting Ray: 4/4 nodes joined; starting the trainer'), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: `Ray on 4 nodes\n${(() => {
        try {
          return log();
        } catch {
          return '';
        }
      })()}`,
    });
    await waitFor(() => /Train step 1\/\d+ done/.test(log()), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'the first step',
    });
    const record = parseRunRecord(readFileSync(join(runDir, 'run.json'), 'utf8'))!;
    expect(record.attempts[0].nodes).toEqual(['n1', 'n2', 'n3', 'n4']);

    // The GPU panel's path: one fan-out from the head over the recorded nodes.
    const poller = new GpuPoller(w.t, { nodes: runNodes(record), includeHead: false, onSnapshot: () => {} });
    const snaps = await poller.pollOnce();
    expect(snaps.map((s) => [s.node, s.gpus.length, s.error ?? null])).toEqual(
      ['n1', 'n2', 'n3', 'n4'].map((n) => [n, 8, null]),
    );

    // Each node's holders: real processes of that node (its own PID space), and the GPUs differ per node.
    const uuids = new Set<string>();
    for (const n of ['n1', 'n2', 'n3', 'n4']) {
      const apps = w.cluster
        .onNode(n, 'nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits')
        .trim()
        .split('\n');
      expect(apps.length, n).toBeGreaterThan(0);
      const pids = [...new Set(apps.map((l) => l.split(', ')[0]))];
      for (const l of apps) uuids.add(l.split(', ')[1]);
      const cmd = w.cluster.onNode(n, `ps -o args= -p ${pids.join(',')}`).trim();
      expect(cmd, n).toMatch(/ray(-main\.js)? start/);
      const env = w.cluster
        .onNode(n, `tr '\\0' '\\n' < /proc/${pids[0]}/environ | grep '^AWRL_RUN_ID=' || true`)
        .trim();
      expect(env, `${n}: the holder is the run's (tagged) process`).toBe(`AWRL_RUN_ID=${record.runId}`);
    }
    expect(uuids.size).toBe(32); // 4 nodes x 8 GPUs, none reported twice
  }, 240_000);
});
