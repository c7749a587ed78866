// Key prefixes of the trainer's stats tables that the panels group by (docs trainer.md §6).

/** Where a step's time goes: every `timeperf/*` phase the log has. */
export const TIMEPERF_PREFIX = 'timeperf/';
/** Off-policy staleness of the samples an update trained on. */
export const VERSION_STATS_PREFIX = 'ppo_actor/update/version_stats/';

/** The policy-version lag of the samples trained on, under the two names it is logged by: webgym's
 *  `staleness/gap/offpolicy_*` (AsyncWebRL) and upstream AReaL's `version_stats/sample_staleness_
 *  theta_*` (the samples' lag to the policy being updated; upstream tables have no `staleness/gap`,
 *  trainer.md §9.6). The first that a step has is read: the rules, the health monitor, the views. */
export const STALENESS_MAX_KEYS = ['staleness/gap/offpolicy_max', `${VERSION_STATS_PREFIX}sample_staleness_theta_max`];
export const STALENESS_AVG_KEYS = ['staleness/gap/offpolicy_avg', `${VERSION_STATS_PREFIX}sample_staleness_theta_avg`];

/** The first of `keys` that `read` gives a value for (not undefined: absent), with that value. */
export function firstLogged<T>(
  keys: readonly string[],
  read: (key: string) => T | undefined,
): { key: string; value: T } | null {
  for (const key of keys) {
    const value = read(key);
    if (value !== undefined) return { key, value };
  }
  return null;
}
