// Two runs side by side (pure): their series aligned by global step, TensorBoard's smoothing, the
// difference b − a, a summary of each, and the config keys that differ. `awrl-tui compare` prints
// it; the cockpit's baseline overlay draws the same alignment.
import { diffConfigs } from '../config/diff.js';
import { tensorboardEma } from './ema.js';
import { samplesConsumed, trainingHours, type RunStepsView } from './run-steps.js';
import { STEP_TIME_KEY } from './step-times.js';
import { TIMEPERF_PREFIX } from './stat-keys.js';

export interface StepValues {
  steps: readonly number[];
  values: readonly (number | null)[];
}

export interface AlignedSeries {
  /** Every step either run has (ascending). */
  steps: number[];
  /** Each run's value at the step; null where it has none (or its cell held no number). */
  a: (number | null)[];
  b: (number | null)[];
  /** b − a where both are finite numbers, else null. */
  delta: (number | null)[];
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** Both runs on the union of their steps (each run's steps ascending, as RunSteps and Series keep them). */
export function alignByStep(a: StepValues, b: StepValues): AlignedSeries {
  const out: AlignedSeries = { steps: [], a: [], b: [], delta: [] };
  let i = 0;
  let j = 0;
  while (i < a.steps.length || j < b.steps.length) {
    const sa = i < a.steps.length ? a.steps[i] : Infinity;
    const sb = j < b.steps.length ? b.steps[j] : Infinity;
    const step = Math.min(sa, sb);
    const va = sa === step ? a.values[i++] : null;
    const vb = sb === step ? b.values[j++] : null;
    out.steps.push(step);
    out.a.push(va ?? null);
    out.b.push(vb ?? null);
    out.delta.push(finite(va) && finite(vb) ? vb - va : null);
  }
  return out;
}

/** The latest step where both runs have a finite value, with the difference b − a there. */
export function latestCommon(s: AlignedSeries): { step: number; a: number; b: number; delta: number } | null {
  for (let k = s.steps.length - 1; k >= 0; k--) {
    const d = s.delta[k];
    if (d !== null) return { step: s.steps[k], a: s.a[k]!, b: s.b[k]!, delta: d };
  }
  return null;
}

/** `latestCommon` of two runs without aligning them: from a's last step back, the first step b
 *  also has (b's steps ascending, found by bisection), both values finite. For a frame, where b is
 *  a whole run (every step) and a the ≤ 1024 points of a Series. */
export function latestCommonStep(
  a: StepValues,
  b: StepValues,
): { step: number; a: number; b: number; delta: number } | null {
  for (let i = a.steps.length - 1; i >= 0; i--) {
    const va = a.values[i];
    if (!finite(va)) continue;
    const step = a.steps[i];
    let lo = 0;
    let hi = b.steps.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (b.steps[mid] < step) lo = mid + 1;
      else hi = mid - 1;
    }
    const vb = b.steps[lo] === step ? b.values[lo] : null;
    if (finite(vb)) return { step, a: va, b: vb, delta: vb - va };
  }
  return null;
}

/** At most `max` points: each of `max` buckets of consecutive points keeps its last (as Series
 *  keeps a merged bucket's last value), so a long run draws at the resolution of the open one. */
export function lastPerBucket(p: StepValues, max: number): { steps: number[]; values: (number | null)[] } {
  const n = p.steps.length;
  if (n <= max) return { steps: [...p.steps], values: [...p.values] };
  const steps: number[] = [];
  const values: (number | null)[] = [];
  for (let k = 1; k <= max; k++) {
    const i = Math.floor((k * n) / max) - 1;
    steps.push(p.steps[i]);
    values.push(p.values[i]);
  }
  return { steps, values };
}

export interface ComparedSeries extends AlignedSeries {
  /** TensorBoard's EMA of each run's own points (weight 0: the raw values). */
  aSmoothed: (number | null)[];
  bSmoothed: (number | null)[];
  /** The other time axes at each step, per run (null where the run has no such step or its time
   *  or batch is unknown): training hours with restart downtime removed, episodes consumed. */
  aHours: (number | null)[];
  bHours: (number | null)[];
  aSamples: (number | null)[];
  bSamples: (number | null)[];
}

/** Per-run facts the axes need (the config's consumer_batch_size when a batch record is missing). */
export interface AxisFacts {
  consumerBatchSize?: number;
}

function byStep(v: RunStepsView, values: readonly (number | null)[]): Map<number, number | null> {
  const m = new Map<number, number | null>();
  v.steps.forEach((s, k) => m.set(s, values[k]));
  return m;
}

/** One key of both runs: aligned, smoothed with `weight`, with both runs' time axes. */
export function compareKey(
  a: RunStepsView,
  b: RunStepsView,
  key: string,
  weight: number,
  facts: { a?: AxisFacts; b?: AxisFacts } = {},
): ComparedSeries {
  const none = (v: RunStepsView) => new Array<number | null>(v.steps.length).fill(null);
  const s = alignByStep(
    { steps: a.steps, values: a.values.get(key) ?? none(a) },
    { steps: b.steps, values: b.values.get(key) ?? none(b) },
  );
  const at = (m: Map<number, number | null>) => s.steps.map((st) => m.get(st) ?? null);
  // The EMA skips nulls, so smoothing the aligned column is smoothing the run's own points.
  const smooth = (xs: (number | null)[]) => (weight > 0 ? tensorboardEma(xs, weight) : [...xs]);
  return {
    ...s,
    aSmoothed: smooth(s.a),
    bSmoothed: smooth(s.b),
    aHours: at(byStep(a, trainingHours(a))),
    bHours: at(byStep(b, trainingHours(b))),
    aSamples: at(byStep(a, samplesConsumed(a, facts.a?.consumerBatchSize))),
    bSamples: at(byStep(b, samplesConsumed(b, facts.b?.consumerBatchSize))),
  };
}

export const REWARD_KEY = 'rollout/reward';
export const STALENESS_AVG_KEY = 'staleness/gap/offpolicy_avg';
export const STALENESS_MAX_KEY = 'staleness/gap/offpolicy_max';
export const EVAL_REWARD_KEY = 'test_rollout/trajectory/reward';
export const EVAL_ROUND_KEY = 'test_rollout/trajectory/round';
/** What a side-by-side summary reads (with every timeperf/* phase): RunSteps' keys for compare. */
export const SUMMARY_KEYS: readonly string[] = [
  REWARD_KEY,
  STALENESS_AVG_KEY,
  STALENESS_MAX_KEY,
  EVAL_REWARD_KEY,
  EVAL_ROUND_KEY,
  STEP_TIME_KEY,
];
export const SUMMARY_PREFIXES: readonly string[] = [TIMEPERF_PREFIX];

export interface RunFigures {
  /** Steps kept (the latest incarnation's), the last one, resumes seen, whether the log ended. */
  steps: number;
  lastStep: number | null;
  resumes: number;
  finished: boolean;
  /** The reward at the last step as logged (nan stays nan), and the best finite one with its step. */
  finalReward: number | null;
  bestReward: { step: number; value: number } | null;
  /** Mean of the finite values over the kept steps, per timeperf/* phase (seconds). */
  phases: { key: string; meanS: number }[];
  meanStepTimeS: number | null;
  trainingHours: number | null;
  staleness: { meanAvg: number | null; max: number | null };
  /** Evaluation rounds completed (distinct test_rollout/trajectory/round values, else the steps
   *  that log a round's reward) and the last one's reward. */
  eval: { rounds: number; lastReward: number | null } | null;
}

function mean(xs: readonly (number | null)[] | undefined): number | null {
  let sum = 0;
  let n = 0;
  for (const x of xs ?? []) {
    if (!finite(x)) continue;
    sum += x;
    n++;
  }
  return n ? sum / n : null;
}

function maxOf(xs: readonly (number | null)[] | undefined): number | null {
  let m: number | null = null;
  for (const x of xs ?? []) if (finite(x) && (m === null || x > m)) m = x;
  return m;
}

/** A run's side-by-side figures from its steps. */
export function runFigures(v: RunStepsView): RunFigures {
  const reward = v.values.get(REWARD_KEY) ?? [];
  let best: RunFigures['bestReward'] = null;
  reward.forEach((x, k) => {
    if (finite(x) && (best === null || x > best.value)) best = { step: v.steps[k], value: x };
  });
  const phases = [...v.values.keys()]
    .filter((k) => k.startsWith(TIMEPERF_PREFIX))
    .sort()
    .map((key) => ({ key, meanS: mean(v.values.get(key)) }))
    .filter((p): p is { key: string; meanS: number } => p.meanS !== null);
  const roundNumbers = new Set((v.values.get(EVAL_ROUND_KEY) ?? []).filter(finite));
  const evalReward = (v.values.get(EVAL_REWARD_KEY) ?? []).filter(finite);
  // A completed round's test_rollout/trajectory/* is logged with the step it completed in: the
  // rounds are its distinct round numbers, or without that key, the steps that carry its reward.
  const rounds = { size: roundNumbers.size || evalReward.length };
  const hours = trainingHours(v);
  return {
    steps: v.steps.length,
    lastStep: v.steps.length ? v.steps[v.steps.length - 1] : null,
    resumes: v.resumes,
    finished: v.finished,
    finalReward: reward.length ? reward[reward.length - 1] : null,
    bestReward: best,
    phases,
    meanStepTimeS: mean(v.values.get(STEP_TIME_KEY)),
    trainingHours: hours.length ? hours[hours.length - 1] : null,
    staleness: { meanAvg: mean(v.values.get(STALENESS_AVG_KEY)), max: maxOf(v.values.get(STALENESS_MAX_KEY)) },
    eval: rounds.size || evalReward.length ? { rounds: rounds.size, lastReward: evalReward.at(-1) ?? null } : null,
  };
}

export interface ConfigKeyDiff {
  key: string;
  /** The resolved value in each run (null where the key is absent); secrets <redacted>. */
  a: unknown;
  b: unknown;
}

/** Exactly the resolved keys whose values differ (a key an interpolation takes from a changed one
 *  included: both trees are resolved by the config engine, as the trainer resolves them). */
export function configDiff(a: Record<string, any>, b: Record<string, any>): ConfigKeyDiff[] {
  return diffConfigs(a, b).map((c) => ({ key: c.key, a: c.before ?? null, b: c.after ?? null }));
}
