// Stopping a run: the stop is recorded first (so the state reads `stopped`, not `failed`, and an
// auto-resume guard sees a cancel), then SIGTERM to the job's group, a grace period, SIGKILL, and
// a sweep of leftovers by the run tag; on Slurm, scancel of every job of the run. The request time
// is the head's clock, like every other time about the run (log, attempts, exit files, Slurm).
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { setupInWorkdir, type Target } from './targets.js';
import { isValidRunId, runJobIds } from './run-record.js';
import { STOP_DIRECT_SCRIPT, STOP_SLURM_SCRIPT, parseMarkedLines } from './remote-scripts.js';
import { RunError, readRecord, writeRecord } from './launch.js';
import { listRunsOnHead, runsRoot } from './list.js';
import { ABANDONED, isActive, isTerminal, type DerivedState } from './run-state.js';
import { assertWorkdir, defaultWhere } from './twins.js';

export interface StopReport {
  runId: string;
  backend: 'direct' | 'slurm';
  /** Process groups sent SIGTERM / SIGKILL. */
  terminated: number[];
  killed: number[];
  /** Tagged processes outside the group (e.g. torchrun workers) that were swept. */
  swept: number[];
  /** Tagged processes still alive afterwards (should be empty). */
  left: number[];
  cancelledJobs: string[];
  /** The run had already ended before the stop (its state is kept: a finished run stays finished). */
  alreadyEnded?: DerivedState;
  /** An abandoned launch (nothing ever started in it): its run dir was removed. */
  removedAbandoned?: boolean;
  /** When the stop was asked for, on the head's clock, as run.json keeps it (an ended run's
   *  earlier stop time; absent when it ended without one). */
  stopRequestedAt?: string;
  /** The run's state once the stop is done (Slurm: once its jobs left the queue, or the grace
   *  period passed); absent when the target could not be asked. */
  after?: DerivedState;
}

/** How the run was stopped: scancel, SIGTERM (it ended within the grace), SIGKILL, or null when
 *  nothing was running. */
export function stoppedBy(r: StopReport): 'scancel' | 'sigterm' | 'sigkill' | null {
  if (r.backend === 'slurm') return r.cancelledJobs.length > 0 ? 'scancel' : null;
  return r.killed.length > 0 ? 'sigkill' : r.terminated.length > 0 ? 'sigterm' : null;
}

export async function stopRun(
  transport: Transport,
  target: Target,
  runId: string,
  /** sweep: false leaves processes tagged outside the job's group to the caller (`awrl-tui stop` lists them and asks). */
  opts: { graceSeconds?: number; now?: () => Date; sweep?: boolean } = {},
): Promise<StopReport> {
  // The advice names the --workdir too: without it, the command to copy lists another checkout's runs.
  const list = `awrl-tui runs ${defaultWhere(target)}`;
  if (!isValidRunId(runId)) throw new RunError(`'${runId}' is not a run id (see ${list})`, 2, 'usage');
  const runDir = `${runsRoot(target)}/${runId}`;
  const record = await readRecord(transport, runDir);
  const report: StopReport = {
    runId,
    backend: record?.backend ?? 'direct',
    terminated: [],
    killed: [],
    swept: [],
    left: [],
    cancelledJobs: [],
  };
  if (!record) {
    // No run.json, or one cut short (a disk that filled mid-write): a run the list still shows is
    // stopped through its pid file; nothing can be recorded in its run.json.
    if (!(await listRunsOnHead(transport, target, { only: runId, tailBytes: 0 })).runs[0]) {
      await assertWorkdir(transport, target); // a --workdir typo is said as such, not as "no run"
      throw new RunError(
        `no run ${runId} on ${target.name} (${runsRoot(target)}); list them with: ${list}`,
        2,
        'run-not-found',
      );
    }
    await refuseUnreadableSlurm(transport, target, runId, runDir);
    return stopDirect(transport, target, report, runDir, opts);
  }
  // Recording the stop of a run that already ended would turn `finished` (or `failed`) into
  // `stopped`: its state is history, keep it. The signals and the sweep below still run (harmless
  // on a dead group; they catch tagged leftovers).
  const listed = await listRunsOnHead(transport, target, { only: runId, tailBytes: 0 });
  const now = listed.runs[0];
  if (now && now.detail === ABANDONED && record.attempts.length === 0) {
    // Nothing ever started there (no job.pid): the dir is only what an interrupted launch wrote.
    const res = await transport.exec([
      'bash',
      '-c',
      '[ ! -e "$1/job.pid" ] && [ ! -e "$1/slurm-submitting" ] && rm -rf -- "$1"',
      'awrl-clear',
      runDir,
    ]);
    if (res.code === 0)
      return { ...report, alreadyEnded: { state: now.state, detail: now.detail }, removedAbandoned: true };
  }
  if (now && isTerminal(now.state)) {
    report.alreadyEnded = { state: now.state, detail: now.detail };
    if (record.stopRequestedAt) report.stopRequestedAt = record.stopRequestedAt;
  } else {
    // The client's clock only when the head could not tell its own.
    record.stopRequestedAt = listed.headNow ?? (opts.now ?? (() => new Date()))().toISOString();
    report.stopRequestedAt = record.stopRequestedAt;
    await writeRecord(transport, record);
  }
  const grace = Math.max(0, Math.round(opts.graceSeconds ?? 10));
  if (record.backend === 'slurm') {
    const ids = runJobIds(record);
    if (ids.length > 0) {
      const res = await transport.exec(remoteScript(STOP_SLURM_SCRIPT, [setupInWorkdir(target), ...ids], 'awrl-stop'));
      // scancel of jobs that already ended is not an error worth failing the stop for.
      for (const [k, f] of parseMarkedLines(res.stdout.toString()))
        if (k === 'scancel') report.cancelledJobs.push(f[0]);
      if (res.code !== 0 && report.cancelledJobs.length === 0) {
        const why = res.stderr.toString().trim().split('\n').pop() ?? '';
        if (!/Invalid job id|already completed|Job\/step already completing/i.test(why)) {
          throw new RunError(`scancel failed on ${target.name}: ${why || `exit ${res.code}`}`, 1);
        }
      }
    }
    // scancel only asks: the jobs leave the queue when their processes are gone (up to the grace).
    report.after = await stateAfter(transport, target, runId, report.cancelledJobs.length > 0 ? grace * 1000 : 0);
    return report;
  }
  return stopDirect(transport, target, report, runDir, opts);
}

