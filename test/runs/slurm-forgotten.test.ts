// A long Slurm run whose auto-resume attempt waited in the queue longer than Slurm remembers ended
// jobs (MinJobAge, 300 s by default; hours of queueing are normal on a busy cluster). Neither the
// batch script's guard nor the state shown may then conclude that the time-limited attempt "failed":
// what Slurm forgot, the run directory still knows (the batch script writes slurm-exit.JOBID only
// when the trainer ended by itself).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveRunState } from '../../src/runs/run-state.js';
import type { RunRecord } from '../../src/runs/run-record.js';
import { batchScript } from '../../src/runs/slurm-batch.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { waitFor } from '../harness/wait.js';

const record: RunRecord = {
  version: 1,
  runId: 'r',
  experiment: 'e',
  trial: 't',
  target: 'c',
  workdir: '/w',
  runDir: '/w/.awrl/runs/r',
  backend: 'slurm',
  argv: ['python3'],
  secretNames: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  attempts: [{ n: 1, reason: 'launch', startedAt: 'x', jobId: '10' }],
  chainJobIds: ['11'],
  autoResume: 1,
  nodes: 1,
};

describe('state of a run whose ended attempt Slurm forgot', () => {
  it('the queued successor makes it pending, not failed', () => {
    expect(deriveRunState(record, { slurm: { '11': 'PENDING' } })).toEqual({
      state: 'pending',
      detail: 'job 11 PENDING after job 10 ended (Slurm no longer remembers how)',
    });
  });
  it('the running successor makes it running', () => {
    expect(deriveRunState(record, { slurm: { '11': 'RUNNING' } }).state).toBe('running');
  });
  it('an exit status written by the batch script still decides (the trainer ended by itself)', () => {
    expect(deriveRunState(record, { slurm: { '11': 'PENDING' }, slurmExit: { '10': 1 } })).toMatchObject({
      state: 'failed',
      detail: 'job 10 exit 1',
    });
    expect(deriveRunState(record, { slurm: { '11': 'PENDING' }, slurmExit: { '10': 0 } }).state).toBe('finished');
  });
  it('without a successor in the queue it stays failed', () => {
    expect(deriveRunState(record, { slurm: {} }).state).toBe('failed');
  });
});

describe('the auto-resume guard on a real Slurm, previous job forgotten', () => {
  let slurm: SlurmCluster;
  let dir: string;
  beforeAll(async () => {
    slurm = await startSlurm();
    dir = mkdtempSync(join(tmpdir(), 'awrl-forgotten-'));
  });
  afterAll(async () => {
    await slurm?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs attempt 2 of a fresh run dir as a Slurm job, after `prev` (a job id Slurm does not know). */
  async function attempt2(
    name: string,
    prev: string,
    prevExit?: number,
  ): Promise<{ log: string; out: string; attempts: Array<Record<string, unknown>> }> {
    const runDir = join(dir, name);
    execFileSync('mkdir', ['-p', runDir]);
    writeFileSync(
      join(runDir, 'run.json'),
      JSON.stringify({ attempts: [{ n: 1, reason: 'launch', startedAt: 'x', jobId: prev }] }) + '\n',
    );
    writeFileSync(join(runDir, 'stdout.log'), '');
    if (prevExit !== undefined) writeFileSync(join(runDir, `slurm-exit.${prev}`), `${prevExit}\n`);
    const script = join(runDir, 'job.sbatch');
    writeFileSync(
      script,
      batchScript({
        runId: name,
        runDir,
        workdir: dir,
        argv: ['/usr/bin/python3', '-c', 'print("trainer ran")'],
        nodes: 1,
      }),
      { mode: 0o755 },
    );
    const job = execFileSync(
      'sbatch',
      ['--parsable', `--chdir=${runDir}`, `--output=${runDir}/slurm-%j.out`, '-c', '1', script, '2', prev],
      { env: slurm.env, encoding: 'utf8' },
    ).trim();
    const out = join(runDir, `slurm-${job}.out`);
    await waitFor(
      () =>
        execFileSync('squeue', ['-h', '-j', job], { env: slurm.env, encoding: 'utf8' }).trim() === '' &&
        existsSync(out),
      { timeoutMs: 60_000, intervalMs: 200, what: `job ${job} to end` },
    );
    return {
      log: readFileSync(join(runDir, 'stdout.log'), 'utf8'),
      out: readFileSync(out, 'utf8'),
      attempts: (
        JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { attempts: Array<Record<string, unknown>> }
      ).attempts,
    };
  }

  it('no exit status from the previous job (Slurm ended it): the trainer resumes', async () => {
    const r = await attempt2('killed', '999991');
    expect(r.out).not.toMatch(/not needed/);
    expect(r.log).toBe('awrl: attempt 2\ntrainer ran\n');
    expect(r.attempts).toHaveLength(2);
    expect(r.attempts[1]).toMatchObject({ n: 2, reason: 'auto-resume' });
  });

  it('the previous trainer crashed (exit status 1): no new attempt', async () => {
    const r = await attempt2('crashed', '999992', 1);
    expect(r.out).toMatch(/attempt 2 not needed: job 999992 ended/);
    expect(r.log).toBe('');
    expect(r.attempts).toHaveLength(1);
  });

  it('the previous trainer finished (exit status 0): no new attempt', async () => {
    const r = await attempt2('finished', '999993', 0);
    expect(r.out).toMatch(/attempt 2 not needed/);
    expect(r.log).toBe('');
  });
});
