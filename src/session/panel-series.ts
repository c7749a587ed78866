// The dashboard's panels as data: their ids, in the order they are laid out, and the series each
// reads from the run's store. The drawing side of each panel (its size and lines) is src/ui's
// panel registry (ui/panels/registry.ts), which takes its ids and keys from here; the backfill's
// key list derives from it too (backfill-filter.ts), so a panel that reads a key has its history
// after attach without anyone remembering a list two rooms away. Pure data.
import { STEP_TIME_KEY } from '../metrics/store.js';
import { TIMEPERF_PREFIX, VERSION_STATS_PREFIX } from '../metrics/stat-keys.js';

export const PANEL_IDS = ['reward', 'staleness', 'throughput', 'gpu', 'alerts', 'log'] as const;
export type PanelId = (typeof PANEL_IDS)[number];

/** The series each panel reads (a key ending in `/` stands for every key it starts). */
export const PANEL_SERIES: Readonly<Record<PanelId, readonly string[]>> = {
  reward: [
    'rollout/reward',
    'rollout/easy/reward',
    'rollout/medium/reward',
    'rollout/hard/reward',
    'test_rollout/trajectory/reward',
  ],
  staleness: [
    'staleness/gap/offpolicy_avg',
    'staleness/gap/offpolicy_max',
    'ppo_actor/behave_cap_ratio',
    'staleness/update/awaiting_train',
    'staleness/rollout/in_progress',
    VERSION_STATS_PREFIX,
  ],
  // The step time is the store's own series (from the step records), not a stats key.
  throughput: ['ppo_actor/n_tokens', TIMEPERF_PREFIX, STEP_TIME_KEY],
  gpu: [],
  alerts: [],
  log: [],
};

/** Whether `key` is one of `keys` (a prefix entry covers every key it starts). */
export function coversKey(keys: readonly string[], key: string): boolean {
  return keys.some((k) => k === key || (k.endsWith('/') && key.startsWith(k)));
}
