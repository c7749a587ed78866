// One watched run in the cockpit: a renderer of src/runs' RunWatch, as `awrl-tui follow` is. The
// watch decides everything (what was read, what fired, the connection, the run's end, a resume);
// this keeps what the frames draw (RunRecords: the event and log rings; the trainer's own lines
// for the log pane, read by the watch's reader) and derives the RunView when the UI asks for a
// frame, once per change: a burst of 10,000 backfilled steps costs one derivation, not 10,000.
// Deriving has no side effects.
import type { ConnectionState, Transport } from '../remote/transport.js';
import type { Target } from '../runs/index.js';
import { RunWatch } from '../runs/run-watch.js';
import type { WatchOutput, LogReadEnd } from '../runs/watch-output.js';
import { problemText } from '../remote/follow-status.js';
import { backfill, readTail } from './backfill.js';
import { RunRecords, type RunFacts } from './run-records.js';
import { TrainerLineRing } from './trainer-lines.js';
import { NodeFailureWatch } from '../runs/node-facts.js';
import { rayAlert, type RayBringUp } from '../runs/ray-bringup-log.js';
import { isActive } from '../runs/run-state.js';
import type { Alert } from '../metrics/index.js';
import type { TrainerLogReader } from '../trainer-log/index.js';
import {
  ENDED_STATES,
  type GpuSnapshot,
  type LogLine,
  type RunState,
  type RunSummary,
  type RunView,
  type SeriesSource,
} from './types.js';

// The API other files and tests import from here, wherever the parts now live.
export { eventLogLine, localTimeMs } from './event-log-line.js';
export type { RunFacts } from './run-records.js';

/** Raw log read before the backfill's seam for the trainer-lines pane (the filter drops table rows). */
const TAIL_BYTES = 256 * 1024;
/** A frame's relative times (ages, elapsed) are redrawn at least this often. */
const VIEW_MAX_AGE_MS = 5_000;

export interface RunFeedOptions {
  transport: Transport;
  target: Target;
  summary: RunSummary;
  logPath: string;
  facts?: RunFacts;
  logLimit?: number;
  statePollMs?: number;
  /** Once the run has ended and its log is read to the end: the log is no longer followed, and
   *  its state is checked this often (default 60 s) in case it is resumed. */
  endedStatePollMs?: number;
  /** Told when following stops (the run ended) and starts again (it was resumed): the GPU poller
   *  follows it. */
  onPollingChange?(live: boolean): void;
  /** Logs larger than this are backfilled through the target-side filter (default 2 MiB). */
  backfillThresholdBytes?: number;
  jobEndPollMs?: number;
  /** The watch's rules are evaluated this often (default 5 s). */
  tickMs?: number;
  clock?: () => number;
  onChange(): void;
}

export class RunFeed {
  readonly watch: RunWatch;
  private readonly records: RunRecords;
  private readonly trainer = new TrainerLineRing();
  readonly store: RunRecords['store'];
  readonly series: SeriesSource;
  private view: RunView | null = null;
  private viewAt = 0;
  private dirty = true;
  private summary: RunSummary;
  private connection: ConnectionState;
  private connectionAt: number;
  private unsubscribeState: (() => void) | null = null;
  private gpus: GpuSnapshot[] = [];
  /** What onPollingChange last said (a run is followed live until it ends). */
  private polledLive = true;
  /** How far the log was read when following stopped (the header says it). */
  private logReadEnd: LogReadEnd = 'read';
  private readonly clock: () => number;

  constructor(private readonly o: RunFeedOptions) {
    this.clock = o.clock ?? Date.now;
    this.summary = o.summary;
    this.connection = o.transport.state;
    this.watchNodes();
    this.connectionAt = this.clock();
    this.watch = new RunWatch({
      transport: o.transport,
      target: o.target,
      runId: o.summary.id,
      logPath: o.logPath,
      whenEnded: 'pause',
      lines: true,
      endedAtOpen: ENDED_STATES.has(o.summary.state),
      clock: this.clock,
      backfill: {
        thresholdBytes: o.backfillThresholdBytes ?? 2 * 1024 * 1024,
        run: backfill,
        after: (offset, reader) => this.loadTail(offset, reader),
      },
      ...(o.facts ? { facts: o.facts } : {}),
      ...(o.statePollMs !== undefined ? { statePollMs: o.statePollMs } : {}),
      ...(o.endedStatePollMs !== undefined ? { endedStatePollMs: o.endedStatePollMs } : {}),
      ...(o.jobEndPollMs !== undefined ? { jobEndPollMs: o.jobEndPollMs } : {}),
      ...(o.tickMs !== undefined ? { tickMs: o.tickMs } : {}),
    });
    this.records = new RunRecords({
      store: this.watch.store,
      alerts: this.watch.alerts,
      facts: o.facts,
      logLimit: o.logLimit,
      clock: this.clock,
    });
    this.store = this.records.store;
    this.series = this.records.series;
    this.watch.on((w) => this.render(w));
  }

  start(): void {
    // The header shows the transport's own words (attempt, next try): what the user reads.
    this.unsubscribeState = this.o.transport.onState((s) => {
      this.connection = s;
      this.connectionAt = this.clock();
      this.changed();
    });
    this.watch.start();
  }

