// One watched run: its log followed through the Transport into the metrics store, its state
// polled, its alerts evaluated. Ingesting only marks the feed dirty; the RunView (figures, alerts)
// is rebuilt when the UI asks for a frame, so a burst of 10,000 backfilled steps costs one
// derivation, not 10,000. Memory is bounded: the store's caps, a ring of log lines, a ring of events,
// a ring of the trainer's own lines (the log pane's default view).
import { AlertHistory, HealthMonitor } from '../../health/index.js';
import { deriveFigures, evaluateAlerts, MetricsStore } from '../../metrics/index.js';
import type { ConnectionState, FollowEvent, Transport } from '../../remote/transport.js';
import { backfill, readTail } from './backfill.js';
import { TrainerLineRing } from './trainer-lines.js';
import { TrainerLogParser } from '../../trainer-log/index.js';
import { followRun, watchRunState, type RunFollower, type RunStateWatcher, type Target } from '../../runs/index.js';
import type { TrainerEvent } from '../../trainer-log/events.js';
import { formatNumber } from '../format.js';
import { ENDED_STATES, type Alert, type DashboardFigures, type GpuSnapshot, type LogLine, type RunState, type RunSummary, type RunView, type SeriesSource } from './types.js';

export interface RunFacts {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
}

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

const EVENT_RING = 256;
/** Raw log read before the backfill's seam for the trainer-lines pane (the filter drops table rows). */
const TAIL_BYTES = 256 * 1024;

/** The transport, with every `follow` delivery also handed to `tap` first (the parser's follower and
 *  the trainer-lines ring read the same bytes: one stream over the network, not two). A Proxy, so
 *  the Transport contract can grow without this wrapper falling behind. */
