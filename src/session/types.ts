// The cockpit's one dependency: a Session (state + actions). Views read SessionState and call
// actions; only session implementations talk to metrics, runs and remote. Everything here is
// plain data so panels can be rendered in tests from literals.
import type { ConnectionState, FollowProblem } from '../remote/transport.js';
import type { Alert } from '../metrics/alerts.js';
import type { EvalHistory } from '../metrics/eval-history.js';
import type { HealthGroup, RlWarning } from '../metrics/rl-health.js';
import type { Leftover } from '../preflight/leftovers.js';
import type { AlertHistoryEntry } from '../health/alert-history.js';
import type { ConnectProblem } from './connect-advice.js';
import type { EpisodeSummary, StepView } from '../episodes/index.js';
import type { Shot } from '../runs/dump-shots.js';
import type { SentinelState } from '../runs/sentinel-status.js';

export type { ConnectProblem };

export type { ConnectionState, FollowProblem };

/** The store's derived step wall-time series. */
export { STEP_TIME_KEY as STEP_TIME_SERIES } from '../metrics/store.js';

export type RunState = 'submitted' | 'pending' | 'running' | 'finished' | 'failed' | 'timeout' | 'stopped' | 'unknown';

/** How far an ended run's log was read before following stopped: to its end; not at all or not
 *  wholly because it cannot be read (a follow problem); not to its end (the wait gave up); no log. */
export type LogReadEnd = 'read' | 'unreadable' | 'incomplete' | 'missing';

export interface RunSummary {
  id: string;
  target: string;
  experiment?: string;
  trial?: string;
  state: RunState;
  step: number | null;
  totalSteps: number | null;
  reward: number | null;
  /** Epoch ms of the last `Train step … done.` record, when known. */
  lastStepAt: number | null;
  /** The run's sentinel as `runs` says it ("sentinel ok, 12 s ago"); absent: it has none. */
  sentinel?: {
    state: SentinelState;
    text: string;
    /** Its writes in the run dir fail (a full disk). */ disk?: boolean;
  };
}

export interface TargetSummary {
  name: string;
  connection: ConnectionState;
  runs: RunSummary[];
  error?: string;
  /** The cockpit could not connect to this target: what happened, what to do, whether `r` retries. */
  connectProblem?: ConnectProblem;
  /** Its connection ended at a login that needs a person (a second factor): `r` asks it. */
  needsLogin?: boolean;
}

export type { Alert, AlertHistoryEntry };

export interface GpuInfo {
  index: number;
  name?: string;
  usedMiB: number | null;
  totalMiB: number | null;
  utilPct?: number | null;
}

/** One node's GPUs in one polling round (src/gpu's GpuSnapshot, as the panel needs it). */
export interface GpuSnapshot {
  node: string;
  /** This round's figures; when `stale`, the node's last good ones (read at `figuresAt`). */
  gpus: GpuInfo[];
  /** Why this round has no figures for the node. */
  error?: string;
  /** ms (the poller's clock) when this round's answer arrived. */
  at?: number;
  /** The node could not be asked: its GPUs are UNKNOWN (never shown as zero GPUs). */
  unreachable?: boolean;
  /** `gpus` are from an earlier round because this one failed. */
  stale?: boolean;
  /** When the stale figures were read (ms, the poller's clock: compare with `at`). */
  figuresAt?: number;
  /** PCI bus ids of GPUs nvidia-smi could not reach this round (fallen off the bus): `gpus` holds
   *  the others, `error` says what to do. */
  lostGpus?: string[];
}

/** The trainer's own `Memory-Usage <phase>:` figures, latest per phase (and per source). */
export interface MemoryFigure {
  /** Who logged it: absent or 'main' for the controller (DP head 0), else the worker's source. */
  source?: string;
  phase: string;
  allocatedGB: number;
  reservedGB: number;
  usedGB: number;
  totalGB: number;
}

export interface LogLine {
  /** Monotonic, so views can key and search without re-reading. */
  seq: number;
  level: 'error' | 'warning' | 'info';
  time: string | null;
  source?: string;
  text: string;
}

/** One line the trainer printed, cleaned (no ANSI, no control characters); a stats table is one
 *  `kind: 'table'` summary line; `kind: 'note'` lines are the cockpit's own (reset, backfill). */
export interface TrainerLine {
  seq: number;
  level: 'error' | 'warning' | 'info';
  text: string;
  kind?: 'table' | 'note';
}

