// `runs --json` and the runs table show the auto-resume chain of a run that a Slurm time limit cut:
// a real one-node Slurm behind a real sshd, the simulator as the trainer, all through the CLI.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { sentinelCli, ROOT } from './cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { slurmTargetArgs } from '../harness/slurm-target.js';
import { waitFor } from '../harness/wait.js';

const SECRET = `chain-sentinel-${process.pid}-Zt4`;
const { cli } = sentinelCli(SECRET);

interface Row {
  runId: string;
  state: string;
  jobIds: string[];
  chain: Array<
    Record<string, unknown> & {
      jobId: string;
      ended: string | null;
      resumedFromStep: number | null;
      lastStep: number | null;
    }
  >;
}

describe('runs: the auto-resume chain of a Slurm run', () => {
  let sshd: SshdHandle;
  let slurm: SlurmCluster;
  let workdir: string;
  let config: string;
  const target = () => slurmTargetArgs({ sshd, slurm, workdir, simSpeed: 300, timeMinutes: 1 });

  beforeAll(async () => {
    [slurm, sshd] = await Promise.all([startSlurm(), startSshd()]);
    workdir = mkdtempSync(join(tmpdir(), 'awrl-runs-chain-'));
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256); // 8 steps per epoch at batch 32
  }, 120_000);
  afterAll(async () => {
    await Promise.all([slurm?.stop(), sshd?.stop()]);
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it('a run cut by its one-minute limit and resubmitted once: each attempt with job, start, end, why, resume step', async () => {
    // ~40 steps of ~2.5 s: more than the 60-90 s a one-minute job lives, less than two of them.
    const launched = await cli([
      '--launch',
      ...target(),
      '--config',
      config,
      'total_train_epochs=5',
      'recover.freq_steps=1',
      'recover.freq_secs=null',
      '++trial_name=chain-timeout',
      '--auto-resume',
      '1',
      '--skip-preflight',
      '--json',
    ]);
    expect(launched.code, launched.stderr).toBe(0);
    const { runId, jobIds } = JSON.parse(launched.stdout) as { runId: string; jobIds: string[] };
    expect(jobIds).toHaveLength(2);

    const row = async (): Promise<Row> => {
      const r = await cli(['runs', ...target(), '--json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Row[]).find((x) => x.runId === runId)!;
    };
    // While the first job runs, its chain is one attempt that has not ended.
    const first = await waitFor(async () => ((await row()).state === 'running' ? row() : null), {
      timeoutMs: 60_000,
      intervalMs: 1000,
      what: 'the first job to run',
    });
    expect(first.chain[0]).toMatchObject({ n: 1, reason: 'launch', jobId: jobIds[0], ended: null, endedAt: null });

    const end = await waitFor(
      async () => {
        const r = await row();
        return ['finished', 'failed', 'stopped', 'timeout'].includes(r.state) ? r : null;
      },
      { timeoutMs: 300_000, intervalMs: 3000, what: 'the resubmitted run to end' },
    );
    expect(end.state).toBe('finished');
    const node = hostname().split('.')[0];
    const [a1, a2] = end.chain;
    expect(end.chain).toHaveLength(2);
    expect(a1).toMatchObject({
      n: 1,
      reason: 'launch',
      jobId: jobIds[0],
      ended: 'TIMEOUT',
      resumedFromStep: null,
      nodes: [node],
    });
    expect(a2).toMatchObject({
      n: 2,
      reason: 'auto-resume',
      jobId: jobIds[1],
      ended: 'COMPLETED',
      lastStep: 40,
      nodes: [node],
    });
    // The second attempt resumed from its recover point: after the first's last step at the latest.
    expect(a2.resumedFromStep).toBeGreaterThan(1);
    expect(a2.resumedFromStep!).toBeLessThanOrEqual(a1.lastStep! + 1);
    // Ends: Slurm still remembers the timed-out job (MinJobAge), the second wrote its exit file.
    const t = (x: unknown) => Date.parse(String(x));
    expect(t(a1.endedAt)).toBeGreaterThanOrEqual(t(a1.startedAt));
    expect(t(a1.endedAt)).toBeLessThanOrEqual(t(a2.startedAt) + 1000);
    expect(t(a2.endedAt)).toBeGreaterThanOrEqual(t(a2.startedAt));

    const table = await cli(['runs', ...target()]);
    expect(table.stdout).toMatch(/\bCHAIN\b/);
    expect(table.stdout).toContain(`${jobIds[0]} TIMEOUT > ${jobIds[1]} from step ${a2.resumedFromStep} COMPLETED`);
  }, 420_000);
});
