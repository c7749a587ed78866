// The run's live state, derived from its record plus what the target says right now (process alive,
// exit-code files, Slurm job states). Pure, so every rule here has a table test.
import type { RunRecord, RunState } from './run-record.js';

/** What one probe of the target found for a run (see remote-scripts.ts LIST_SCRIPT / slurm query). */
export interface RunProbe {
  /** direct: the job's process group still exists. */
  alive?: boolean;
  /** direct: the process exists but its environ cannot be read (it runs as another Unix user than
   *  the one asking, named here): whether it is the job cannot be told. */
  aliveUnknownAs?: string;
  /** direct: the current attempt's exit status, when the job wrapper wrote it. */
  exitCode?: number | null;
  /** slurm: job id -> Slurm state (PENDING, RUNNING, COMPLETED, TIMEOUT, ...); absent when Slurm forgot it. */
  slurm?: Record<string, string>;
  /** slurm: job id -> exit status written by the batch script when the trainer ended. */
  slurmExit?: Record<string, number>;
  /** direct: attempt number -> that attempt's own exit status (how an earlier attempt ended). */
  attemptExit?: Record<number, number>;
  /** slurm: squeue failed (its message): `slurm` says nothing about any job. */
  squeueFailed?: string;
  /** The run dir has a launch.pid (a (re)launch under way, start-scripts.ts): true while its start
   *  script runs, false when it died half-way; absent when there is none. */
  launching?: boolean;
}

export interface DerivedState {
  state: RunState;
  /** A short why: `pid 1234`, `job 17 TIMEOUT`, `exit 1`. */
  detail: string;
}

const ACTIVE: ReadonlySet<RunState> = new Set(['submitted', 'pending', 'running']);
const ENDED: ReadonlySet<RunState> = new Set(['finished', 'failed', 'timeout', 'stopped']);
export const isActive = (s: RunState): boolean => ACTIVE.has(s);
/** Ended for sure (`unknown` is neither active nor terminal). */
export const isTerminal = (s: RunState): boolean => ENDED.has(s);
/** Active, or possibly so: what a launch of the same experiment+trial must not run next to. */
export const mayBeActive = (s: RunState): boolean => ACTIVE.has(s) || s === 'unknown';

/** Slurm ends that `--auto-resume` resubmits after. */
export const RESUMABLE_SLURM_ENDS: ReadonlySet<string> = new Set(['TIMEOUT', 'PREEMPTED', 'NODE_FAIL']);

const SLURM_RUNNING = new Set(['RUNNING', 'CONFIGURING', 'COMPLETING', 'STAGE_OUT', 'SIGNALING', 'RESIZING']);
const SLURM_PENDING = new Set([
  'PENDING',
  'REQUEUED',
  'REQUEUE_HOLD',
  'REQUEUE_FED',
  'SUSPENDED',
  'STOPPED',
  'RESV_DEL_HOLD',
]);

function fromSlurmEnd(s: string): RunState {
  if (s === 'COMPLETED') return 'finished';
  if (s === 'TIMEOUT' || s === 'DEADLINE') return 'timeout';
  if (s === 'CANCELLED') return 'stopped';
  return 'failed'; // FAILED, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, BOOT_FAIL, ...
}

export const ABANDONED =
  'abandoned launch: the launcher was interrupted before the job started, nothing runs (the next launch or awrl-tui stop removes it)';

export function deriveRunState(r: RunRecord, p: RunProbe): DerivedState {
  const last = r.attempts[r.attempts.length - 1];
  if (!last) {
    // The job started but its attempt was never recorded (the launcher was interrupted, or job.pid
    // came late): what runs is what counts.
    if (p.alive) return { state: 'running', detail: 'job.pid alive, start not recorded in run.json' };
    if (r.startError) return { state: 'failed', detail: `could not start: ${r.startError}` };
    if (r.stopRequestedAt) return { state: 'stopped', detail: `stopped before it started, at ${r.stopRequestedAt}` };
    if (p.launching) return { state: 'submitted', detail: 'not started yet: being launched' };
    // No start script at work (it died, or an older launcher was killed): nothing runs, and
    // nothing ever will. Not active, so it blocks no launch; the next launch removes it.
    return { state: 'failed', detail: ABANDONED };
  }
  return r.backend === 'slurm' ? deriveSlurm(r, p) : deriveDirect(r, p, last.pid);
}

