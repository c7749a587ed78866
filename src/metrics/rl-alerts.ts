// The RL-health early-warning rules (rl-health.ts) as alerts, so they take the one alert path: the
// step rules (alerts.ts) → RunAlerts' history → the watch → notifications and `alerts RUN`. The
// screen and the alerts read the same StatSource over the same store, so they never disagree.
import type { Alert } from './alerts.js';
import { HISTORY_POINTS, spikeWarnings, trendWarnings, type RlWarning, type StatSource } from './rl-health.js';
import type { MetricsStore } from './store.js';

/** A store as the RL health rules read it (a key's history: HISTORY_POINTS bucketed points). */
export function storeStats(store: MetricsStore): StatSource {
  return {
    has: (k) => store.has(k),
    latest: (k) => store.latest(k),
    keys: () => store.keys(),
    history: (k) => store.downsample(k, HISTORY_POINTS).last,
  };
}

/** The trend rules read whole series (3 downsamples: ~15 µs a step, 0.3 s over a 1 GB log's 20,000
 *  steps); past the first steps they are asked every TREND_EVERY steps, by step number, so the
 *  answer is the same live or replayed, and their last answer stands in between. */
const TREND_EVERY = 8;
const TREND_EACH_STEP_UNTIL = 256;
const trendsAsked = new WeakMap<MetricsStore, { step: number; alerts: Alert[] }>();

/** The early warnings standing on the store's steps. `cap`: actor.behav_imp_weight_cap (null: the
 *  config sets none; undefined: not known here, and the spike rule says nothing). */
export function rlAlerts(store: MetricsStore, cap: number | null | undefined): Alert[] {
  const last = store.lastStepEvent;
  const at = last ? { step: last.globalStep, time: last.time } : {};
  const stats = storeStats(store);
  const spike = spikeWarnings(stats, cap === undefined ? {} : { behavImpWeightCap: cap }).map((w) => toAlert(w, at));
  const step = last?.globalStep ?? 0;
  const asked = trendsAsked.get(store);
  const due = step <= TREND_EACH_STEP_UNTIL || step % TREND_EVERY === 0 || !asked || step < asked.step;
  if (due) trendsAsked.set(store, { step, alerts: trendWarnings(stats).map((w) => toAlert(w, at)) });
  return [...spike, ...(trendsAsked.get(store)?.alerts ?? [])];
}

function toAlert(w: RlWarning, at: { step?: number; time?: string }): Alert {
  return {
    id: w.id,
    severity: 'warning',
    title: `Early warning: ${w.title}`,
    detail: `${w.key}: ${w.title} (rule: ${w.rule})`,
    advice: w.detail.charAt(0).toUpperCase() + w.detail.slice(1) + '.',
    ...at,
  };
}