/** SIGTERM to the job's group (job.pid), the grace, SIGKILL, the tag sweep. */
async function stopDirect(
  transport: Transport,
  target: Target,
  report: StopReport,
  runDir: string,
  opts: { graceSeconds?: number; sweep?: boolean },
): Promise<StopReport> {
  const grace = Math.max(0, Math.round(opts.graceSeconds ?? 10));
  const res = await transport.exec(
    remoteScript(
      STOP_DIRECT_SCRIPT,
      [runDir, report.runId, String(grace), opts.sweep === false ? '0' : '1'],
      'awrl-stop',
    ),
  );
  for (const [k, f] of parseMarkedLines(res.stdout.toString())) {
    const pid = Number(f[0]);
    if (k === 'term') report.terminated.push(pid);
    else if (k === 'kill') report.killed.push(pid);
    else if (k === 'sweep') report.swept.push(pid);
    else if (k === 'left') report.left.push(pid);
  }
  report.after = await stateAfter(transport, target, report.runId, 0);
  return report;
}

/** A Slurm run's job ids are in its run.json only: with that unreadable, say how to find them
 *  rather than "nothing was running". */
async function refuseUnreadableSlurm(transport: Transport, target: Target, runId: string, runDir: string) {
  const r = await transport.exec([
    'bash',
    '-c',
    '[ -e "$1/job.sbatch" ] || [ -e "$1/slurm-submitting" ]',
    'awrl-kind',
    runDir,
  ]);
  if (r.code === 0)
    throw new RunError(
      `run.json of ${runId} on ${target.name} is unreadable (cut short or corrupt) and it is a Slurm run, whose ` +
        `job ids only run.json keeps: find them with squeue --me --name=awrl-${runId}, then scancel them`,
      1,
    );
}

/** The run's state after the stop, asked again until it is no longer active or `waitMs` passed. */
async function stateAfter(
  transport: Transport,
  target: Target,
  runId: string,
  waitMs: number,
): Promise<DerivedState | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let r;
    try {
      r = (await listRunsOnHead(transport, target, { only: runId, tailBytes: 0 })).runs[0];
    } catch {
      return undefined; // the stop is done; only its report goes without the state
    }
    if (!r) return undefined;
    if (!isActive(r.state) || Date.now() >= deadline) return { state: r.state, detail: r.detail };
    await new Promise((res) => setTimeout(res, 250));
  }
}
