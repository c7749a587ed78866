// The latest step times and their median: what the ETA, the throughput and the stall rule read.
import type { MetricsStore } from './store.js';

const WINDOW = 10;

/** Derived series kept next to the stats keys: per-step wall times (seconds). */
export const STEP_TIME_KEY = 'derived/step_time_s';

export function recentStepTimes(store: Pick<MetricsStore, 'recent'>, count = WINDOW): number[] {
  return store.recent(STEP_TIME_KEY, count).values.filter((v): v is number => v !== null && Number.isFinite(v));
}

export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