export function teeFollow(t: Transport, tap: (e: FollowEvent) => void): Transport {
  const follow: Transport['follow'] = (path, fromOffset, onEvent) =>
    t.follow(path, fromOffset, (e) => {
      tap(e);
      onEvent(e);
    });
  return new Proxy(t, {
    get(target, prop) {
      if (prop === 'follow') return follow;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A trainer local time ("2026-05-25T12:19:55.952", no zone) as epoch ms, read as our local time. */
export function localTimeMs(time: string | null | undefined): number | null {
  if (!time) return null;
  const t = Date.parse(time);
  return Number.isFinite(t) ? t : null;
}

export function eventLogLine(e: TrainerEvent, seq: number): LogLine | null {
  switch (e.type) {
    case 'step': {
      const r = e.stats['rollout/reward'];
      return { seq, level: 'info', time: e.time, text: `Epoch ${e.epoch}/${e.epochs} Step ${e.step}/${e.stepsPerEpoch} Train step ${e.globalStep}/${e.totalSteps} done. reward ${formatNumber(r ?? null)}` };
    }
    case 'memory':
      return { seq, level: 'info', time: e.time, text: `Memory-Usage ${e.phase}: allocated ${e.allocatedGB} GB, reserved ${e.reservedGB} GB, used ${e.usedGB}/${e.totalGB} GB` };
    case 'batch':
      return { seq, level: 'info', time: e.time, text: `prepare_batch/rollout: wait ${e.waitS}s, total ${e.totalS}s, ${e.episodes} episodes` };
    case 'resume':
      return { seq, level: 'warning', time: e.time, text: `Recovering from a checkpoint: step ${e.resumeStep} runs next` };
    case 'start':
      return { seq, level: 'info', time: e.time, text: 'Fresh start (no resume info)' };
    case 'error': {
      const first = e.detail.split('\n').find((l) => l.trim()) ?? '';
      return { seq, level: 'error', time: e.time, source: e.source, text: first && !e.message.includes(first.trim()) ? `${e.message} — ${first.trim()}` : e.message };
    }
    case 'warning':
      return { seq, level: 'warning', time: e.time, source: e.source, text: e.message };
    case 'finished':
      return { seq, level: 'info', time: e.time, text: 'Training completes!' };
  }
}

export class RunFeed {
  readonly store = new MetricsStore();
  private readonly health = new HealthMonitor();
  /** Alerts that fired and cleared while the cockpit was open (the rules only say what holds now). */
  private readonly alertHistory = new AlertHistory();
  private readonly events: TrainerEvent[] = [];
  private log: LogLine[] = [];
  private readonly trainer = new TrainerLineRing();
  /** Bytes of the log the trainer ring has read (overlaps after a reconnect are cut by offset). */
  private rawOffset = 0;
  private seq = 0;
  private follower: RunFollower | null = null;
  private watcher: RunStateWatcher | null = null;
  private unsubscribeState: (() => void) | null = null;
  private view: RunView | null = null;
  private dirty = true;
  private summary: RunSummary;
  private connection: ConnectionState;
  private connectionAt: number;
  private gpus: GpuSnapshot[] = [];
  private startedAt: number | null = null;
  private lastArrivalAt: number | null = null;
  /** Trainer time (epoch ms) of the latest record read: where an ended run's clock stops. */
  private lastRecordAt: number | null = null;
  private draining = false;
  /** The run ended and its log was read to the end: the follower is closed (`resumeFrom` keeps
   *  where it stopped, with its parser) and the state is polled slowly. */
  private idle = false;
  private settling = false;
  private resumeFrom: { offset: number; parser: TrainerLogParser } | null = null;
  private readonly clock: () => number;
  readonly series: SeriesSource;

  constructor(private readonly o: RunFeedOptions) {
    this.clock = o.clock ?? Date.now;
    this.summary = o.summary;
    this.connection = o.transport.state;
    this.connectionAt = this.clock();
    const store = this.store;
    this.series = {
      get stepCount() {
        return store.lastStepEvent?.globalStep ?? 0;
      },
      keys: () => store.keys(),
      downsample: (key, buckets) => store.downsample(key, buckets).last.map((v) => (v === null ? Number.NaN : v)),
      latest: (key) => store.latest(key),
    };
  }

  start(): void {
    const { transport, target } = this.o;
    this.unsubscribeState = transport.onState((s) => {
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
        if (ENDED_STATES.has(s.state)) void this.settleEnded();
        else if (this.idle) this.wake();
        this.changed();
      },
      onError: (m) => this.pushLog({ seq: 0, level: 'warning', time: null, text: m }),
    });
  }

  /**
   * The run has ended: read what is left of its log, close the records still open, then stop
   * following it (an ended run's log does not grow: polling it, and its state every 2 s, cost
   * ~3% CPU for nothing). Its state is still checked, slowly, for a resume.
   */
  private async settleEnded(): Promise<void> {
    if (this.idle || this.settling || this.closed) return;
    this.settling = true;
    try {
      await this.drainEnded();
      // Opened on an ended run whose (long) log is still being backfilled: attach() settles it
      // once its follower exists.
      const f = this.follower;
      if (this.closed || !f || !ENDED_STATES.has(this.summary.state)) return;
      this.resumeFrom = { offset: f.offset, parser: f.parser };
      f.close();
      this.follower = null;
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
    const from = this.resumeFrom;
    this.resumeFrom = null;
    this.follow(from?.offset ?? this.rawOffset, from?.parser);
    this.watch(this.o.statePollMs);
    this.o.onPollingChange?.(true);
  }

  private follow(fromOffset: number, parser: TrainerLogParser | undefined): void {
    this.follower = followRun(teeFollow(this.o.transport, (e) => this.tapRaw(e)), this.o.logPath, {
      fromOffset,
      parser,
      onEvent: (e) => this.ingest(e),
      onReset: (reason) => this.pushLog({ seq: 0, level: 'warning', time: null, text: `log ${reason}: following it from the start` }),
    });
  }

  /** Following stopped because the run ended (its state is still checked, slowly). */
  get pollingStopped(): boolean {
    return this.idle;
  }

  /** Backfill a long log through the target-side filter, then follow from where it ended. */
  private async attach(): Promise<void> {
    const { transport } = this.o;
    let fromOffset = 0;
    let parser: TrainerLogParser | undefined;
    const threshold = this.o.backfillThresholdBytes ?? 2 * 1024 * 1024;
    try {
      const st = await transport.stat(this.o.logPath);
      if (st && st.size > threshold) {
        const started = this.clock();
        const b = await backfill(transport, this.o.logPath, st.size);
        for (const e of b.events) this.ingest(e, false);
        fromOffset = b.offset;
        parser = b.parser;
        this.pushLog({
          seq: 0,
          level: 'info',
          time: null,
          text: `history: ${(b.coveredBytes / 1048576).toFixed(1)} MiB of log backfilled with ${(b.sentBytes / 1048576).toFixed(2)} MiB sent (${b.events.length} records, ${this.clock() - started} ms)`,
        });
        await this.loadTail(b.offset);
      }
    } catch (err) {
      // Fall back to reading the whole log: slower, never wrong.
      this.pushLog({ seq: 0, level: 'warning', time: null, text: `backfill failed (${err instanceof Error ? err.message : String(err)}): reading the whole log` });
      fromOffset = 0;
      parser = undefined;
    }
    if (this.closed) return;
    this.rawOffset = fromOffset;
    this.follow(fromOffset, parser);
    this.changed();
    if (ENDED_STATES.has(this.summary.state)) void this.settleEnded();
  }

  /** The raw lines just before `end` (the seam where following starts), for the trainer pane. */
  private async loadTail(end: number): Promise<void> {
    const from = Math.max(0, end - TAIL_BYTES);
    try {
      const { bytes, midLog, insideLine } = await readTail(this.o.transport, this.o.logPath, from, end);
      if (midLog) this.trainer.startMidLog(insideLine);
      this.trainer.push(bytes);
    } catch {
      // Following starts at a line boundary: the pane's lines simply begin there.
      this.trainer.startMidLog(false);
    }
  }

  private tapRaw(e: FollowEvent): void {
    if (this.closed) return;
    if (e.type === 'reset') {
      // A new run's log appears after following started: nothing was shown, nothing to say.
      this.trainer.reset(e.reason === 'appeared' && this.rawOffset === 0 ? null : e.reason);
      this.rawOffset = 0;
      return;
    }
    const end = e.offset + e.bytes.length;
    if (end <= this.rawOffset) return;
    this.trainer.push(e.offset < this.rawOffset ? e.bytes.subarray(this.rawOffset - e.offset) : e.bytes);
    this.rawOffset = end;
    // The follower's events mark the view dirty and notify; a chunk without a complete record
    // (a table still arriving) must still reach the pane.
    this.dirty = true;
    this.o.onChange();
  }

  private closed = false;

  /**
   * The run has ended: once everything written is read, close the records still open. A dying
   * trainer's traceback is the last thing it writes, and the parser closes an error record only
   * when the next record starts, which never comes: without this the failure would never reach
   * the event log or the alerts. Following goes on (a Slurm run may be resubmitted).
   */
  private async drainEnded(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      const deadline = Date.now() + 15_000;
      for (;;) {
        if (this.closed) return;
        const f = this.follower;
        const st = f ? await this.o.transport.stat(this.o.logPath).catch(() => null) : null;
        if ((f && (!st || f.offset >= st.size)) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const events = this.follower?.parser.flushIdle() ?? [];
      for (const e of events) this.ingest(e, false);
      if (events.length) this.changed();
    } finally {
      this.draining = false;
    }
  }

  ingest(e: TrainerEvent, notify = true): void {
    this.store.ingest(e);
    this.health.ingest(e);
    if (e.type !== 'step') {
      this.events.push(e);
      if (this.events.length > EVENT_RING) this.events.splice(0, this.events.length - EVENT_RING);
    } else {
      this.lastArrivalAt = this.clock();
      if (this.startedAt === null) this.startedAt = localTimeMs(e.time);
    }
    if ((e.type === 'start' || e.type === 'resume') && this.startedAt === null) this.startedAt = localTimeMs(e.time);
    const at = 'time' in e ? localTimeMs(e.time) : null;
    if (at !== null && (this.lastRecordAt === null || at > this.lastRecordAt)) this.lastRecordAt = at;
    const line = eventLogLine(e, 0);
    if (line) this.appendLog(line);
    this.dirty = true;
    if (notify) this.o.onChange();
  }

  setGpus(snapshots: GpuSnapshot[]): void {
    this.gpus = snapshots;
    this.changed();
  }

  private appendLog(line: LogLine): void {
    this.log.push({ ...line, seq: ++this.seq });
    const limit = this.o.logLimit ?? 2000;
    // Trim in chunks so the array is not shifted on every line.
    if (this.log.length > limit * 1.25) this.log = this.log.slice(-limit);
  }

  private pushLog(line: LogLine): void {
    this.appendLog(line);
    this.changed();
  }

  private changed(): void {
    this.dirty = true;
    this.o.onChange();
  }

  /** Bytes of the log the trainer-lines ring has read (tests wait on it). */
  get trainerLinesOffset(): number {
    return this.rawOffset;
  }

  get runId(): string {
    return this.summary.id;
  }

  /** The view for the next frame; rebuilt only when something changed. */
  getView(): RunView {
    if (this.view && !this.dirty) return this.view;
    this.dirty = false;
    const facts = this.o.facts ?? {};
    const f = deriveFigures(this.store, { consumerBatchSize: facts.consumerBatchSize, maxHeadOffpolicyness: facts.maxHeadOffpolicyness });
    const last = this.store.lastStepEvent;
    const now = this.clock();
    const ended = ENDED_STATES.has(this.summary.state);
    const all: Alert[] = [
      ...evaluateAlerts(this.store, this.events, { consumerBatchSize: facts.consumerBatchSize, maxHeadOffpolicyness: facts.maxHeadOffpolicyness, lastStepArrivedAt: this.lastArrivalAt ?? undefined, wallNow: now }),
      ...this.health.evaluate({ now: new Date(now), maxHeadOffpolicyness: facts.maxHeadOffpolicyness, recoverFreqSecs: facts.recoverFreqSecs }),
    ];
    // An ended run has no step coming: a stall alert would send the user hunting a hang.
    const alerts = ended ? all.filter((a) => a.id !== 'stall' && !a.id.startsWith('health/stall')) : all;
    this.alertHistory.observe(alerts, now);
    const figures: DashboardFigures = {
      step: f.globalStep,
      totalSteps: f.totalSteps,
      epoch: last?.epoch ?? null,
      epochs: last?.epochs ?? null,
      startedAt: this.startedAt,
      lastStepAt: localTimeMs(last?.time),
      etaS: f.etaS,
      stepTimeS: f.stepTimeS ?? f.meanStepTimeS,
      episodesPerS: f.episodesPerS,
      trainTokensPerS: f.trainTokensPerS,
      rolloutWaitS: this.store.lastBatch?.waitS ?? this.store.latest('timeperf/rollout'),
      endedAt: ended ? (this.lastRecordAt ?? localTimeMs(last?.time)) : null,
    };
    const summary: RunSummary = {
      ...this.summary,
      step: f.globalStep ?? this.summary.step,
      totalSteps: f.totalSteps ?? this.summary.totalSteps,
      reward: this.store.latest('rollout/reward') ?? this.summary.reward,
      lastStepAt: figures.lastStepAt ?? this.summary.lastStepAt,
    };
    this.view = {
      summary,
      connection: this.connection,
      connectionAt: this.connectionAt,
      series: this.series,
      figures,
      alerts,
      alertHistory: this.alertHistory.entries(),
      memory: [...this.store.memoryByPhase.values()].map((m) => ({ phase: m.phase, allocatedGB: m.allocatedGB, reservedGB: m.reservedGB, usedGB: m.usedGB, totalGB: m.totalGB })),
      gpus: this.gpus,
      log: this.log,
      trainerLines: this.trainer.view(),
      offpolicyBudget: facts.maxHeadOffpolicyness ?? null,
      ...(this.idle ? { pollingStopped: { statePollS: Math.round((this.o.endedStatePollMs ?? 60_000) / 1000) } } : {}),
    };
    return this.view;
  }

  close(): void {
    this.closed = true;
    this.follower?.close();
    this.watcher?.stop();
    this.unsubscribeState?.();
  }
}