/** The last lines of the followed log (a bounded ring, oldest first). */
export interface TrainerLinesView {
  lines: readonly TrainerLine[];
  /** The lines start in the middle of the log (a long log was backfilled: earlier lines not loaded). */
  startsMidLog: boolean;
  /** Lines that fell out of the ring. */
  dropped: number;
}

/** A series' points with their x axis: each value at the global step it was logged at (a bucket's
 *  last step), so two runs can be aligned by step (a pinned baseline, a resumed run's gap). */
export interface SeriesPoints {
  steps: number[];
  /** NaN where missing. */
  values: number[];
}

/** Read access to the run's series store (src/metrics MetricsStore fits through an adapter). */
export interface SeriesSource {
  /** Number of distinct steps held. */
  readonly stepCount: number;
  keys(): string[];
  /** `key` in ≤ `buckets` points, with the step of each. */
  downsample(key: string, buckets: number): SeriesPoints;
  latest(key: string): number | null;
}

/** Figures derived from the series (step time, throughput, ETA). */
export interface DashboardFigures {
  step: number | null;
  totalSteps: number | null;
  epoch: number | null;
  epochs: number | null;
  /** Epoch ms the run started (for "elapsed"), when known. */
  startedAt: number | null;
  /** Epoch ms of the last step record (for "age of the last step"). */
  lastStepAt: number | null;
  /** Seconds left, estimated at `lastStepAt`. */
  etaS: number | null;
  stepTimeS: number | null;
  episodesPerS: number | null;
  trainTokensPerS: number | null;
  rolloutWaitS: number | null;
  /** Step time per series (seconds), aligned with the store's steps (for the throughput chart). */
  stepTimes?: number[];
  /** Every timeperf/* phase of the latest step record, as logged (absent: take the series'). */
  phases?: { key: string; seconds: number }[];
  /** Epoch ms of the run's last log record once it has ended (elapsed stops there); else null. */
  endedAt?: number | null;
}

/** Run states after which nothing more happens (the leftover check is offered, clocks stop). */
export const ENDED_STATES: ReadonlySet<string> = new Set(['finished', 'failed', 'stopped', 'timeout']);

export interface RunView {
  summary: RunSummary;
  connection: ConnectionState;
  /** Epoch ms when `connection` last changed (drives the reconnect countdown). */
  connectionAt: number;
  series: SeriesSource;
  figures: DashboardFigures;
  alerts: Alert[];
  /** Every alert seen while the cockpit watched (active and cleared), bounded; absent: none kept. */
  alertHistory?: readonly AlertHistoryEntry[];
  /** Entries the history's cap removed (the oldest cleared); absent: none. */
  alertHistoryDropped?: number;
  memory: MemoryFigure[];
  gpus: GpuSnapshot[];
  /** Bounded ring of recent log lines built from parser events (oldest first). */
  log: LogLine[];
  /** The trainer's own lines (absent: this session has none, the pane shows `log`). */
  trainerLines?: TrainerLinesView;
  /** rollout.max_head_offpolicyness when the config is known. */
  offpolicyBudget: number | null;
  /** The run ended: nothing is followed or polled any more but its state, every `statePollS` (a
   *  resume starts everything again); `log` says how far its log was read (absent: to its end). */
  pollingStopped?: { statePollS: number; log?: LogReadEnd };
  /** The log cannot be followed although the connection works (absent: it is): `text` says the
   *  target, the path, the error and what to do. */
  followProblem?: FollowProblem;
  /** Connected, but the target has sent nothing since then (epoch ms; absent: it answers): nothing
   *  is known about the run meanwhile (the header says "no data from HOST for N s"). */
  silentSince?: number;
  /** A long log's history is being read at attach (`readBytes` of `totalBytes`); meanwhile the
   *  figures, charts and log pane are those of its last few MiB (a preview), and no alert is
   *  evaluated yet. Absent: the history is read. */
  history?: { readBytes: number; totalBytes: number };
  /** The pinned baseline beside this run (absent: none pinned, or it is this run). */
  baseline?: BaselineOverlay;
  /** The attempt is bringing up its Ray cluster (the batch script's line, `starting Ray: 3/4 nodes
   *  joined, n3 failed: …`); absent: not, or over (the trainer's first record was read). */
  rayBringUp?: string;
  /** The RL health figures and early warnings of the steps read so far (absent: not kept here). */
  rl?: { groups: HealthGroup[]; warnings: RlWarning[]; step: number | null };
  /** The held-out eval rounds read so far (absent: this session does not keep them). */
  evals?: EvalHistory;
  /** The wandb run: its URL (the banner's, else computed from the config), or an offline run's dir. */
  wandb?: WandbView;
}

