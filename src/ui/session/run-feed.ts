// One watched run: its log followed through the Transport into the metrics store, its state
// polled, its alerts evaluated. Ingesting only marks the feed dirty; the RunView (figures, alerts)
// is rebuilt when the UI asks for a frame, so a burst of 10,000 backfilled steps costs one
// derivation, not 10,000. Memory is bounded: the store's caps, a ring of log lines, a ring of events,
// a ring of the trainer's own lines (the log pane's default view).
// This file is the run's lifecycle (its state polled; an ended run's log read to its end, then no
// longer followed; a resume following again); what was read and the view are in run-records.ts,
// how the log is read in run-log-follow.ts.
import { NodeFailureWatch } from '../../runs/node-facts.js';
import { isActive } from '../../runs/run-state.js';
import { IdleNodeWatch } from '../../runs/idle-nodes.js';
import { RayBringUpLines, rayAlert, type RayBringUp } from '../../runs/ray-bringup-log.js';
import type { Alert } from '../../metrics/index.js';
import type { ConnectionState, Transport } from '../../remote/transport.js';
import { watchRunState, type RunStateWatcher, type Target } from '../../runs/index.js';
import { LogSilenceWatch, measureLogSilence } from '../../runs/follow-alerts.js';
import { problemText } from '../../remote/follow-status.js';
import type { HealthEvent } from '../../health/index.js';
import { RunLogFollow } from './run-log-follow.js';
import { RunRecords, type RunFacts } from './run-records.js';
import { ENDED_STATES, type GpuSnapshot, type LogReadEnd, type LogLine, type RunState, type RunSummary, type RunView, type SeriesSource } from './types.js';

// The API other files and tests import from here, wherever the parts now live.
export { eventLogLine, localTimeMs } from './event-log-line.js';
export { teeFollow } from './run-log-follow.js';
export type { RunFacts } from './run-records.js';

/** The time-driven alerts (stalls, the resume guard) are evaluated at least this often. */
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
  clock?: () => number;
  onChange(): void;
}

export class RunFeed {
  private readonly records: RunRecords;
  private readonly log: RunLogFollow;
  readonly store: RunRecords['store'];
  readonly series: SeriesSource;
  private watcher: RunStateWatcher | null = null;
  private unsubscribeState: (() => void) | null = null;
  private view: RunView | null = null;
  private viewAt = 0;
  private dirty = true;
  private summary: RunSummary;
  private nodeWatch: NodeFailureWatch | null = null;
  /** The latest node-failure alert of the run's Slurm job (null: none seen). */
  private nodeAlert: Alert | null = null;
  private readonly idleNodes = new IdleNodeWatch();
  /** The batch script's Ray bring-up as the log tells it (src/runs/ray-bringup-log.ts). */
  private readonly ray = new RayBringUpLines();
  private rayPhase: RayBringUp | null = null;
  private idleAlert: Alert | null = null;
  private connection: ConnectionState;
  private connectionAt: number;
  private gpus: GpuSnapshot[] = [];
  /** The run ended and its log was read to the end: the follower is paused (it keeps where it
   *  stopped, with its parser) and the state is polled slowly. */
  private idle = false;
  /** How far the log was read when following stopped (the header says it). */
  private logReadEnd: LogReadEnd = 'read';
  private settling = false;
  private closed = false;
  private readonly clock: () => number;
  /** The log as measured just before it was first read: its size, and when it was last written on
   *  our clock (its mtime as an age on the target's clock). Counted once reading reaches that
   *  size (then every record it held has been read), and dropped then. */
  private silence: { size: number; writtenWall: number } | null = null;
  private silenceDue = false;
  /** Later bursts (a reconnect delivering what was written while the laptop slept): the silence is
   *  measured again once they stop, and counted when nothing was read past the size it saw. */
  private readonly silenceWatch: LogSilenceWatch;

