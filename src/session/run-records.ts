// What has been read of one run's log, kept for drawing, and the RunView derived from it: a ring of
// events and a ring of log-pane lines, over the watch's metrics store and alert rules (src/runs'
// RunWatch feeds both and advances the rules on its own clock). Deriving a view has no side
// effects: it reads what the rules said last, it never evaluates them.
import type { RunAlerts, HealthEvent } from '../health/index.js';
import { deriveFigures, type MetricsStore } from '../metrics/index.js';
import { rlHealthGroups, rlWarnings } from '../metrics/rl-health.js';
import { storeStats } from '../metrics/rl-alerts.js';
import { RunSteps } from '../metrics/run-steps.js';
import type { ConnectionState, FollowProblem } from '../remote/transport.js';
import type { TrainerEvent, WandbEvent } from '../trainer-log/events.js';
import { eventLogLine, localTimeMs } from './event-log-line.js';
import {
  ENDED_STATES,
  type Alert,
  type LogReadEnd,
  type DashboardFigures,
  type GpuSnapshot,
  type LogLine,
  type MemoryFigure,
  type RunSummary,
  type RunView,
  type SeriesSource,
  type TrainerLinesView,
  type WandbView,
} from './types.js';

export interface RunFacts {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
  /** actor.behav_imp_weight_cap: null when the config sets none, undefined when not known here. */
  behavImpWeightCap?: number | null;
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
  /** Connected, but the target has sent nothing since then (our clock; null: it answers). */
  silentSince?: number | null;
}

const EVENT_RING = 256;

/** RunRecords' own state in a snapshot. */
export interface RecordsState {
  steps: RunSteps;
  events: TrainerEvent[];
  log: LogLine[];
  seq: number;
  startedAt: number | null;
  lastRecordAt: number | null;
  logLimit: number;
}

export class RunRecords {
  readonly store: MetricsStore;
  /** Every step's training seconds and episodes (no stats values): the time axes a pinned baseline
   *  is drawn by (`t`), the same RunSteps `compare` and the baseline itself use. */
  steps = new RunSteps({ keys: [] });
  /** The watch's rules and their history (what fired and cleared, on the log's clock). */
  private readonly alerts: RunAlerts;
  private readonly events: TrainerEvent[] = [];
  private log: LogLine[] = [];
  private seq = 0;
  private startedAt: number | null = null;
  /** Trainer time (epoch ms) of the latest record read: where an ended run's clock stops. */
  private lastRecordAt: number | null = null;
  /** The run's config facts (undefined: not known, or not yet: setFacts). */
  private facts: RunFacts | undefined;
  readonly series: SeriesSource;

  constructor(
    private readonly o: {
      store: MetricsStore;
      alerts: RunAlerts;
      facts?: RunFacts;
      logLimit?: number;
      clock: () => number;
    },
  ) {
    const store = (this.store = o.store);
    this.alerts = o.alerts;
    this.facts = o.facts;
    this.series = {
      get stepCount() {
        return store.lastStepEvent?.globalStep ?? 0;
      },
      keys: () => store.keys(),
      downsample: (key, buckets) => {
        const d = store.downsample(key, buckets);
        return { steps: d.steps, values: d.last.map((v) => (v === null ? Number.NaN : v)) };
      },
      latest: (key) => store.latest(key),
    };
  }

