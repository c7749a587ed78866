// The bounded store the cockpit and `parse` read: one Series per stats key, plus what the
// derived figures and alerts need (step times, last batch, memory per phase, counters).
// Memory is constant per key after the series cap; the number of keys is capped too.
import type { BatchEvent, MemoryEvent, StepEvent, TrainerEvent, WandbEvent } from '../trainer-log/events.js';
import { EvalHistory } from './eval-history.js';
import { isoTimeToMs } from '../trainer-log/text.js';
import { stepColumns } from '../trainer-log/stats-shapes.js';
import { Series, type DownsampledView, type SeriesView } from './series.js';
import { STEP_TIME_KEY, median, recentStepTimes } from './step-times.js';

export { STEP_TIME_KEY } from './step-times.js';

/** Bounds of memoryBySource: writers (a 64-GPU run has a few dozen) and phases per writer. */
const MEMORY_SOURCES = 128;
const MEMORY_PHASES = 32;

export interface StoreOptions {
  /** Buckets per series before it starts merging (default 1024). */
  capacity?: number;
  /** Distinct keys kept; later new keys are ignored and counted (default 2000). */
  maxKeys?: number;
  /** The only stats keys kept as series (with the derived step time); the rest are read from the
   *  latest step only (current()). For a reader of the alert rules alone (RULE_SERIES_KEYS), which
   *  then does not pay for a few hundred series per step. Default: every key (the panels). */
  seriesKeys?: readonly string[];
}

export class MetricsStore {
  private readonly capacity: number;
  private readonly maxKeys: number;
  private readonly map = new Map<string, Series>();
  /** Train step events ingested (repeats after a resume included). */
  stepCount = 0;
  /** Moves whenever anything the step rules read changes (a step, a restart, the end record):
   *  their answer for the same version and facts is the same (RunAlerts keeps it). */
  rulesVersion = 0;
  private medianAt = -1;
  private medianValue: number | null = null;
  lastStepEvent: StepEvent | null = null;
  /** Naive-clock ms (see isoTimeToMs) of the latest step record. */
  lastStepTimeMs: number | null = null;
  /** Naive-clock ms of the latest resume/start record (the trainer restarted). */
  lastRestartMs: number | null = null;
  /** Naive-clock ms of the record the next step is awaited from: the latest step or restart record,
   *  in log order (a restarted trainer's clock may read earlier than the crashed one's last step). */
  awaitingStepSinceMs: number | null = null;
  lastBatch: BatchEvent | null = null;
  /** The controller's latest Memory-Usage record per phase (source absent or 'main'). */
  readonly memoryByPhase = new Map<string, MemoryEvent>();
  /** Every writer's latest Memory-Usage record per phase, by source ('main' for the controller),
   *  sources and phases in the order they first came; bounded (MEMORY_SOURCES × MEMORY_PHASES). */
  readonly memoryBySource = new Map<string, Map<string, MemoryEvent>>();
  resumes = 0;
  errors = 0;
  warnings = 0;
  finished = false;
  droppedKeys = 0;
  private prevStepMs: number | null = null;
  private prevStep: number | null = null;
  private seriesKeys: ReadonlySet<string> | null;
  private lastKeys: readonly string[] = [];
  /** The series of the last key set, and where their keys are in it. */
  private lastSeries: Series[] = [];
  private lastAt: number[] = [];

  /** `[EPISODE_TIMEOUT]` and `[PROMPT_OVERFLOW]` warnings read (the RL health screen). */
  readonly rlCounts = { episodeTimeouts: 0, promptOverflows: 0 };
  /** The held-out eval rounds (webgym's test rollout). */
  readonly evals = new EvalHistory();
  /** wandb's run, as its banner said (the latest: a restart prints it again). */
  wandb: WandbEvent | null = null;

  constructor(opts: StoreOptions = {}) {
    this.capacity = opts.capacity ?? 1024;
    this.maxKeys = opts.maxKeys ?? 2000;
    this.seriesKeys = opts.seriesKeys ? new Set(opts.seriesKeys) : null;
  }