  constructor(private readonly o: RunFeedOptions) {
    this.clock = o.clock ?? Date.now;
    this.summary = o.summary;
    this.connection = o.transport.state;
    this.connectionAt = this.clock();
    this.records = new RunRecords({ facts: o.facts, logLimit: o.logLimit, clock: this.clock });
    this.store = this.records.store;
    this.series = this.records.series;
    this.silenceWatch = new LogSilenceWatch({
      transport: o.transport,
      logPath: o.logPath,
      clock: this.clock,
      measured: (m) => {
        if (!this.closed && this.log.offset === m.size && this.records.logWrittenAt(m.measuredWall - m.silenceMs)) this.changed();
      },
    });
    this.log = new RunLogFollow({
      transport: o.transport,
      logPath: o.logPath,
      backfillThresholdBytes: o.backfillThresholdBytes,
      clock: this.clock,
      ingest: (e, notify) => this.ingest(e, notify),
      note: (level, text) => this.note(level, text),
      rawArrived: () => this.changed(),
      rawBytes: (b) => {
        if (b === null) return this.ray.reset();
        for (const u of this.ray.push(b)) this.rayPhase = u;
      },
    });
  }

  start(): void {
    // A Slurm node failure, named with Slurm's verdict (src/runs/node-facts.ts): shown with the alerts.
    if (this.o.target.backend === 'slurm') {
      this.nodeWatch = new NodeFailureWatch(this.o.transport, this.o.target, (a) => {
        this.nodeAlert = a;
        this.changed();
      });
    }
    this.unsubscribeState = this.o.transport.onState((s) => {
      this.connection = s;
      this.connectionAt = this.clock();
      this.changed();
    });
    void this.attach();
    this.watch(this.o.statePollMs);
  }

  private watch(intervalMs: number | undefined): void {
    this.watcher?.stop();
    this.watcher = watchRunState(this.o.transport, this.o.target, this.summary.id, {
      intervalMs,
      onChange: (s) => {
        this.summary = { ...this.summary, state: s.state as RunState };
        this.nodeWatch?.update(s.record, isActive(s.state));
        if (ENDED_STATES.has(s.state)) void this.settleEnded();
        else if (this.idle) this.wake();
        this.changed();
      },
      onError: (m) => this.note('warning', m),
    });
  }

  private async attach(): Promise<void> {
    // Before the first byte is read, so the first evaluation already counts how long the log was
    // silent: a run that hung at 02:00, opened at 09:00, shows its hang at once.
    const m = await measureLogSilence(this.o.transport, this.o.logPath, this.clock).catch(() => null);
    if (this.closed) return;
    if (m) this.silence = { size: m.size, writtenWall: m.measuredWall - m.silenceMs };
    await this.log.attach();
    if (this.closed) return;
    this.changed();
    if (ENDED_STATES.has(this.summary.state)) void this.settleEnded();
  }

  /**
   * The run has ended: read what is left of its log, close the records still open (else a crash's
   * traceback would never reach the event log or the alerts), then stop following it (an ended
   * run's log does not grow: polling it, and its state every 2 s, cost ~3% CPU for nothing). Its
   * state is still checked, slowly, for a resume (a Slurm run may be resubmitted).
   */
  private async settleEnded(): Promise<void> {
    if (this.idle || this.settling || this.closed) return;
    this.settling = true;
    try {
      const read = await this.log.readToEnd();
      const closedRecords = read?.closed;
      if (read) this.logReadEnd = read.end;
      if (closedRecords?.length) {
        for (const e of closedRecords) this.ingest(e, false);
        this.changed();
      }
      // Opened on an ended run whose (long) log is still being backfilled: attach() settles it
      // once its follower exists.
      if (this.closed || !this.log.following || !ENDED_STATES.has(this.summary.state)) return;
      this.log.pause();
      this.idle = true;
      this.watch(this.o.endedStatePollMs ?? 60_000);
      this.o.onPollingChange?.(false);
      this.changed();
    } finally {
      this.settling = false;
    }
  }

  /** The ended run runs again (a resume, a Slurm requeue): follow its log from where it stopped. */
  private wake(): void {
    if (!this.idle || this.closed) return;
    this.idle = false;
    this.log.resume();
    this.watch(this.o.statePollMs);
    this.o.onPollingChange?.(true);
  }

