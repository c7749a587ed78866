// `follow` runs the Slurm wall-time rule as the cockpit does: on a real one-node Slurm behind a real
// sshd, a run whose job has a 10-minute limit, the trainer's own log lines (the fixture: a recover
// checkpoint at step 4, 10-minute steps) moved so that the last one was written a minute ago, and
// recover.freq_secs = 3600 from the run's config. The next checkpoint is ~50 min away (dated by the
// trainer's `Saving … checkpoints` record, which follow feeds to its rules), the job ends in < 10:
// `follow` prints the alert (`{"type":"alert"}` with --json), and says it cleared once
// `scontrol update TimeLimit=` moved the end past the checkpoint (asked again every minute).
// Needs dist/ built.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeRunRecord, type RunRecord } from '../../src/runs/index.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { slurmTargetArgs } from '../harness/slurm-target.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { sentinelCli } from '../runs/cli-process.js';
import { localNaiveNow, shiftLog } from '../harness/log-clock.js';

const TITLE = 'Slurm time limit before the next checkpoint';
/** What the rule says with the checkpoint dated by the save record (without it: due within minutes,
 *  and "the steps since the last recover checkpoint"). It fires at the first record where it holds,
 *  on the log's clock (the save itself, read in the backlog: the checkpoint due in ~60 min then). */
const DETAIL =
  /the allocation ends in \d+ min( \d+ s)?; the next recover checkpoint is due in ~([3-5]\d|60) min( \d+ s)? plus a step of ~\d+ min( \d+ s)?: the steps after step 5 would be lost/;

describe('follow on a real Slurm job: the wall-time rule', { timeout: 180_000 }, () => {
  let slurm: SlurmCluster;
  let sshd: SshdHandle;
  let dir: string;
  let jobId = '';
  const runId = 'walltime-20261129-120000-0002';
  const { start, killAll } = sentinelCli(`walltime-sentinel-${process.pid}-Xk2`);

  beforeAll(async () => {
    [slurm, sshd] = await Promise.all([startSlurm(), startSshd()]);
    dir = mkdtempSync(join(tmpdir(), 'awrl-follow-walltime-'));
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
    // The reference config as launched with two overrides: recover every hour, no W&B key needed.
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'walltime',
      trial: 'trial0',
      target: sshd.alias,
      workdir: dir,
      runDir,
      backend: 'slurm',
      argv: [
        'python3',
        'webgym/train.py',
        '--config',
        `${runDir}/config.yaml`,
        'recover.freq_secs=3600',
        'stats_logger.wandb.mode=disabled',
      ],
      secretNames: [],
      createdAt: startedAt,
      attempts: [{ n: 1, reason: 'launch', startedAt, jobId }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(
      join(runDir, 'config.yaml'),
      readFileSync('/work/shared/reference/config_8x8h100_grpo_inst_nokl.yaml'),
    );
    // Up to step 6's rollout: the checkpoint at step 4 (13:02), the last line 13:12:03, a minute ago.
    const fixture =
      readFileSync('/work/shared/fixtures/areal-logs/run-a/main.log', 'utf8').split('\n').slice(0, 458).join('\n') +
      '\n';
    expect(fixture.trimEnd().split('\n').at(-1)).toContain('20260525-13:12:03');
    writeFileSync(
      join(runDir, 'stdout.log'),
      shiftLog(fixture, localNaiveNow() - 60_000 - Date.UTC(2026, 4, 25, 13, 12, 3, 0)),
    );
  }, 120_000);

  afterAll(async () => {
    killAll();
    if (jobId) execFileSync('scancel', [jobId], { env: slurm.env });
    await Promise.all([slurm?.stop(), sshd?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the alert (and its JSON line), then that it cleared once scontrol raised the limit', async () => {
    const target = slurmTargetArgs({ sshd, slurm, workdir: dir, simSpeed: 1 });
    const human = start(['follow', runId, ...target]);
    const json = start(['follow', runId, ...target, '--json']);
    const jsonLines = () =>
      json.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const walltime = (type: string) => jsonLines().filter((l) => l.type === type && l.id === 'health/slurm/walltime');

    await waitFor(() => human.stdout.includes(`alert: [warning] ${TITLE}`) && walltime('alert').length > 0, {
      timeoutMs: 60_000,
      what: `the wall-time alert (human: ${human.stdout.slice(-400)} ${human.stderr.slice(-400)})`,
    });
    expect(human.stdout).toMatch(new RegExp(`^alert: \\[warning\\] ${TITLE}: ${DETAIL.source} → Extend the job`, 'm'));
    expect(human.stdout).toMatch(/^step 4\/160 /m);
    const fired = walltime('alert').at(-1)!;
    expect(fired).toMatchObject({
      severity: 'warning',
      title: TITLE,
      advice: expect.stringContaining('scontrol update JobId=<id> TimeLimit=<longer>'),
    });
    expect(fired.detail).toMatch(DETAIL);
    // The saves feed the rules only: the event lines are the contract's (as `parse --json`).
    expect(jsonLines().some((l) => l.type === 'save')).toBe(false);

    execFileSync('scontrol', ['update', `JobId=${jobId}`, 'TimeLimit=600'], { env: slurm.env });
    // The end is asked again every minute.
    await waitFor(() => human.stdout.includes(`alert cleared: ${TITLE}`) && walltime('alert-cleared').length > 0, {
      timeoutMs: 100_000,
      what: 'the wall-time alert to clear',
    });
    const lines = human.stdout.split('\n');
    expect(lines.findLastIndex((l) => l.startsWith(`alert cleared: ${TITLE}`))).toBeGreaterThan(
      lines.findLastIndex((l) => l.startsWith(`alert: [warning] ${TITLE}`)),
    );
    // Its severity is the latest one: an error once less than a step is left before the end.
    expect(walltime('alert-cleared').at(-1)).toEqual({
      type: 'alert-cleared',
      id: 'health/slurm/walltime',
      severity: expect.stringMatching(/^(warning|error)$/),
      title: TITLE,
    });
    // Following goes on: the run is still running.
    expect(human.child.exitCode).toBeNull();
    expect(json.stderr).toMatch(/^state\s+running/m);
  });
});
