// One watched run in the cockpit: a renderer of src/watch's RunWatch, as `awrl-tui follow` is. The
// watch decides everything (what was read, what fired, the connection, the run's end, a resume);
// this keeps what the frames draw (RunRecords: the event and log rings; the trainer's own lines
// for the log pane, read by the watch's reader) and derives the RunView when the UI asks for a
// frame, once per change: a burst of 10,000 backfilled steps costs one derivation, not 10,000.
// Deriving has no side effects.
import type { ConnectionState, Transport } from '../remote/transport.js';
import type { Target } from '../runs/index.js';
import { createRunWatch } from '../watch/create-run-watch.js';
import type { RunWatch } from '../watch/run-watch.js';
import type { OutsideAlert } from '../watch/outside-alerts.js';
import type { WatchOutput, LogReadEnd } from '../watch/watch-output.js';
import { problemText } from '../remote/follow-status.js';
import { backfill, defaultBackfillCache, type BackfillTail } from './backfill.js';
import type { BackfillCache } from './backfill-cache.js';
import { digestPathFor, snapshotPathFor } from './run-digest.js';
import { holdYoungGeneration } from './dashboard-heap.js';
import { MetricsStore } from '../metrics/index.js';
import { RunAlerts } from '../health/index.js';
import { RunRecords, type RunFacts } from './run-records.js';
import { TrainerLineRing } from './trainer-lines.js';
import { rayAlert } from '../watch/ray-bringup-log.js';
import type { Alert } from '../metrics/index.js';
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

/** The raw tail read at attach through a watch snapshot: the log pane's 500 lines. */
const PANE_TAIL_BYTES = 256 * 1024;

/** A frame's relative times (ages, elapsed) are redrawn at least this often. */
const VIEW_MAX_AGE_MS = 5_000;

export interface RunFeedOptions {
  transport: Transport;
  target: Target;
  summary: RunSummary;
  logPath: string;
  /** Alerts known outside the watch (the run's sentinel gone silent: run-notify.ts). */
  outsideAlerts?: readonly OutsideAlert[];
  /** The run's config facts, or their promise (the cockpit reads the config beside the attach's
   *  first round trip: the watch takes no record before they are known, the figures show them then). */
  facts?: RunFacts | Promise<RunFacts>;
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
  /** What earlier backfills received (default: the user's cache directory; null: none). */
  backfillCache?: BackfillCache | null;
  /** Read the run's sentinel digest when there is one (run-digest.ts; default true). */
  useDigest?: boolean;
  jobEndPollMs?: number;
  /** A node idle while the others work is named after this long (default 2 min). */
  idleNodeMs?: number;
  /** The watch's rules are evaluated this often (default 5 s). */
  tickMs?: number;
  clock?: () => number;
  onChange(): void;
}

/** Whether the file is there (a look that fails: not). */
const snapshotThere = (t: Transport, path: string): Promise<boolean> =>
  t.stat(path).then(
    (st) => st !== null,
    () => false,
  );

export class RunFeed {
  readonly watch: RunWatch;
  private readonly records: RunRecords;
  private readonly trainer = new TrainerLineRing();
  readonly store: RunRecords['store'];
  /** The open run's steps with their time axes (what a pinned baseline is drawn beside, by `t`). */
  get steps(): RunRecords['steps'] {
    return this.records.steps;
  }
  readonly series: SeriesSource;
  private view: RunView | null = null;
  private viewAt = 0;
  private dirty = true;
  /** Where the run's digest ended (log bytes) and its gzip's size, when the attach read it. */
  fromDigest: { offset: number; gzBytes: number } | null = null;
  private summary: RunSummary;
  private connection: ConnectionState;
  private connectionAt: number;
  private unsubscribeState: (() => void) | null = null;
  /** Whether the run's sentinel keeps a watch snapshot, looked at once the feed starts. */
  private snapshotSeen: Promise<boolean> | null = null;
  private gpus: GpuSnapshot[] = [];
  /** What onPollingChange last said (a run is followed live until it ends). */
  private polledLive = true;
  /** How far the log was read when following stopped (the header says it). */
  private logReadEnd: LogReadEnd = 'read';
  private readonly clock: () => number;
  /** The history being read at attach (null: read), and the tail's preview meanwhile. */
  private history: { readBytes: number; totalBytes: number } | null = null;
  private preview: RunRecords | null = null;
  /** Releases the young generation's hold, held while the watch reads the log's history. */
  private releaseHeap: (() => void) | null = null;
  /** The run's config facts once known (see RunFeedOptions.facts). */
  private facts: RunFacts | undefined;