  /** The step the next step's time is measured from: the latest, unless a restart came after it
   *  (or its time does not read): `follow`'s progress lines go on from it after a snapshot. */
  get stepTimeFrom(): StepEvent | null {
    return this.prevStepMs !== null ? this.lastStepEvent : null;
  }

  /** What the store was made with: a watch snapshot's store is restored only into one that keeps
   *  what it kept, or less (src/watch/watch-snapshot.ts). */
  get shape(): { capacity: number; maxKeys: number; seriesKeys: ReadonlySet<string> | null } {
    return { capacity: this.capacity, maxKeys: this.maxKeys, seriesKeys: this.seriesKeys };
  }

  /** Keeps as series only `seriesKeys` (and the step times), as a store made with them holds after
   *  the same steps: a snapshot's store of every series taken by one of the rules' (`follow`).
   *  False (nothing changed) when this store dropped a key at its cap: the narrower one, which
   *  counts only its own keys, might hold it. */
  narrow(seriesKeys: ReadonlySet<string>): boolean {
    if (this.droppedKeys > 0) return false;
    for (const k of [...this.map.keys()]) if (k !== STEP_TIME_KEY && !seriesKeys.has(k)) this.map.delete(k);
    this.seriesKeys = seriesKeys;
    // The last key set's series, as the narrower store resolved them.
    this.resolveSeries(this.lastKeys);
    return true;
  }

  ingest(e: TrainerEvent): void {
    switch (e.type) {
      case 'step':
        this.rulesVersion++;
        this.ingestStep(e);
        break;
      case 'batch':
        // The training rollout's wait; an eval or test role's batch is not the step's.
        if (e.role === undefined || e.role === 'rollout') this.lastBatch = e;
        break;
      case 'memory':
        this.ingestMemory(e);
        break;
      case 'resume':
      case 'start':
        this.rulesVersion++;
        if (e.type === 'resume') this.resumes++;
        // The gap across a restart is downtime, not a step.
        this.prevStepMs = null;
        if (Number.isFinite(isoTimeToMs(e.time))) this.lastRestartMs = this.awaitingStepSinceMs = isoTimeToMs(e.time);
        this.finished = false;
        break;
      case 'error':
        this.errors++;
        this.evals.ingest(e);
        break;
      case 'eval':
      case 'eval-progress':
        this.evals.ingest(e);
        break;
      case 'wandb':
        this.wandb = e;
        break;
      case 'warning':
        this.warnings++;
        if (e.kind === 'episode-timeout') this.rlCounts.episodeTimeouts++;
        if (e.message.includes('[PROMPT_OVERFLOW]')) this.rlCounts.promptOverflows++;
        break;
      case 'finished':
        this.rulesVersion++;
        this.finished = true;
        break;
    }
  }

  /** The median of the latest step times (null: none yet), computed once per rulesVersion: the
   *  stall rules ask for it at every record. */
  medianStepTime(): number | null {
    if (this.medianAt !== this.rulesVersion) {
      this.medianAt = this.rulesVersion;
      this.medianValue = median(recentStepTimes(this));
    }
    return this.medianValue;
  }

  private ingestMemory(e: MemoryEvent): void {
    const source = e.source ?? 'main';
    if (source === 'main') this.memoryByPhase.set(e.phase, e);
    let phases = this.memoryBySource.get(source);
    if (phases === undefined) {
      if (this.memoryBySource.size >= MEMORY_SOURCES) return;
      this.memoryBySource.set(source, (phases = new Map()));
    }
    if (phases.has(e.phase) || phases.size < MEMORY_PHASES) phases.set(e.phase, e);
  }