export interface WandbView {
  url: string | null;
  /** Where the URL comes from: the banner the trainer printed, or the config before it printed one. */
  from: 'log' | 'config';
  /** Offline mode: the local run dir and the command that uploads it. */
  offline?: { dir: string | null; sync: string };
}

/** A run's points by global step (ascending). */
export interface StepPoints {
  steps: readonly number[];
  values: readonly (number | null)[];
}

/** A run pinned as the baseline, drawn beside the open run (issue #33). */
export interface BaselineOverlay {
  /** `target:run`, for the legend. */
  label: string;
  runId: string;
  state: RunState;
  /** Why its series is short or absent (its history being read, its log gone), or absent. */
  note?: string;
  /** Per overlaid stats key (rollout/reward, staleness/gap/offpolicy_avg, the step time): the open
   *  run's points (a: its series, ≤ 1024) and the baseline's (b: as many, each the last of its
   *  steps), and the difference b − a at the latest step both have, from the baseline's every step
   *  (null: no such step yet). */
  series: Record<
    string,
    {
      a: StepPoints;
      b: StepPoints;
      latest: { step: number; a: number; b: number; delta: number } | null;
      /** The same points by each run's training hours (resume gaps removed) and by the samples it
       *  consumed (`t`); a point whose axis value is unknown is left out. */
      axes: { hours: { a: StepPoints; b: StepPoints }; samples: { a: StepPoints; b: StepPoints } };
    }
  >;
}

export interface ConfigRow {
  key: string;
  depth: number;
  label: string;
  /** Display text of the value; '' for a section. */
  value: string;
  type: 'section' | 'string' | 'int' | 'float' | 'bool' | 'null' | 'list' | 'dict' | 'other';
  /** 'file:12', 'override 2', 'default'. */
  origin: string;
  leaf: boolean;
}

export interface ConfigDiagnostic {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  key?: string;
  /** 'config.yaml:12:3' or "override 2 '++seed=3'" */
  where: string;
}

export interface ConfigDiffLine {
  key: string;
  before: string;
  after: string;
}

export interface ConfigView {
  fileName: string;
  overrides: string[];
  rows: ConfigRow[];
  diagnostics: ConfigDiagnostic[];
  hasErrors: boolean;
  diff: ConfigDiffLine[];
  /** The exact argv that would run; secrets never appear in it. */
  argv: string[];
  /** Secret names the launch forwards (names only). */
  secrets: { name: string; present: boolean; required: boolean }[];
  target: string | null;
  /** The target's backend (the launch confirmation offers auto-resume for Slurm only). */
  targetBackend?: 'direct' | 'slurm' | null;
  /** A draft edit currently being typed, evaluated live. */
  draft: { key: string; text: string } | null;
}

export type LaunchPhase =
  | { phase: 'idle' }
  | { phase: 'launching' }
  | { phase: 'launched'; runId: string; message: string }
  | { phase: 'failed'; message: string };

/** One pre-flight check (src/preflight's CheckResult). */
export interface PreflightCheck {
  id: string;
  result: 'ok' | 'warning' | 'error';
  seen: string;
  todo: string;
}

/** The pre-flight of the Config screen's launch: the same gate as `--launch` (src/preflight/gate). */
export type PreflightPhase =
  | { phase: 'idle' }
  | { phase: 'running'; target: string }
  | {
      phase: 'done';
      target: string;
      checks: PreflightCheck[];
      errors: number;
      warnings: number;
      /** An error-level check failed (or the probe could not run): launching needs an explicit skip. */
      blocked: boolean;
      /** Why it is blocked (one line), or ''. */
      reason: string;
      /** Set when the probe itself could not run. */
      failed?: string;
      /** Skipping the pre-flight (S) cannot lift this block: a run of this trial is active, and the
       *  launch itself refuses that. The confirmation offers no S then. */
      unskippable?: boolean;
      /** The overrides it ran with: results for another config are stale. */
      overrides: string[];
    };

/** A process found after a run ended: src/preflight's Leftover, whose node is shown only when the
 *  check spanned several nodes of the run (absent: the target itself). Only `tagged` ones (they carry
 *  AWRL_RUN_ID=<this run>) are ever offered for stopping. */
export type LeftoverProcess = Omit<Leftover, 'node'> & { node?: string };