  constructor(private readonly o: RunFeedOptions) {
    this.clock = o.clock ?? Date.now;
    this.summary = o.summary;
    this.connection = o.transport.state;
    this.connectionAt = this.clock();
    const facts = o.facts;
    this.facts = facts instanceof Promise ? undefined : facts;
    this.watch = createRunWatch({
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
        // The pane's tail (and the byte before it) comes with the silence's measure: through the
        // snapshot it is all the raw tail read, without a round trip of its own.
        tailBytes: PANE_TAIL_BYTES + 1,
        run: async (transport, logPath, size, sink) => {
          // With the run's watch snapshot the dashboard is whole at once: the raw tail is the log
          // pane's lines alone (256 KiB), not also the last steps' preview (up to 4 MiB).
          const snapshot = o.useDigest === false ? null : snapshotPathFor(logPath);
          // The first attach's look was started with the feed, beside the watch's first round trips.
          const seen = this.snapshotSeen;
          this.snapshotSeen = null;
          const hasSnapshot = snapshot !== null && (await (seen ?? snapshotThere(transport, snapshot)));
          const b = await backfill(transport, logPath, size, {
            ...sink,
            ...(hasSnapshot ? { tailBytes: PANE_TAIL_BYTES } : {}),
            onTail: (t) => this.showTail(t),
            cache: o.backfillCache === undefined ? defaultBackfillCache() : o.backfillCache,
            digest: o.useDigest === false ? null : digestPathFor(logPath),
            snapshot,
            // The watch's state and the dashboard's records, both or neither.
            restore: (s, reader) => {
              this.records.checkState(s.view);
              sink.restore(s, reader);
              this.records.restoreState(s.view);
            },
            onNote: (text) => this.note('warning', text),
          });
          if (b.snapshotBytes) {
            this.fromDigest = { offset: b.snapshotBytes, gzBytes: b.snapshotSize };
            const mib = (n: number) => (n / 1048576).toFixed(1);
            this.note(
              'info',
              `snapshot: the state at ${mib(b.snapshotBytes)} MiB of log from the run's sentinel (${mib(b.snapshotSize)} MiB sent)`,
            );
          }
          if (b.digestBytes) {
            this.fromDigest = { offset: b.digestBytes, gzBytes: b.digestGzBytes };
            const mib = (n: number) => (n / 1048576).toFixed(1);
            this.note(
              'info',
              `digest: ${mib(b.digestBytes)} MiB of log from the run's sentinel digest (${mib(b.digestGzBytes)} MiB of it sent)`,
            );
          }
          return b;
        },
      },
      ...(facts ? { facts } : {}),
      ...(o.statePollMs !== undefined ? { statePollMs: o.statePollMs } : {}),
      ...(o.endedStatePollMs !== undefined ? { endedStatePollMs: o.endedStatePollMs } : {}),
      ...(o.jobEndPollMs !== undefined ? { jobEndPollMs: o.jobEndPollMs } : {}),
      ...(o.tickMs !== undefined ? { tickMs: o.tickMs } : {}),
      ...(o.idleNodeMs !== undefined ? { idleNodeMs: o.idleNodeMs } : {}),
      ...(o.outsideAlerts ? { outsideAlerts: o.outsideAlerts } : {}),
    });
    this.records = new RunRecords({
      store: this.watch.store,
      alerts: this.watch.alerts,
      facts: this.facts,
      logLimit: o.logLimit,
      clock: this.clock,
    });
    this.store = this.records.store;
    this.series = this.records.series;
    this.watch.on((w) => {
      this.render(w);
      this.holdHeapWhileBacklog();
    });
    // Known before the watch's first record (it waits for the same promise, which it was given first).
    if (facts instanceof Promise)
      void facts.then(
        (f) => {
          this.facts = f;
          this.records.setFacts(f);
          this.changed();
        },
        () => undefined,
      );
  }

  /** Reading a long log's history (backfilled, or followed from its start) is a burst of records:
   *  the young generation keeps its size meanwhile (dashboard-heap.ts). */
  private holdHeapWhileBacklog(): void {
    const backlog = this.watch.readingBacklog;
    if (backlog && !this.releaseHeap) this.releaseHeap = holdYoungGeneration();
    if (backlog || !this.releaseHeap) return;
    this.releaseHeap();
    this.releaseHeap = null;
  }

  start(): void {
    if (this.o.useDigest !== false)
      this.snapshotSeen = snapshotThere(this.o.transport, snapshotPathFor(this.o.logPath));
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
        return this.changed();
      case 'state':
        this.summary = { ...this.summary, state: w.summary.state as RunState };
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
      case 'history':
        this.history =
          w.readBytes !== null && w.totalBytes !== null ? { readBytes: w.readBytes, totalBytes: w.totalBytes } : null;
        if (!this.history) this.preview = null;
        return this.changed();
      case 'alert':
      case 'alert-cleared':
      case 'connection':
        return this.changed();
      case 'end':
        return;
    }
  }

  /** The raw tail read before the history (backfill.ts): the log pane's lines at the seam (read by
   *  the reader that goes on following, so a table or traceback there continues) and, until the
   *  history is read, a preview of the last steps: the figures, charts and memory of the tail's
   *  records alone, in a store of their own (the watch's store takes them in order, later). */
  private showTail(t: BackfillTail): void {
    if (t.midLog) this.trainer.startMidLog();
    this.trainer.add(t.lines);
    const store = new MetricsStore();
    const records = new RunRecords({
      store,
      alerts: new RunAlerts(store, this.facts ?? {}),
      facts: this.facts,
      logLimit: this.o.logLimit,
      clock: this.clock,
    });
    for (const e of t.preview) {
      if (e.type !== 'save') store.ingest(e);
      records.ingest(e);
    }
    this.preview = records;
    this.changed();
  }

  /** Following stopped because the run ended (its state is still checked, slowly). */
  get pollingStopped(): boolean {
    return this.watch.phase === 'ended';
  }

  setGpus(snapshots: GpuSnapshot[]): void {
    this.gpus = snapshots;
    // The watch names a node idle while the others work (its alert reaches `follow` alike).
    this.watch.gpuRound(snapshots);
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

  /** The view for the next frame; rebuilt when something changed, and at least every
   *  VIEW_MAX_AGE_MS (ages in the header move with the clock). Reads only. */
  getView(): RunView {
    const now = this.clock();
    if (this.view && !this.dirty && Math.abs(now - this.viewAt) < VIEW_MAX_AGE_MS) return this.view;
    this.dirty = false;
    this.viewAt = now;
    const idle = this.pollingStopped;
    const problem = this.watch.problem;
    // While the history is read, the tail's preview, unless the history already went further.
    const preview = this.preview;
    const previewed =
      preview &&
      this.history &&
      (preview.store.lastStepEvent?.globalStep ?? -1) > (this.store.lastStepEvent?.globalStep ?? -1);
    this.view = (previewed ? preview : this.records).view({
      summary: this.summary,
      connection: this.connection,
      connectionAt: this.connectionAt,
      gpus: this.gpus,
      trainerLines: this.trainer.view(),
      pollingStoppedS: idle ? Math.round((this.o.endedStatePollMs ?? 60_000) / 1000) : null,
      logReadEnd: this.logReadEnd,
      // An ended run's follower is paused: its problem must not say "still retrying".
      followProblem: idle && problem ? { ...problem, text: problemText(problem, { kind: 'paused' }) } : problem,
      silentSince: this.watch.silentSince,
    });
    // The Ray bring-up while the attempt is in it: the header's second line; a node that failed to
    // join is also an alert (the info-level progress is the header's alone).
    const bringUp = this.watch.rayBringUp;
    if (bringUp) this.view = { ...this.view, rayBringUp: bringUp.text };
    const ray = rayAlert(bringUp);
    // A Slurm node failure (named with Slurm's verdict) and an idle node: the watch's, first among the alerts.
    const extra = [...this.watch.nodeAlerts, ray?.severity === 'info' ? null : ray].filter(
      (a): a is Alert => a !== null,
    );
    if (extra.length) this.view = { ...this.view, alerts: [...extra, ...this.view.alerts] };
    if (this.history) this.view = { ...this.view, history: this.history };
    return this.view;
  }

  close(): void {
    this.watch.close();
    this.unsubscribeState?.();
    this.releaseHeap?.();
    this.releaseHeap = null;
  }
}
