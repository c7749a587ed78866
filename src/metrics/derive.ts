// Figures the trainer does not log but a person watching a run asks for (trainer.md §6):
// step wall time, episodes/s, train tokens/s, where a step's time goes, ETA, staleness budget.
import { MetricsStore, STEP_TIME_KEY } from './store.js';
import { median, recentStepTimes } from './step-times.js';
import { firstLogged, STALENESS_AVG_KEYS, STALENESS_MAX_KEYS } from './stat-keys.js';

export { median, recentStepTimes } from './step-times.js';

export interface RunConfigFacts {
  /** rollout.consumer_batch_size: episodes consumed per step. */
  consumerBatchSize?: number;
  /** rollout.max_head_offpolicyness: the staleness budget (not logged by the trainer). */
  maxHeadOffpolicyness?: number;
  /** Overrides the `G` of `Train step g/G`. */
  totalSteps?: number;
}

export interface PhaseShare {
  /** `timeperf/<phase>` key without its prefix. */
  phase: string;
  /** As logged: NaN for nan, ±Infinity for inf and -inf. */
  seconds: number;
  /** Fraction of the step's wall time (or of the finite phases' sum when the wall time is
   *  unknown); NaN for a phase whose seconds are not finite. */
  share: number;
}

export interface Figures {
  globalStep: number | null;
  totalSteps: number | null;
  /** Wall time of the latest step (gap between the last two step records), seconds. */
  stepTimeS: number | null;
  /** Mean of the last (up to) 10 step times. */
  meanStepTimeS: number | null;
  medianStepTimeS: number | null;
  episodesPerS: number | null;
  /** null when unknown (a key missing, no number); NaN or ±Infinity when an input was nan/inf. */
  trainTokensPerS: number | null;
  phases: PhaseShare[];
  etaS: number | null;
  /** Naive local time (as the trainer prints it) at which the run should reach totalSteps. */
  etaAt: string | null;
  progress: number | null;
  staleness: { max: number | null; avg: number | null; budget: number | null; over: boolean } | null;
  /** Seconds since the latest step record, when `now` (same naive clock) is given. */
  sinceLastStepS: number | null;
}

/** `now`: ms on the trainer's naive clock (isoTimeToMs of a printed time), used for ETA-free
 *  "time since last step"; the ETA itself is anchored at the last step record. */
export function deriveFigures(store: MetricsStore, config: RunConfigFacts = {}, now?: number): Figures {
  const last = store.lastStepEvent;
  const globalStep = last?.globalStep ?? null;
  const totalSteps = config.totalSteps ?? last?.totalSteps ?? null;
  const times = recentStepTimes(store);
  const lastTime = store.latest(STEP_TIME_KEY);
  const stepTimeS = lastTime !== null && store.recent(STEP_TIME_KEY, 1).steps[0] === globalStep ? lastTime : null;
  const meanStepTimeS = times.length ? times.reduce((a, b) => a + b, 0) / times.length : null;
  const episodes = config.consumerBatchSize ?? store.lastBatch?.episodes ?? null;
  const perStep = stepTimeS ?? meanStepTimeS;
  const episodesPerS = episodes !== null && perStep ? finiteOrNull(episodes / perStep) : null;
  // Both from the latest step record: the newest value of each key may come from different steps.
  const nTokens = store.current('ppo_actor/n_tokens') ?? null;
  const trainS = store.current('timeperf/train_step') ?? null;
  const trainTokensPerS = nTokens === null || trainS === null ? null : tokensPerS(nTokens, trainS);

  const phases: PhaseShare[] = [];
  if (last) {
    let sum = 0;
    for (const key in last.stats) {
      const v = last.stats[key];
      // Every timeperf/* phase the step logged, nan and inf too (they are facts about the step).
      if (key.startsWith('timeperf/') && v !== null) {
        phases.push({ phase: key.slice('timeperf/'.length), seconds: v, share: 0 });
        if (Number.isFinite(v)) sum += v;
      }
    }
    const whole = stepTimeS && stepTimeS >= sum ? stepTimeS : sum;
    for (const p of phases) p.share = !Number.isFinite(p.seconds) ? Number.NaN : whole > 0 ? p.seconds / whole : 0;
    // Longest first; the non-finite ones after the finite ones, in the step's order.
    phases.sort((a, b) => rank(b.seconds) - rank(a.seconds));
  }

  let etaS: number | null = null;
  let etaAt: string | null = null;
  let progress: number | null = null;
  if (globalStep !== null && totalSteps) {
    progress = Math.min(1, globalStep / totalSteps);
    if (meanStepTimeS !== null) {
      etaS = Math.max(0, totalSteps - globalStep) * meanStepTimeS;
      if (store.lastStepTimeMs !== null)
        etaAt = new Date(store.lastStepTimeMs + etaS * 1000).toISOString().slice(0, 23);
    }
  }

  // webgym's gap keys, or upstream AReaL's version_stats lag to θ.
  const sMax = firstLogged(STALENESS_MAX_KEYS, (k) => store.current(k))?.value ?? null;
  const sAvg = firstLogged(STALENESS_AVG_KEYS, (k) => store.current(k))?.value ?? null;
  const budget = config.maxHeadOffpolicyness ?? null;
  const staleness =
    sMax === null && sAvg === null && budget === null
      ? null
      : { max: sMax, avg: sAvg, budget, over: budget !== null && sMax !== null && sMax > budget };

  const sinceLastStepS =
    now !== undefined && store.lastStepTimeMs !== null ? (now - store.lastStepTimeMs) / 1000 : null;
  return {
    globalStep,
    totalSteps,
    stepTimeS,
    meanStepTimeS,
    medianStepTimeS: median(times),
    episodesPerS,
    trainTokensPerS,
    phases,
    etaS,
    etaAt,
    progress,
    staleness,
    sinceLastStepS,
  };
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** Sort key of a phase's seconds: non-finite ones last. */
function rank(v: number): number {
  return Number.isFinite(v) ? v : -Infinity;
}

/** n_tokens / train_step. From finite inputs, a finite quotient only (a train time printed as
 *  0.0000e+00 but stored as a denormal would give Infinity: unknown, null). From a nan or inf input
 *  the quotient says so: NaN, or ±Infinity when that is what it is (inf tokens in 12 s), never a
 *  number it is not (12 tokens in inf s is no rate of 0). */
function tokensPerS(nTokens: number, trainS: number): number | null {
  if (Number.isFinite(nTokens) && Number.isFinite(trainS)) return trainS > 0 ? finiteOrNull(nTokens / trainS) : null;
  const q = nTokens / trainS;
  return Number.isFinite(q) ? Number.NaN : q;
}