  /** Following stopped because the run ended (its state is still checked, slowly). */
  get pollingStopped(): boolean {
    return this.idle;
  }

  ingest(e: HealthEvent, notify = true): void {
    // The backfill's records come in one synchronous burst before any follower exists, all from
    // bytes that were in the log when it was measured: they arrive when it was last written.
    // Followed records arrive now (a frame between two chunks of a long backlog must not jump the
    // log's clock ahead of records still to come); the silence is counted once reading caught up.
    const s = this.silence;
    this.records.ingest(e, s && !this.log.following ? Math.min(this.clock(), s.writtenWall) : this.clock());
    this.countSilence();
    if (this.log.following) this.silenceWatch.record();
    this.dirty = true;
    if (notify) this.o.onChange();
  }

  /** Reading reached the size measured at attach: every record the log then held has been read, so
   *  the latest counts as arriving when the log was last written (a run that hung at 02:00, opened
   *  at 09:00, is 7 h into its hang). Counted after the chunk that reached it is wholly ingested
   *  (a microtask: its later records would re-anchor the clock). Past that size the log grew: it
   *  is live, nothing to count. */
  private countSilence(): void {
    const s = this.silence;
    if (!s || !this.log.following || this.silenceDue) return;
    const read = this.log.offset;
    if (read > s.size) this.silence = null;
    else if (read === s.size) {
      this.silenceDue = true;
      queueMicrotask(() => {
        this.silenceDue = false;
        if (this.silence !== s || this.closed) return;
        this.silence = null;
        if (this.log.offset !== s.size) return;
        this.records.logWrittenAt(s.writtenWall);
        this.changed();
      });
    }
  }

  /** The run's Slurm job ends at `end` (squeue %e; null: none known): the wall-time rule uses it. */
  setSlurmEndTime(end: string | null): void {
    this.records.setSlurmEndTime(end);
    this.changed();
  }

  setGpus(snapshots: GpuSnapshot[]): void {
    this.gpus = snapshots;
    // A node idle while the others work (a Ray worker that joined nothing): src/runs/idle-nodes.ts.
    this.idleAlert = this.idleNodes.push(snapshots, this.clock());
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

  /** Bytes of the log the trainer-lines ring has read (tests wait on it). */
  get trainerLinesOffset(): number {
    return this.log.offset;
  }

  get runId(): string {
    return this.summary.id;
  }

  /** The view for the next frame; rebuilt when something changed, and at least every
   *  VIEW_MAX_AGE_MS: a hang brings nothing to mark it dirty, yet its alerts are due as time passes
   *  (without a GPU poller ticking, the cockpit never flagged a stall). */
  getView(): RunView {
    const now = this.clock();
    // A backfill that ended at the measured size leaves the follower nothing to read: counted here.
    this.countSilence();
    if (this.view && !this.dirty && Math.abs(now - this.viewAt) < VIEW_MAX_AGE_MS) return this.view;
    this.dirty = false;
    this.viewAt = now;
    this.view = this.records.view({
      summary: this.summary,
      connection: this.connection,
      connectionAt: this.connectionAt,
      gpus: this.gpus,
      trainerLines: this.log.trainerLines(),
      pollingStoppedS: this.idle ? Math.round((this.o.endedStatePollMs ?? 60_000) / 1000) : null,
      logReadEnd: this.logReadEnd,
      // An ended run's follower is paused: its problem must not say "still retrying".
      followProblem: this.idle && this.log.problem ? { ...this.log.problem, text: problemText(this.log.problem, { kind: 'paused' }) } : this.log.problem,
    });
    const extra = [this.nodeAlert, this.idleAlert, rayAlert(this.rayPhase)].filter((a): a is Alert => a !== null);
    if (extra.length) this.view = { ...this.view, alerts: [...extra, ...this.view.alerts] };
    return this.view;
  }

  close(): void {
    this.closed = true;
    this.nodeWatch?.stop();
    this.silenceWatch.stop();
    this.log.close();
    this.watcher?.stop();
    this.unsubscribeState?.();
  }
}