  private ingestStep(e: StepEvent): void {
    this.stepCount++;
    // A train step after the end record: a new attempt runs (its Recover record may be off or
    // unseen), so the run is not finished any more.
    this.finished = false;
    const step = e.globalStep;
    const ms = isoTimeToMs(e.time);
    // Steps carry the same few hundred keys each time: resolve their series once per key set. A
    // parsed step hands its keys as an array (shared by its key set) and reads only the values
    // asked for (a store of the rules' series asks for one).
    const columns = stepColumns(e);
    const stats = columns ? null : e.stats;
    const keys = columns ? columns.keys : Object.keys(stats!);
    if (keys !== this.lastKeys && !sameKeys(this.lastKeys, keys)) this.resolveSeries(keys);
    this.lastKeys = keys;
    const series = this.lastSeries;
    const at = this.lastAt;
    if (columns) {
      for (let i = 0; i < at.length; i++) series[i].push(step, columns.value(at[i]));
    } else {
      for (let i = 0; i < at.length; i++) series[i].push(step, stats![keys[at[i]]]);
    }
    // Only a step that advances has a wall time: one that goes back (or repeats) was logged again
    // after a restart whose Recover record we did not see, and its gap spans the downtime.
    if (
      this.prevStepMs !== null &&
      this.prevStep !== null &&
      step > this.prevStep &&
      Number.isFinite(ms) &&
      ms >= this.prevStepMs
    ) {
      // Per step: a gap that spans a step record we never saw (3 then 5) is two steps' time.
      this.stepTimes().push(step, (ms - this.prevStepMs) / 1000 / (step - this.prevStep));
    }
    this.prevStepMs = Number.isFinite(ms) ? ms : null;
    this.prevStep = step;
    this.lastStepTimeMs = Number.isFinite(ms) ? ms : this.lastStepTimeMs;
    if (Number.isFinite(ms)) this.awaitingStepSinceMs = ms;
    this.lastStepEvent = e;
  }

  private resolveSeries(keys: readonly string[]): void {
    this.lastSeries = [];
    this.lastAt = [];
    for (let i = 0; i < keys.length; i++) {
      if (this.seriesKeys !== null && !this.seriesKeys.has(keys[i])) continue;
      const s = this.seriesFor(keys[i]);
      if (s === undefined) continue;
      this.lastSeries.push(s);
      this.lastAt.push(i);
    }
  }

  /** The derived step-time series is exempt from the key cap: a run with more stats keys than the
   *  cap still has its step times (and so its ETA, episodes/s and stall rule). */
  private stepTimes(): Series {
    let s = this.map.get(STEP_TIME_KEY);
    if (s === undefined) {
      s = new Series(this.capacity);
      this.map.set(STEP_TIME_KEY, s);
    }
    return s;
  }

  private seriesFor(key: string): Series | undefined {
    let s = this.map.get(key);
    if (s === undefined) {
      if (this.map.size >= this.maxKeys) {
        this.droppedKeys++;
        return undefined;
      }
      s = new Series(this.capacity);
      this.map.set(key, s);
    }
    return s;
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  series(key: string): SeriesView {
    return this.map.get(key)?.view() ?? { steps: [], values: [] };
  }

  downsample(key: string, buckets: number): DownsampledView {
    return this.map.get(key)?.downsample(buckets) ?? { steps: [], min: [], max: [], last: [] };
  }

  /** The key's value in the latest step record as it came (NaN for nan, ±Infinity for inf and
   *  -inf), null when its cell held no number, undefined when that step lacks it (rules about "the
   *  current step" must not fall back to an older step's value). */
  current(key: string): number | null | undefined {
    const e = this.lastStepEvent;
    if (!e) return undefined;
    const columns = stepColumns(e);
    if (columns) {
      const i = columns.index(key);
      return i < 0 ? undefined : columns.value(i);
    }
    const stats = e.stats;
    if (!Object.hasOwn(stats, key)) return undefined;
    const v = stats[key];
    return typeof v === 'number' ? v : null;
  }

  /** The key's newest value as it came (NaN, ±Infinity included); null: none, or no number. */
  latest(key: string): number | null {
    return this.map.get(key)?.latest() ?? null;
  }

  /** The latest raw values of a key (at most 16), oldest first: for rules over recent steps. */
  recent(key: string, count?: number): { steps: number[]; values: (number | null)[] } {
    return this.map.get(key)?.recent(count) ?? { steps: [], values: [] };
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