export type LeftoverPhase =
  | { phase: 'idle' }
  | { phase: 'checking'; runId: string }
  // unchecked: what could not be looked at (`node: why`: unreachable, or its GPUs not asked).
  | { phase: 'found'; runId: string; list: LeftoverProcess[]; unchecked?: string[] }
  | { phase: 'stopping'; runId: string; list: LeftoverProcess[]; unchecked?: string[] }
  | { phase: 'stopped'; runId: string; stopped: LeftoverProcess[]; remaining: LeftoverProcess[] }
  | { phase: 'failed'; runId: string; message: string };

export interface SessionState {
  /** Bumped on every change; the UI samples it on a timer to bound its frame rate. */
  version: number;
  targets: TargetSummary[];
  selectedRunId: string | null;
  run: RunView | null;
  config: ConfigView | null;
  launch: LaunchPhase;
  /** A one-line message for the status bar (errors of actions, hints). */
  notice: string | null;
  /** Pre-flight of the Config screen's launch (absent: never ran). */
  preflight?: PreflightPhase;
  /** Leftover check of an ended run (absent: never ran). */
  leftovers?: LeftoverPhase;
  /** The run pinned as the baseline (absent or null: none). */
  baselineRunId?: string | null;
  /** A server's login question waiting for the person (a second factor, asked on `r`); absent: none. */
  loginPrompt?: LoginPromptView;
  /** The open run's dumped episodes for the Trajectories screen (absent: never listed). */
  trajectories?: TrajectoriesView;
}

/** One prompt of a server's keyboard-interactive round, as the cockpit's dialog shows it. */
export interface LoginPromptView {
  /** The target's name, and the ssh host that asks. */
  target: string;
  host: string;
  /** The server's title and instructions ('' when none). */
  instructions: string;
  prompt: string;
  /** false: what is typed is not shown (a code, a password). */
  echo: boolean;
}

/** The open run's dumps (src/session/run-trajectories.ts): episodes null while listing; `problem`
 *  why none are shown; the steps of the record opened last (`stepsFile`). */
export interface TrajectoriesView {
  runId: string;
  episodes: EpisodeSummary[] | null;
  sizes: ReadonlyMap<string, number>;
  problem: string | null;
  stepsFile: string | null;
  steps: StepView[] | null;
  stepsProblem: string | null;
  /** The opened record's screenshots by path, as they arrive (smallest first; a missing one says why). */
  shots: ReadonlyMap<string, Shot>;
}

export interface SessionActions {
  selectRun(runId: string | null): void;
  /** What the screen shows: the runs list, or the open run (the dashboard, its log, its alerts):
   *  polling lists only what is shown. */
  showing?(what: 'runs' | 'run'): void;
  refreshRuns(): void;
  stopRun(runId: string): Promise<void>;
  /** Live evaluation of a value being typed for `key` (null clears the draft). */
  setDraft(draft: { key: string; text: string } | null): void;
  /** Commit an edit: becomes (or replaces) a `++key=value` override. */
  setValue(key: string, text: string): void;
  addOverride(text: string): void;
  /** 1-based, as shown ('override 2'). */
  removeOverride(index: number): void;
  /** Launch the Config screen's config through the pre-flight gate; `skipPreflight` launches
   *  despite errors and is recorded in run.json (like `--skip-preflight`). */
  launch(opts?: { skipPreflight?: boolean; autoResume?: number }): Promise<void>;
  /** Run the pre-flight for the Config screen's config on the launch target, without launching. */
  runPreflight(): Promise<void>;
  /** List processes still tagged with the (ended) run, or holding GPU memory, on its target. */
  checkLeftovers(runId: string): Promise<void>;
  /** Stop only the processes tagged with the run (after the user confirmed). */
  stopLeftovers(runId: string): Promise<void>;
  /** Pin the run as the baseline drawn beside the open run; the pinned run again unpins it. */
  pinBaseline?(runId: string): void;
  /** The answer to `loginPrompt` (Enter), or null: declined (Esc), the target stays disconnected. */
  answerLogin?(answer: string | null): void;
  /** List the open run's dumped episodes (again) for the Trajectories screen. */
  listTrajectories?(): void;
  /** Read one dumped record whole: its steps. */
  openEpisode?(file: string): void;
  /** Copy one dumped episode and its screenshots to the local pins directory (`episodes --pin`). */
  pinEpisode?(file: string): void;
}

export interface Session {
  getState(): SessionState;
  /** Called after every state change (possibly very often: the UI throttles). */
  subscribe(listener: () => void): () => void;
  actions: SessionActions;
  close(): Promise<void>;
}
