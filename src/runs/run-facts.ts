// What the alert rules and the RL health screen take from a run's config (its staleness budget,
// consumer batch size, recover interval and behaviour-weight cap), read from the config it was
// launched with. No config engine here: its evaluation is run-facts-eval.ts, loaded by whoever
// makes the facts (`follow` while it connects).
import type { ConfigEvaluation } from '../config/index.js';
import type { RunRecord } from './run-record.js';
import type { ExpectedWandb } from './wandb-expected.js';

export interface RunWatchFacts {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
  /** actor.behav_imp_weight_cap: null when the config sets none (the trainer's default, no cap),
   *  undefined when the config is not known here or its value is no number. */
  behavImpWeightCap?: number | null;
  /** The wandb run the config makes, known before wandb's banner (absent: disabled or not known). */
  wandb?: ExpectedWandb;
}

/** A config as the trainer read it: the file's text and the command line's overrides. */
export interface LaunchedConfig {
  fileName: string;
  text: string;
  overrides: string[];
  /** The names of the environment variables set here (interpolations, secrets). */
  envNames: string[];
}

/** What the alert rules take from an evaluated config (each unknown unless a finite number; the
 *  cap also null where the config resolves it to none: unset or `null`). */
export function factsOf(evaluation: ConfigEvaluation | null): RunWatchFacts {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const resolved = evaluation?.resolved as Record<string, any> | undefined;
  const cap: unknown = resolved?.actor?.behav_imp_weight_cap;
  // None set only where the config read (it has an actor section); a config that does not read: unknown.
  const actorRead = typeof resolved?.actor === 'object' && resolved.actor !== null;
  const capKnown = actorRead && (cap === null || cap === undefined) ? null : num(cap);
  return {
    consumerBatchSize: num(resolved?.rollout?.consumer_batch_size),
    maxHeadOffpolicyness: num(resolved?.rollout?.max_head_offpolicyness),
    recoverFreqSecs: num(resolved?.recover?.freq_secs),
    behavImpWeightCap: capKnown,
  };
}

/** The config file and overrides in a run's recorded argv (`… --config PATH k=v …`), or null. */
export function launchedConfigOf(record: RunRecord): { configPath: string; overrides: string[] } | null {
  const at = record.argv.indexOf('--config');
  if (at < 0 || at + 1 >= record.argv.length) return null;
  return { configPath: record.argv[at + 1], overrides: record.argv.slice(at + 2) };
}
