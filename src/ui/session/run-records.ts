// What has been read of one run's log, and the RunView derived from it: the metrics store, the
// alert rules with their history (RunAlerts: on the log's clock, record by record, so a backfilled
// night keeps what fired and cleared), a ring of events and a ring of log-pane lines. Apart from the
// feed because this part does not care how records arrive (backfill, follow, a test's ingest) or
// when the run is polled: it only keeps what was read, bounded, and turns it into a frame's view.
import { RunAlerts, type HealthEvent } from '../../health/index.js';
import { deriveFigures, MetricsStore } from '../../metrics/index.js';
import type { ConnectionState, FollowProblem } from '../../remote/transport.js';
import type { TrainerEvent } from '../../trainer-log/events.js';
import { eventLogLine, localTimeMs } from './event-log-line.js';
import { ENDED_STATES, type Alert, type LogReadEnd, type DashboardFigures, type GpuSnapshot, type LogLine, type RunSummary, type RunView, type SeriesSource, type TrainerLinesView } from './types.js';

export interface RunFacts {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
}

/** What the view shows that the records do not hold: the run's state, connection, GPUs, raw lines. */
export interface RunViewContext {
  summary: RunSummary;
  connection: ConnectionState;
  connectionAt: number;
  gpus: GpuSnapshot[];
  trainerLines: TrainerLinesView;
  /** Set once the feed stopped following an ended run: how often its state is still checked. */
  pollingStoppedS: number | null;
  /** How far the log was read when polling stopped (absent: to its end). */
  logReadEnd?: LogReadEnd;
  /** Why the log cannot be followed (null: it can). Optional for callers that never follow. */
  followProblem?: FollowProblem | null;
}

const EVENT_RING = 256;

export class RunRecords {
  readonly store = new MetricsStore();
  /** Every alert rule over the records, and what fired and cleared (the rules only say what holds now). */
  private readonly alerts: RunAlerts;
  private readonly events: TrainerEvent[] = [];
  private log: LogLine[] = [];
  private seq = 0;
  private startedAt: number | null = null;
  /** Trainer time (epoch ms) of the latest record read: where an ended run's clock stops. */
  private lastRecordAt: number | null = null;
  readonly series: SeriesSource;

  constructor(private readonly o: { facts?: RunFacts; logLimit?: number; clock: () => number }) {
    const store = this.store;
    const facts = o.facts ?? {};
    this.alerts = new RunAlerts(store, { consumerBatchSize: facts.consumerBatchSize, maxHeadOffpolicyness: facts.maxHeadOffpolicyness, recoverFreqSecs: facts.recoverFreqSecs });
    this.series = {
      get stepCount() {
        return store.lastStepEvent?.globalStep ?? 0;
      },
      keys: () => store.keys(),
      downsample: (key, buckets) => store.downsample(key, buckets).last.map((v) => (v === null ? Number.NaN : v)),
      latest: (key) => store.latest(key),
    };
  }

  /** One record, read at wall-clock `arrivedWall` (default now; earlier for a record that was in
   *  the log long before we read it: see RunFeed's silence). */
  ingest(e: HealthEvent, arrivedWall: number = this.o.clock()): void {
    // The store and the health monitor are fed through the alerts: they observe around each record.
    this.alerts.ingest(e, arrivedWall);
    // A checkpoint save is for the health rules only (it is no event of the trainer-log contract).
    if (e.type === 'save') return;
    if (e.type !== 'step') {
      this.events.push(e);
      if (this.events.length > EVENT_RING) this.events.splice(0, this.events.length - EVENT_RING);
    } else if (this.startedAt === null) this.startedAt = localTimeMs(e.time);
    if ((e.type === 'start' || e.type === 'resume') && this.startedAt === null) this.startedAt = localTimeMs(e.time);
    const at = 'time' in e ? localTimeMs(e.time) : null;
    if (at !== null && (this.lastRecordAt === null || at > this.lastRecordAt)) this.lastRecordAt = at;
    const line = eventLogLine(e, 0);
    if (line) this.appendLog(line);
  }

  /** The log was last written at wall-clock `wallMs`, and every record read so far was in it
   *  then (RunAlerts.logWrittenAt): the latest counts as having arrived then. */
  logWrittenAt(wallMs: number): boolean {
    return this.alerts.logWrittenAt(wallMs);
  }

  /** The run's Slurm job ends at `end` (squeue %e), or null: not on Slurm, or no end known. The
   *  wall-time rule runs inside RunAlerts like every other rule (on the log's clock, record by
   *  record, in the alert history): the end is zone-less cluster time, the log's clock too. */
  setSlurmEndTime(end: string | null): void {
    this.alerts.setSlurmEndTime(end);
  }

  appendLog(line: LogLine): void {
    this.log.push({ ...line, seq: ++this.seq });
    const limit = this.o.logLimit ?? 2000;
    // Trim in chunks so the array is not shifted on every line.
    if (this.log.length > limit * 1.25) this.log = this.log.slice(-limit);
  }

  /** The view for a frame (the alert history observes every derivation). */
  view(ctx: RunViewContext): RunView {
    const facts = this.o.facts ?? {};
    const f = deriveFigures(this.store, { consumerBatchSize: facts.consumerBatchSize, maxHeadOffpolicyness: facts.maxHeadOffpolicyness });
    const last = this.store.lastStepEvent;
    const now = this.o.clock();
    const ended = ENDED_STATES.has(ctx.summary.state);
    // An ended run has no step coming: a stall alert would send the user hunting a hang. Nor has
    // a pending one (queued, or requeued after a node failure).
    this.alerts.setEnded(ended || ctx.summary.state === 'pending');
    const alerts: Alert[] = [...this.alerts.evaluate(now)];
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
      ...ctx.summary,
      step: f.globalStep ?? ctx.summary.step,
      totalSteps: f.totalSteps ?? ctx.summary.totalSteps,
      reward: this.store.latest('rollout/reward') ?? ctx.summary.reward,
      lastStepAt: figures.lastStepAt ?? ctx.summary.lastStepAt,
    };
    return {
      summary,
      connection: ctx.connection,
      connectionAt: ctx.connectionAt,
      series: this.series,
      figures,
      alerts,
      alertHistory: this.alerts.history.entries(),
      ...(this.alerts.history.dropped > 0 ? { alertHistoryDropped: this.alerts.history.dropped } : {}),
      memory: [...this.store.memoryByPhase.values()].map((m) => ({ phase: m.phase, allocatedGB: m.allocatedGB, reservedGB: m.reservedGB, usedGB: m.usedGB, totalGB: m.totalGB })),
      gpus: ctx.gpus,
      log: this.log,
      trainerLines: ctx.trainerLines,
      offpolicyBudget: facts.maxHeadOffpolicyness ?? null,
      ...(ctx.pollingStoppedS !== null ? { pollingStopped: { statePollS: ctx.pollingStoppedS, ...(ctx.logReadEnd ? { log: ctx.logReadEnd } : {}) } } : {}),
      ...(ctx.followProblem ? { followProblem: ctx.followProblem } : {}),
    };
  }
}
