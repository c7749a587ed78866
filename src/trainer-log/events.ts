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
   *  JSON form: non-finite values are the strings "nan", "inf", "-inf" (see json.ts). */
  stats: Record<string, number | null>;
}

/** The controller's `Memory-Usage <phase>:` record (numbers of the DP-head-0 GPU). */
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

/** The `prepare_batch/rollout:` record: how long the trainer waited for its batch. */
export interface BatchEvent {
  type: 'batch';
  waitS: number;
  totalS: number;
  episodes: number;
  time: string;
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
}

export interface FinishedEvent {
  type: 'finished';
  time: string;
}

export type TrainerEvent =
  | StepEvent
  | MemoryEvent
  | BatchEvent
  | ResumeEvent
  | StartEvent
  | ErrorEvent
  | WarningEvent
  | FinishedEvent;