  /** One record, for the event log and the figures (the watch already stored it and ran the rules). */
  ingest(e: HealthEvent): void {
    this.steps.ingest(e);
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

  appendLog(line: LogLine): void {
    this.log.push({ ...line, seq: ++this.seq });
    const limit = this.o.logLimit ?? 2000;
    // Trim in chunks so the array is not shifted on every line.
    if (this.log.length > limit * 1.25) this.log = this.log.slice(-limit);
  }

  /** What the records made of this, for a watch's snapshot (src/watch/watch-snapshot.ts). */
  snapshotState(): RecordsState {
    const { steps, events, log, seq, startedAt, lastRecordAt } = this;
    return { steps, events, log, seq, startedAt, lastRecordAt, logLimit: this.o.logLimit ?? 2000 };
  }

  /** A snapshot's records, if this can take them (else an Error says why; nothing is changed). */
  checkState(v: unknown): RecordsState {
    const s = v as Partial<RecordsState> | null;
    if (!s || !(s.steps instanceof RunSteps) || !Array.isArray(s.events) || !Array.isArray(s.log))
      throw new Error('its records are not whole');
    if (s.logLimit !== (this.o.logLimit ?? 2000)) throw new Error('its event log is of another length');
    return s as RecordsState;
  }

  /** A snapshot's records taken, before the records after it: what a full read would have made
   *  of them. This one's own lines stay first (notes), but for those the snapshot starts with too
   *  (the config's wandb page, announced before any record): shown once, with the snapshot's numbers. */
  restoreState(v: unknown): void {
    const s = this.checkState(v);
    const lines = s.log;
    this.steps = s.steps;
    this.events.splice(0, this.events.length, ...s.events);
    this.startedAt = s.startedAt;
    this.lastRecordAt = s.lastRecordAt;
    const before = this.log;
    const again = new Set(lines.slice(0, before.length).map((l) => l.text));
    this.log = [];
    this.seq = 0;
    for (const l of before) if (!again.has(l.text)) this.appendLog(l);
    for (const l of lines) {
      this.seq = Math.max(this.seq, l.seq - 1);
      this.appendLog(l);
    }
    this.seq = Math.max(this.seq, s.seq);
  }

  /** The config's facts, read once the records began (the feed starts before they are known). */
  setFacts(facts: RunFacts): void {
    this.facts = facts;
  }

  /** The view for a frame (reads only: the alert history is the watch's). */
  view(ctx: RunViewContext): RunView {
    const facts = this.facts ?? {};
    const f = deriveFigures(this.store, {
      consumerBatchSize: facts.consumerBatchSize,
      maxHeadOffpolicyness: facts.maxHeadOffpolicyness,
    });
    const last = this.store.lastStepEvent;
    const ended = ENDED_STATES.has(ctx.summary.state);
    // What the rules said at the watch's last look (it ticks on its own clock).
    const alerts: Alert[] = [...this.alerts.active];
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
      phases: f.phases.map((p) => ({ key: `timeperf/${p.phase}`, seconds: p.seconds })),
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
      memory: memoryFigures(this.store),
      gpus: ctx.gpus,
      log: this.log,
      trainerLines: ctx.trainerLines,
      offpolicyBudget: facts.maxHeadOffpolicyness ?? null,
      ...(ctx.pollingStoppedS !== null
        ? { pollingStopped: { statePollS: ctx.pollingStoppedS, ...(ctx.logReadEnd ? { log: ctx.logReadEnd } : {}) } }
        : {}),
      ...(ctx.followProblem ? { followProblem: ctx.followProblem } : {}),
      ...(ctx.silentSince != null ? { silentSince: ctx.silentSince } : {}),
      evals: this.store.evals,
      rl: rlView(this.store, facts),
      ...(this.store.wandb ? { wandb: wandbView(this.store.wandb) } : {}),
    };
  }
}

/** The RL health screen's figures and warnings, from the store and the run's config facts (a fact
 *  not known here, e.g. no config in the run's record: the screen says so). */
export function rlView(store: MetricsStore, facts: RunFacts): NonNullable<RunView['rl']> {
  const s = storeStats(store);
  const rf = {
    ...(facts.maxHeadOffpolicyness !== undefined ? { maxHeadOffpolicyness: facts.maxHeadOffpolicyness } : {}),
    ...(facts.behavImpWeightCap !== undefined ? { behavImpWeightCap: facts.behavImpWeightCap } : {}),
  };
  return {
    groups: rlHealthGroups(s, rf, store.rlCounts),
    warnings: rlWarnings(s, rf),
    step: store.lastStepEvent?.globalStep ?? null,
  };
}

/** wandb's run as the log's banner said it (an offline run: its dir and the command that uploads it). */
export function wandbView(e: WandbEvent): WandbView {
  if (e.url !== null) return { url: e.url, from: e.from ?? 'log' };
  const dir = e.dir ?? null;
  return { url: null, from: 'log', offline: { dir, sync: dir ? `wandb sync ${dir}` : 'wandb sync <the run dir>' } };
}

/** Every writer's latest Memory-Usage figures per phase, sources in the order they first logged. */
function memoryFigures(store: MetricsStore): MemoryFigure[] {
  return [...store.memoryBySource.values()].flatMap((phases) =>
    [...phases.values()].map((m) => ({
      ...(m.source !== undefined ? { source: m.source } : {}),
      phase: m.phase,
      allocatedGB: m.allocatedGB,
      reservedGB: m.reservedGB,
      usedGB: m.usedGB,
      totalGB: m.totalGB,
    })),
  );
}
