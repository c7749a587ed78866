// The events the trainer-log parser emits. This file is a contract shared by the parser, the
// metrics store, the simulator's tests, `awrl-tui parse --json`, `--launch --follow --json` and
// the cockpit: change it only together with all of them.
//
// JSON form: `type` first, then exactly these field names. Times are the record's own timestamp,
// ISO 8601 without zone, as printed (`20260525-12:19:55.952` -> `2026-05-25T12:19:55.952`).

/** Where a record came from: 'main' (the controller), a worker role from merged.log's prefix
 *  ('actor', 'rollout', ...), or 'ray' for Ray-forwarded lines on the controller's stdout. */
export type LogSource = string;

export interface StepEvent {
  type: 'step';
  epoch: number;
  epochs: number;
  step: number;
  stepsPerEpoch: number;
  globalStep: number;
  totalSteps: number;
  time: string;
  /** Every key of the stats table as Python's float() reads its printed value: `nan` -> NaN, `inf`
   *  -> Infinity, `-inf` -> -Infinity (three different facts), text that is no number -> null.
   *  JSON form: non-finite values are the strings "nan", "inf", "-inf" (see json.ts). The parser's
   *  stats are read-only by contract (not frozen: that costs more than the parse): they carry
   *  their printed values for the JSON line and the store (stats-shapes.ts). Copy to change. */
  readonly stats: Readonly<Record<string, number | null>>;
}

/** A `Memory-Usage <phase>:` record: the controller's (source 'main': numbers of the DP-head-0
 *  GPU, phases `recompute logp`, `ppo update`, …) or a worker's own (phases such as `after model
 *  creation/loading`), each a fact of that writer's GPU. Source 'worker': a worker's record
 *  tee'd unprefixed into a local-scheduler controller's stdout (which worker is unknown). The
 *  parser always sets source. */
export interface MemoryEvent {
  type: 'memory';
  phase: string;
  allocatedGB: number;
  reservedGB: number;
  usedGB: number;
  totalGB: number;
  time: string;
  source?: LogSource;
}

/** The controller's `prepare_batch/<role>:` record: how long it waited for a batch of that
 *  rollout role ('rollout' for training; an eval or test role too). */
export interface BatchEvent {
  type: 'batch';
  waitS: number;
  totalS: number;
  /** null: logged as `n_episodes=N/A`. */
  episodes: number | null;
  time: string;
  /** The word after `prepare_batch/`. The parser always sets it. */
  role?: string;
}

/** `Recovering from StepInfo(... global_step=G ...)`: resumeStep = G + 1 (1-based step that runs next). */
export interface ResumeEvent {
  type: 'resume';
  resumeStep: number;
  time: string;
}

/** `Resume info not found at ...`: a fresh start. */
export interface StartEvent {
  type: 'start';
  time: string;
}

export type ErrorKind = 'oom' | 'nccl-timeout' | 'sglang-launch' | 'worker-failed' | 'ray-actor-died' | 'other';

export interface ErrorEvent {
  type: 'error';
  message: string;
  detail: string;
  kind: ErrorKind;
  time: string | null;
  source?: LogSource;
  /** For an error that quotes a worker's log (WorkerFailedError's `Stderr output:`): what that log
   *  says last (its last exception line, else its last line), where the worker's death is told. */
  cause?: string;
}

export type WarningKind =
  | 'episode-timeout'
  | 'omniboxes-alloc'
  | 'other'
  /** The parser itself: a record over the size cap was cut. */
  | 'record-truncated'
  /** The parser itself: input ended inside a table or traceback. */
  | 'incomplete-record';

export interface WarningEvent {
  type: 'warning';
  message: string;
  kind: WarningKind;
  time: string | null;
  source?: LogSource;
  /** The record's further lines (a multi-line message, the traceback of `exc_info=True`): a
   *  traceback there belongs to the warning, it is not an error. Absent for a one-line record. */
  detail?: string;
}

/** The controller's `Training completes! …` record, for a run that completed. That record is
 *  written on every exit, crashes included, and close() logs its teardown after it, so the parser
 *  holds it until the process is known to be over (the end of the input, the attempt marker, the
 *  exit status, a new process's first record), and drops it when a controller error is next to
 *  it in the same attempt (before it: upstream AReaL's `Training failed with exception`; after
 *  it: AsyncWebRL's traceback, raised after close()). */
export interface FinishedEvent {
  type: 'finished';
  time: string;
}

/** A difficulty bucket of a completed eval round (webgym: easy <= 3, medium <= 6, hard > 6), from
 *  the `test_rollout/trajectory/<bucket>/{reward,num_steps,n_tasks}` keys of the train step table
 *  that carries the round. */
export interface EvalBucket {
  reward: number;
  numSteps: number;
  /** Episodes of the bucket that count (completed, not blocked). */
  n: number;
}

/** Websites and abandoned tasks kept with an eval round (eval-rounds.ts): `Blocking K websites for
 *  this round: [...]` (at most 10 named), `Filtered N tasks from blocked websites`, and the grace
 *  period's `abandoning K remaining tasks as failures`. */
export interface EvalRoundExtras {
  blockedWebsites?: number;
  blockedNames?: string[];
  blockedTasks?: number;
  abandoned?: number;
}

/** webgym's test rollout (areal/utils/test_rollout.py, a thread of the controller): `Test rollout
 *  round N complete: reward=…, num_steps=…, completed=C/T, failed=F, time=…s, model_step=S`.
 *  `reward` is the mean over the `completed` episodes (not blocked); `failed` = total - completed
 *  (blocked, abandoned, crashed). The round number restarts at 0 with each trainer process; the
 *  model step does not. Emitted before the next train step (whose table may carry byDifficulty),
 *  or when the next round completes, or the process or the input ends. */
export interface EvalEvent extends EvalRoundExtras {
  type: 'eval';
  round: number;
  modelStep: number;
  reward: number;
  completed: number;
  total: number;
  failed: number;
  numSteps: number;
  timeS: number;
  byDifficulty?: { easy?: EvalBucket; medium?: EvalBucket; hard?: EvalBucket };
  time: string;
}

/** The running round's `Test rollout round N progress: …, completed=C/T, failed=F, elapsed=…s,
 *  model_step=S` (T: tasks submitted so far). */
export interface EvalProgressEvent extends EvalRoundExtras {
  type: 'eval-progress';
  round: number;
  modelStep: number;
  reward: number;
  completed: number;
  total: number;
  failed: number;
  elapsedS: number;
  time: string;
}

/** wandb's banner on the controller's stdout: `wandb: 🚀 View run at URL` (url), or an offline
 *  run's `Run data is saved locally in DIR/offline-run-…` (url null, `dir` to `wandb sync`). */
export interface WandbEvent {
  type: 'wandb';
  url: string | null;
  dir?: string;
  offline?: boolean;
  /** Always null: wandb's lines carry no time (kept so that every event has one). */
  time: null;
  /** `config`: not a line of the log but the run page its config makes, known before wandb printed
   *  its banner (src/runs/wandb-expected.ts); the banner's own event replaces it. */
  from?: 'config';
}

export type TrainerEvent =
  | StepEvent
  | MemoryEvent
  | BatchEvent
  | ResumeEvent
  | StartEvent
  | ErrorEvent
  | WarningEvent
  | FinishedEvent
  | EvalEvent
  | EvalProgressEvent
  | WandbEvent;
