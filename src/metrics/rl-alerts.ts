// The RL-health early-warning rules (rl-health.ts) as alerts, so they take the one alert path: the
// step rules (alerts.ts) → RunAlerts' history → the watch → notifications and `alerts RUN`. The
// screen and the alerts read the same StatSource over the same store, so they never disagree.
import type { Alert } from './alerts.js';
import { HISTORY_POINTS, rlWarnings, type StatSource } from './rl-health.js';
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

/** The early warnings standing on the store's steps. `cap`: actor.behav_imp_weight_cap (null: the
 *  config sets none; undefined: not known here, and the spike rule says nothing). */
export function rlAlerts(store: MetricsStore, cap: number | null | undefined): Alert[] {
  const last = store.lastStepEvent;
  const at = last ? { step: last.globalStep, time: last.time } : {};
  return rlWarnings(storeStats(store), cap === undefined ? {} : { behavImpWeightCap: cap }).map((w) => ({
    id: w.id,
    severity: 'warning',
    title: `Early warning: ${w.title}`,
    detail: `${w.key}: ${w.title} (rule: ${w.rule})`,
    advice: w.detail.charAt(0).toUpperCase() + w.detail.slice(1) + '.',
    ...at,
  }));
}
