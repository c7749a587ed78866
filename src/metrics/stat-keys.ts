// Key prefixes of the trainer's stats tables that the panels group by (docs trainer.md §6).

/** Where a step's time goes: every `timeperf/*` phase the log has. */
export const TIMEPERF_PREFIX = 'timeperf/';
/** Off-policy staleness of the samples an update trained on. */
export const VERSION_STATS_PREFIX = 'ppo_actor/update/version_stats/';
