// A run pinned as the baseline (`b` on the Runs screen, `--baseline RUN` or a local log file): watched by src/runs'
// RunWatch like the open run (its history through the same backfill and cache: pinning costs what
// attaching costs, once; a baseline still running goes on growing), its reward, staleness and step
// time kept at every step (src/metrics' RunSteps: after a resume the latest attempt's values).
// The overlay (baselineOverlay) puts it beside the open run's series, by global step, and by each
// run's training hours and samples consumed (the open run's from its feed's RunSteps).
import type { Transport } from '../remote/transport.js';
import type { Target } from '../runs/index.js';
import { createRunWatch } from '../watch/create-run-watch.js';
import type { RunWatch } from '../watch/run-watch.js';
import { onAxis, RunSteps, samplesConsumed, trainingHours, type RunStepsView } from '../metrics/run-steps.js';
import { STEP_TIME_KEY } from '../metrics/step-times.js';
import { lastPerBucket, latestCommonStep, REWARD_KEY, STALENESS_AVG_KEY } from '../metrics/compare.js';
import type { MetricsStore } from '../metrics/index.js';
import { digestPathFor } from './run-digest.js';
import { backfill, defaultBackfillCache } from './backfill.js';
import type { BackfillCache } from './backfill-cache.js';
import { ENDED_STATES, type BaselineOverlay, type RunState, type RunSummary } from './types.js';

/** Points of the baseline a frame draws: as many as the open run's series keeps (Series' capacity). */
const DRAWN_POINTS = 1024;

/** The keys the Reward, Staleness and Throughput panels draw for both runs. */
export const OVERLAY_KEYS = { reward: REWARD_KEY, staleness: STALENESS_AVG_KEY, throughput: STEP_TIME_KEY } as const;
const KEYS = Object.values(OVERLAY_KEYS);

export interface BaselineFeedOptions {
  transport: Transport;
  target: Target;
  summary: RunSummary;
  logPath: string;
  /** How the legend names it (default `target:run`; a local log file: its path). */
  label?: string;
  backfillCache?: BackfillCache | null;
  backfillThresholdBytes?: number;
  statePollMs?: number;
  endedStatePollMs?: number;
  onChange(): void;
}

export class BaselineFeed {
  private readonly watch: RunWatch;
  private readonly steps = new RunSteps({ keys: KEYS });
  private state: RunState;
  private history: { readBytes: number; totalBytes: number } | null = null;
  private problem: string | null = null;
  private missing = false;
  /** Moves with anything the overlay shows (the session derives it once per move). */
  version = 0;

  constructor(private readonly o: BaselineFeedOptions) {
    this.state = o.summary.state;
    this.watch = createRunWatch({
      transport: o.transport,
      target: o.target,
      runId: o.summary.id,
      logPath: o.logPath,
      whenEnded: 'pause',
      endedAtOpen: ENDED_STATES.has(o.summary.state),
      // The rules read only the reward as a series: no series per stats key for a baseline.
      storeSeries: 'rules',
      backfill: {
        thresholdBytes: o.backfillThresholdBytes ?? 2 * 1024 * 1024,
        run: (transport, logPath, size, sink) =>
          backfill(transport, logPath, size, {
            ...sink,
            cache: o.backfillCache === undefined ? defaultBackfillCache() : o.backfillCache,
            // A baseline run with a sentinel digest: read as the open run's (run-digest.ts).
            digest: digestPathFor(logPath),
          }),
      },
      ...(o.statePollMs !== undefined ? { statePollMs: o.statePollMs } : {}),
      ...(o.endedStatePollMs !== undefined ? { endedStatePollMs: o.endedStatePollMs } : {}),
    });
    this.watch.on((w) => {
      switch (w.type) {
        case 'record':
          if (w.record.type !== 'save') this.steps.ingest(w.record);
          this.version++;
          // A backfill's burst is told once, by its end (`history`).
          if (!w.backfilled) o.onChange();
          return;
        case 'history':
          this.history =
            w.readBytes !== null && w.totalBytes !== null ? { readBytes: w.readBytes, totalBytes: w.totalBytes } : null;
          break;
        case 'state':
          this.state = w.summary.state as RunState;
          break;
        case 'problem':
          this.problem = w.problem ? w.problem.text : null;
          break;
        case 'settled':
          this.missing = w.readEnd === 'missing';
          break;
        case 'reset':
          break;
        default:
          return;
      }
      this.version++;
      o.onChange();
    });
  }

  start(): this {
    this.watch.start();
    return this;
  }

  get runId(): string {
    return this.o.summary.id;
  }

  get label(): string {
    return this.o.label ?? `${this.o.summary.target}:${this.o.summary.id}`;
  }

  /** The overlay beside the open run's store (its series as kept: ≤ 1024 points a key). */
  overlay(open: Pick<MetricsStore, 'series'>, openSteps: RunStepsView): BaselineOverlay {
    const b = this.steps.view();
    const hours = { a: trainingHours(openSteps), b: trainingHours(b) };
    const samples = { a: samplesConsumed(openSteps), b: samplesConsumed(b) };
    const series: BaselineOverlay['series'] = {};
    for (const key of KEYS) {
      const a = open.series(key);
      const whole = { steps: b.steps, values: b.values.get(key)! };
      const drawn = lastPerBucket(whole, DRAWN_POINTS);
      const axes = {
        hours: { a: onAxis(a, openSteps, hours.a), b: onAxis(drawn, b, hours.b) },
        samples: { a: onAxis(a, openSteps, samples.a), b: onAxis(drawn, b, samples.b) },
      };
      series[key] = { a, b: drawn, latest: latestCommonStep(a, whole), axes };
    }
    const note = this.missing
      ? `its log ${this.o.logPath} is gone: no series`
      : this.problem
        ? this.problem
        : this.history
          ? `reading its history ${Math.floor((100 * this.history.readBytes) / Math.max(1, this.history.totalBytes))}%`
          : undefined;
    return {
      label: this.label,
      runId: this.runId,
      state: this.state,
      ...(note ? { note } : {}),
      series,
    };
  }

  close(): void {
    this.watch.close();
  }
}