function deriveDirect(r: RunRecord, p: RunProbe, pid: number | undefined): DerivedState {
  if (pid === undefined) return { state: 'submitted', detail: 'starting' };
  if (p.alive) return { state: 'running', detail: r.stopRequestedAt ? `pid ${pid}, stopping` : `pid ${pid}` };
  if (r.stopRequestedAt) return { state: 'stopped', detail: `stopped at ${r.stopRequestedAt}` };
  // The job wrapper writes the exit status last: once it is there the job has ended, whoever now
  // holds its pid. Without it, a process we may not inspect could be the job: never call it gone.
  if (p.aliveUnknownAs !== undefined && (p.exitCode === undefined || p.exitCode === null)) {
    return {
      state: 'unknown',
      detail: `pid ${pid} alive, not readable as ${p.aliveUnknownAs} (/proc/${pid}/environ): ask as the user who launched it`,
    };
  }
  if (p.exitCode === 0) return { state: 'finished', detail: 'exit 0' };
  if (p.exitCode !== undefined && p.exitCode !== null) return { state: 'failed', detail: `exit ${p.exitCode}` };
  return { state: 'failed', detail: `pid ${pid} gone without an exit status` };
}

function deriveSlurm(r: RunRecord, p: RunProbe): DerivedState {
  const attempt = r.attempts[r.attempts.length - 1].n;
  const cur = r.attempts[r.attempts.length - 1].jobId;
  if (!cur) return { state: 'submitted', detail: 'not submitted yet' };
  const slurm = p.slurm ?? {};
  const curState = slurm[cur];
  // The chain job queued behind the current attempt's job: the first of the chain after the job the
  // launch submitted, else the one after it (by job, not by attempt count: a requeued job is one
  // more attempt under the same job id).
  const next = r.chainJobIds[r.chainJobIds.indexOf(cur) + 1];
  const nextState = next ? slurm[next] : undefined;
  const tag = attempt > 1 ? ` (attempt ${attempt})` : '';
  if (curState && SLURM_RUNNING.has(curState)) return { state: 'running', detail: `job ${cur} ${curState}${tag}` };
  if (curState && SLURM_PENDING.has(curState)) return { state: 'pending', detail: `job ${cur} ${curState}${tag}` };
  if (curState && RESUMABLE_SLURM_ENDS.has(curState) && next && !r.stopRequestedAt) {
    // The afternotok chain takes over: its job starts (and records its attempt) by itself.
    if (nextState && SLURM_RUNNING.has(nextState))
      return { state: 'running', detail: `job ${next} ${nextState} (resubmitted)` };
    if (nextState && SLURM_PENDING.has(nextState))
      return { state: 'pending', detail: `job ${next} ${nextState} after ${curState}` };
  }
  if (r.stopRequestedAt) return { state: 'stopped', detail: `cancelled at ${r.stopRequestedAt}` };
  if (p.squeueFailed !== undefined && p.slurmExit?.[cur] === undefined) {
    // A job squeue cannot be asked about is not a job Slurm forgot: do not call it failed.
    return { state: 'unknown', detail: `job ${cur}: squeue failed (${p.squeueFailed})${tag}` };
  }
  if (curState) return { state: fromSlurmEnd(curState), detail: `job ${cur} ${curState}${tag}` };
  const code = p.slurmExit?.[cur];
  if (code === 0) return { state: 'finished', detail: `job ${cur} exit 0${tag}` };
  if (code !== undefined) return { state: 'failed', detail: `job ${cur} exit ${code}${tag}` };
  if (next && nextState && !r.stopRequestedAt) {
    // Slurm forgets an ended job after MinJobAge (300 s by default), and a successor can wait in the
    // queue for hours. No exit status means the trainer did not end by itself: Slurm ended it (time
    // limit, preemption, node failure), and the chain's next job takes over (the batch script's
    // guard reasons the same way).
    if (SLURM_RUNNING.has(nextState)) return { state: 'running', detail: `job ${next} ${nextState} (resubmitted)` };
    if (SLURM_PENDING.has(nextState))
      return {
        state: 'pending',
        detail: `job ${next} ${nextState} after job ${cur} ended (Slurm no longer remembers how)`,
      };
  }
  return { state: 'failed', detail: `job ${cur} unknown to Slurm and no exit status${tag}` };
}

/** Legal moves of the run state machine; the watcher reports anything else as a jump it saw. */
const TRANSITIONS: Record<RunState, readonly RunState[]> = {
  submitted: ['pending', 'running', 'finished', 'failed', 'timeout', 'stopped', 'unknown'],
  pending: ['running', 'finished', 'failed', 'timeout', 'stopped', 'unknown'],
  running: ['pending', 'finished', 'failed', 'timeout', 'stopped', 'unknown'],
  timeout: ['pending', 'running', 'unknown'], // auto-resume or --resume
  failed: ['submitted', 'pending', 'running', 'unknown'], // --resume
  stopped: ['submitted', 'pending', 'running', 'unknown'],
  finished: ['submitted', 'pending', 'running', 'unknown'],
  // squeue answers again: whatever it says now.
  unknown: ['submitted', 'pending', 'running', 'finished', 'failed', 'timeout', 'stopped'],
};

export function canTransition(from: RunState, to: RunState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}
