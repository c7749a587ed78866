/** @jsxRuntime classic */
// The Slurm wall-time rule in the cockpit: a run on Slurm whose job ends before the next recover
// checkpoint (recover.freq_secs after the last one, plus a step) is warned about on the Alerts
// panel. First on a synthetic record stream (the rule, its clock, the history), then end to end on
// a real one-node Slurm: a job with a 10-minute limit, the trainer's own log lines (the fixture,
// moved to now), recover.freq_secs from the run's config.yaml; the warning shows, and clears once
// the limit is raised with scontrol.
import React from 'react';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/remote/index.js';
import { listRuns, serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { App } from '../../src/ui/app.js';
import type { RunViewContext } from '../../src/session/run-records.js';
import { recordsWithRules, type RecordsWithRules } from './records-with-rules.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { slurmJobEnd } from '../../src/watch/slurm-job-end.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { waitFor } from '../harness/wait.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';
import { localNaiveNow, shiftLog } from '../harness/log-clock.js';
import { stepEvent } from '../harness/step-event.js';

const WALLTIME = 'health/slurm/walltime';
const at = (min: number) => `2026-05-25T12:${String(min).padStart(2, '0')}:00.000`;
const step = (g: number, min: number): TrainerEvent => stepEvent(g, 100, at(min), { 'rollout/reward': 0.5 });
const ctx: RunViewContext = {
  summary: { id: 'r', target: 't', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
  connection: { state: 'ready' },
  connectionAt: 0,
  gpus: [],
  trainerLines: { lines: [], startsMidLog: false, dropped: 0 },
  pollingStoppedS: null,
};

describe('RunRecords: the wall-time rule with the job end', () => {
  /** Started at 12:00, a checkpoint at 12:10, 2-minute steps until 12:20; recover every hour. */
  function records(): RecordsWithRules {
    const r = recordsWithRules({ facts: { recoverFreqSecs: 3600 }, clock: () => 1_000_000 });
    r.ingest({ type: 'start', time: at(0) });
    for (let g = 1; g <= 10; g++) {
      r.ingest(step(g, 2 * g));
      if (g === 5)
        r.ingest({ type: 'save', step: 4, time: at(10), what: 'HF + DCP checkpoints (periodic (1200s), step=4)' });
    }
    return r;
  }
  const walltime = (r: RecordsWithRules) => r.view(ctx).alerts.find((a) => a.id === WALLTIME);

  it('no job end known (not on Slurm): no wall-time alert', () => {
    expect(walltime(records())).toBeUndefined();
  });

  it('the job ends before the next checkpoint (due 13:10): warned, with what would be lost; in the history', () => {
    const r = records();
    r.setSlurmEndTime('2026-05-25T12:40:00');
    const a = walltime(r);
    expect(a).toMatchObject({ severity: 'warning', title: 'Slurm time limit before the next checkpoint' });
    expect(a!.detail).toBe(
      'the allocation ends in 20 min; the next recover checkpoint is due in ~50 min plus a step of ~2 min: the steps after step 5 would be lost',
    );
    expect(r.view(ctx).alertHistory?.some((h) => h.alert.id === WALLTIME)).toBe(true);
  });

  it('the job ends after the next checkpoint and its step: no alert; the end unknown again: none', () => {
    const r = records();
    r.setSlurmEndTime('2026-05-25T13:30:00');
    expect(walltime(r)).toBeUndefined();
    r.setSlurmEndTime('2026-05-25T12:40:00');
    expect(walltime(r)).toBeDefined();
    r.setSlurmEndTime(null);
    expect(walltime(r)).toBeUndefined();
  });
});

describe('the cockpit on a real Slurm job', () => {
  let slurm: SlurmCluster;
  let dir: string;
  let jobId = '';
  let transport: LocalTransport;
  let target: Target;
  let session: LiveSession;
  let r: Rendered;
  const runId = 'walltime-20261129-120000-0001';

  beforeAll(async () => {
    slurm = await startSlurm();
    dir = mkdtempSync(join(tmpdir(), 'awrl-ui-walltime-'));
    jobId = execFileSync('sbatch', ['--parsable', '-c', '1', '--time=10', '--wrap', 'sleep 900'], {
      env: slurm.env,
      cwd: slurm.dir,
      encoding: 'utf8',
    })
      .trim()
      .split(';')[0];
    await waitFor(
      () =>
        execFileSync('squeue', ['-h', '-j', jobId, '-o', '%T'], { env: slurm.env, encoding: 'utf8' }).trim() ===
        'RUNNING',
      { timeoutMs: 30_000, what: `Slurm job ${jobId} to run` },
    );
    const runDir = join(dir, '.awrl/runs', runId);
    mkdirSync(runDir, { recursive: true });
    const startedAt = new Date().toISOString();
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'walltime',
      trial: 'trial0',
      target: 'slurm',
      workdir: dir,
      runDir,
      backend: 'slurm',
      argv: ['python3', 'webgym/train.py', '--config', `${runDir}/config.yaml`],
      secretNames: [],
      createdAt: startedAt,
      attempts: [{ n: 1, reason: 'launch', startedAt, jobId }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'config.yaml'), 'recover:\n  freq_secs: 3600\n');
    // The trainer's own lines up to step 6's rollout (a checkpoint at step 4, 13:02; 10-minute
    // steps; the last line 13:12:03), moved so that the last line was written a minute ago: the
    // next checkpoint is due in ~50 min, the job ends in < 10 min.
    const fixture =
      readFileSync('/work/shared/fixtures/areal-logs/run-a/main.log', 'utf8').split('\n').slice(0, 458).join('\n') +
      '\n';
    expect(fixture.trimEnd().split('\n').at(-1)).toContain('20260525-13:12:03');
    const lastLine = Date.UTC(2026, 4, 25, 13, 12, 3, 0);
    writeFileSync(join(runDir, 'stdout.log'), shiftLog(fixture, localNaiveNow() - 60_000 - lastLine));
    transport = new LocalTransport();
    target = {
      name: 'slurm',
      host: 'local',
      workdir: dir,
      python: 'python3',
      setup: slurm.setupLine,
      backend: 'slurm',
      slurm: { extraArgs: [] },
    };
    session = createLiveSession({
      targets: [{ target, transport }],
      openRunId: runId,
      gpuPoller: null,
      runsPollMs: 1000,
      jobEndPollMs: 500,
    });
    r = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 160, rows: 50 }} colors={false} frameMs={50} />,
    );
  }, 120_000);

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await transport?.close();
    if (jobId) execFileSync('scancel', [jobId], { env: slurm.env });
    await slurm?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("squeue's end of the run's job is the one scontrol shows", async () => {
    const [run] = await listRuns(transport, target);
    const end = await slurmJobEnd({ target, transport }, run);
    expect(end).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(execFileSync('scontrol', ['show', 'job', '-o', jobId], { env: slurm.env, encoding: 'utf8' })).toContain(
      ` EndTime=${end} `,
    );
  });

  it('the Alerts panel warns that the job ends before the next checkpoint, and clears once the limit is raised', async () => {
    const f = await waitForFrame(
      r,
      (x) => x.includes('Slurm time limit before the next checkpoint'),
      'the wall-time warning',
      30_000,
    );
    expect(f).toMatch(/step 5\/160/);
    const alert = session.getState().run!.alerts.find((a) => a.id === WALLTIME)!;
    expect(alert.detail).toMatch(
      /^the allocation ends in \d+ min( \d+ s)?; the next recover checkpoint is due in ~(4\d|50) min( \d+ s)? plus a step of ~\d+ min( \d+ s)?: the steps after step 5 would be lost$/,
    );
    execFileSync('scontrol', ['update', `JobId=${jobId}`, 'TimeLimit=600'], { env: slurm.env });
    await waitFor(() => !session.getState().run!.alerts.some((a) => a.id === WALLTIME), {
      timeoutMs: 20_000,
      what: 'the warning to clear',
    });
    const cleared = await waitForFrame(
      r,
      (x) => /Slurm time limit before the next checkpoint.*cleared|cleared.*Slurm time limit/s.test(x),
      'the cleared warning',
      10_000,
    );
    expect(cleared).toContain('cleared');
  });
});