  private render(w: WatchOutput): void {
    switch (w.type) {
      case 'record':
        this.records.ingest(w.record);
        // A backfill's records come in one burst: one notification when it is over (the note).
        this.dirty = true;
        if (!w.backfilled) this.o.onChange();
        return;
      case 'lines':
        this.trainer.add(w.lines);
        return this.changed();
      case 'reset':
        // A new run's log appears after following started: nothing was shown, nothing to say.
        this.trainer.reset(w.reason === 'appeared' && this.watch.offset === 0 ? null : w.reason);
        return this.note('warning', `log ${w.reason}: following it from the start`);
      case 'ray':
        this.rayPhase = w.update;
        return this.changed();
      case 'state':
        this.summary = { ...this.summary, state: w.summary.state as RunState };
        this.nodeWatch?.update(w.summary.record, isActive(w.summary.state));
        return this.changed();
      case 'problem':
        // Said once per problem, in the event log and among the trainer's lines (the default pane).
        if (w.problem) {
          this.trainer.note(`— ${w.problem.text} —`, 'warning');
          return this.note('warning', w.problem.text);
        }
        this.trainer.note(`— reading ${this.o.logPath} again —`);
        return this.note('info', `reading ${this.o.logPath} again`);
      case 'settled':
        this.logReadEnd = w.readEnd;
        if (w.lastLines.length) {
          this.note('error', `the run failed; the last lines of its log:`);
          for (const l of w.lastLines) this.note('error', `  ${l}`);
        }
        return this.changed();
      case 'phase':
        {
          // Live is every phase but `ended`. Not only `resumed`: a resume seen while the connection is
          // down goes ended → unobserved → following, and never shows as `resumed`.
          const live = w.phase !== 'ended';
          if (live !== this.polledLive) {
            this.polledLive = live;
            this.o.onPollingChange?.(live);
          }
        }
        return this.changed();
      case 'note':
        return this.note(w.level, w.text);
      case 'alert':
      case 'alert-cleared':
      case 'connection':
        return this.changed();
      case 'end':
        return;
    }
  }

  /** The raw lines just before `end` (the seam where following starts), for the trainer pane:
   *  read by the reader that goes on following, so a table or traceback at the seam continues. */
  private async loadTail(end: number, reader: TrainerLogReader): Promise<void> {
    const from = Math.max(0, end - TAIL_BYTES);
    try {
      const { bytes, midLog, insideLine } = await readTail(this.o.transport, this.o.logPath, from, end);
      if (midLog) this.trainer.startMidLog();
      this.trainer.add(reader.linesBefore(bytes, insideLine));
    } catch {
      // Following starts at a line boundary: the pane's lines simply begin there.
      this.trainer.startMidLog();
    }
  }

  /** Following stopped because the run ended (its state is still checked, slowly). */
  get pollingStopped(): boolean {
    return this.watch.phase === 'ended';
  }

  setGpus(snapshots: GpuSnapshot[]): void {
    this.gpus = snapshots;
    this.changed();
  }

  /** A line of our own in the event log (a warning from the state poll, backfill figures). */
  private note(level: LogLine['level'], text: string): void {
    this.records.appendLog({ seq: 0, level, time: null, text });
    this.changed();
  }

  private changed(): void {
    this.dirty = true;
    this.o.onChange();
  }

  /** Bytes of the log read (tests wait on it). */
  get trainerLinesOffset(): number {
    return this.watch.offset;
  }

  get runId(): string {
    return this.summary.id;
  }

  private nodeWatch: NodeFailureWatch | null = null;
  /** The latest node-failure alert of the run's Slurm job (null: none seen). */
  private nodeAlert: Alert | null = null;
  /** The batch script's Ray bring-up as the log tells it (src/runs/ray-bringup-log.ts). */
  private rayPhase: RayBringUp | null = null;

  /** Watches a Slurm run's nodes (called once, from the constructor). */
  private watchNodes(): void {
    if (this.o.target.backend !== 'slurm') return;
    this.nodeWatch = new NodeFailureWatch(this.o.transport, this.o.target, (a) => {
      this.nodeAlert = a;
      this.changed();
    });
  }

  /** The view for the next frame; rebuilt when something changed, and at least every
   *  VIEW_MAX_AGE_MS (ages in the header move with the clock). Reads only. */
  getView(): RunView {
    const now = this.clock();
    if (this.view && !this.dirty && Math.abs(now - this.viewAt) < VIEW_MAX_AGE_MS) return this.view;
    this.dirty = false;
    this.viewAt = now;
    const idle = this.pollingStopped;
    const problem = this.watch.problem;
    this.view = this.records.view({
      summary: this.summary,
      connection: this.connection,
      connectionAt: this.connectionAt,
      gpus: this.gpus,
      trainerLines: this.trainer.view(),
      pollingStoppedS: idle ? Math.round((this.o.endedStatePollMs ?? 60_000) / 1000) : null,
      logReadEnd: this.logReadEnd,
      // An ended run's follower is paused: its problem must not say "still retrying".
      followProblem: idle && problem ? { ...problem, text: problemText(problem, { kind: 'paused' }) } : problem,
    });
    // A Slurm node failure, named with Slurm's verdict (src/runs/node-facts.ts), first among the alerts.
    const extra = [this.nodeAlert, rayAlert(this.rayPhase)].filter((a): a is Alert => a !== null);
    if (extra.length) this.view = { ...this.view, alerts: [...extra, ...this.view.alerts] };
    return this.view;
  }

  close(): void {
    this.watch.close();
    this.nodeWatch?.stop();
    this.unsubscribeState?.();
  }
}
