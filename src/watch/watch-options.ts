// What a RunWatch is given (run-watch.ts re-exports these: its callers import them from there).
import type { Transport } from '../remote/transport.js';
import type { HealthEvent } from '../health/index.js';
import type { TrainerLogReader } from '../trainer-log/index.js';
import type { Target } from '../runs/targets.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import type { OutsideAlert } from './outside-alerts.js';
import type { WatchSnapshot } from './watch-snapshot.js';
import type { LogTail } from './follow-alerts.js';

/** Reading a long log's history through a target-side filter before following (the cockpit). */
export interface WatchBackfill {
  thresholdBytes: number;
  /** The raw tail's bytes taken with the silence's measure at attach (the log pane's, and the one
   *  before them), handed to `run` as `sink.tail`: no round trip of their own. Absent: none. */
  tailBytes?: number;
  /** Hands the history's records on in log order as they are read (`onEvents`), never all at once. */
  run(
    transport: Transport,
    logPath: string,
    size: number,
    sink: {
      onEvents(events: HealthEvent[]): void;
      onProgress(p: { readBytes: number; totalBytes: number }): void;
      /** Aborted when the watch is closed: the filter on the target stops. */
      signal: AbortSignal;
      /** A snapshot of the state at the history's start (watch-snapshot.ts) taken by the watch, its
       *  parser by `reader` (the one that goes on); throws (nothing taken) when it is not this
       *  watch's (another version, another config). */
      restore(s: WatchSnapshot, reader: TrainerLogReader): void;
      /** The log's last bytes up to `size`, read with the silence's measure (`tailBytes`). */
      tail?: LogTail;
    },
  ): Promise<{
    offset: number;
    /** The reader holding any record still open at `offset`: following goes on with it. */
    reader: TrainerLogReader;
    records: number;
    sentBytes: number;
    coveredBytes: number;
    /** Bytes of the history that came from a local cache (0: none). */
    cachedBytes?: number;
  }>;
}

export interface RunWatchOptions {
  transport: Transport;
  target: Target;
  runId: string;
  logPath: string;
  /** The run's config facts, or their promise (the config is read and evaluated while the follower
   *  starts): no record is taken before they are known. */
  facts?: RunWatchFacts | Promise<RunWatchFacts>;
  backfill?: WatchBackfill;
  /** After the run ended and its log was read: `stop` ends the watch (an `end` output); `pause`
   *  stops following, polls the state every `endedStatePollMs`, and follows again on a resume. */
  whenEnded: 'stop' | 'pause';
  /** Also the log pane's cleaned lines, as `lines` outputs (the cockpit). Default false. */
  lines?: boolean;
  /** Whether the run is known to have ended when the watch opens (the runs list said so). */
  endedAtOpen?: boolean;
  statePollMs?: number;
  /** Where something cheaper than a state poll can tell the run's state may have moved (the
   *  sentinel: its run's job process gone), it calls `nudge` and the state is asked at once; returns
   *  its stop. With it, a long `statePollMs` costs no delay at the run's end. */
  stateNudge?: (nudge: () => void) => () => void;
  endedStatePollMs?: number;
  /** The time-driven rules (stalls, the resume guard) are evaluated this often (default 5 s). */
  tickMs?: number;
  jobEndPollMs?: number;
  /** How long the log's tail may make no progress while connected once the run ended (15 s). */
  drainTimeoutMs?: number;
  storeCapacity?: number;
  /** 'rules': the store keeps as series only what the alert rules read (a printer of records and
   *  alerts: `follow`, `--launch --follow`); default 'all', for panels that chart every key. */
  storeSeries?: 'all' | 'rules';
  /** How long a node's GPUs may stay idle while the others work before it is named (2 min). */
  idleNodeMs?: number;
  /** How much longer than the state poll's interval the target may send nothing before "no data
   *  from HOST" (default NO_DATA_MARGIN_MS). */
  noDataMarginMs?: number;
  /** Alerts known outside the watch (the run's sentinel gone silent), told as its own. */
  outsideAlerts?: readonly OutsideAlert[];
  clock?: () => number;
}
