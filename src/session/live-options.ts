// What the live cockpit session is given: the targets (each a Transport to one SSH host or Slurm
// login node), the config the Config screen launches, and the poll paces. Kept apart from the
// session itself so that the parts it is made of (runs list, GPU polling, launch, leftovers) can
// share these types without importing the session.
import type { Transport } from '../remote/transport.js';
import type { GpuPollScope } from '../gpu/index.js';
import type { RunSummary as RunsSummary, Target } from '../runs/index.js';
import type { RunFacts } from './run-feed.js';
import type { GpuSnapshot } from './types.js';
import type { CockpitNotify } from './run-notify.js';

export interface TargetConnection {
  target: Target;
  transport: Transport;
  /**
   * The other hosts of a direct multi-node (Ray) run on this target, as the user named them
   * (`--check-nodes H1,H2`, like `awrl-tui stop`): run.json does not record them. The GPU panel
   * polls the head AND these; the leftover check looks on them too. Slurm runs ignore them.
   */
  directRunHosts?: string[];
}

/**
 * GPU polling is injected (src/gpu's poller): start it for a run on `scope` (src/gpu's
 * gpuPollScope: which hosts, the head or not), get snapshots, stop it.
 */
export type GpuPollerFactory = (
  conn: TargetConnection,
  scope: GpuPollScope,
  onSnapshots: (s: GpuSnapshot[]) => void,
) => () => void;

export interface LiveSessionOptions {
  targets: TargetConnection[];
  /** The config the Config screen edits and launches. */
  config?: { fileName: string; text: string; overrides?: string[] } | null;
  /** Target name launches go to (default: the first). */
  launchTarget?: string;
  /** Secret values for launches (names only are ever shown). */
  env?: Record<string, string | undefined>;
  /** Open this run at start. */
  openRunId?: string;
  /** A run pinned as the baseline at start (`--baseline RUN`), looked for on every target. */
  baselineRunId?: string;
  /** A local log file pinned as the baseline at start (`--baseline PATH`), read through the same
   *  watch and backfill as a run's log, over a connection to this machine the caller opened. */
  baselineFile?: { path: string; local: TargetConnection };
  runsPollMs?: number;
  /** The runs list once every listed run has ended (default 30 s). */
  idleRunsPollMs?: number;
  statePollMs?: number;
  /** How often an ended run's state (for a resume) and GPUs are still checked; default 60 s. */
  endedStatePollMs?: number;
  /** How often a Slurm run's job end is asked of squeue (the wall-time rule; default 60 s). */
  jobEndPollMs?: number;
  /** How long a node's GPUs may stay idle while the others work before it is named (2 min). */
  idleNodeMs?: number;
  /** Default: src/gpu's poller on the run's head node every 5 s; null: no GPU polling. */
  gpuPoller?: GpuPollerFactory | null;
  /** Facts of a run's config (budget, batch size), read from its config.yaml; overridable for tests. */
  runFacts?: (conn: TargetConnection, record: RunsSummary) => Promise<RunFacts>;
  /** Where the open run's alerts, end and blindness are sent (src/notify); absent: nowhere. */
  notify?: CockpitNotify;
  clock?: () => number;
}

/** An ended run: its state and GPUs are checked this often (its log is no longer followed). */
export const ENDED_POLL_MS = 60_000;
/** The runs list when every run on every target has ended. */
export const IDLE_RUNS_POLL_MS = 30_000;

/** Names of the variables set to something (the values are never shown or passed on). */
export function setEnvNames(env: Record<string, string | undefined>): string[] {
  return Object.keys(env).filter((k) => env[k] !== undefined && env[k] !== '');
}
