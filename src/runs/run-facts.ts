// What the alert rules take from a run's config (its staleness budget, consumer batch size and
// recover interval), read from the config it was launched with. No config engine here: its
// evaluation is run-facts-eval.ts, loaded by whoever makes the facts (`follow` while it connects).
import type { ConfigEvaluation } from '../config/index.js';
import type { RunRecord } from './run-record.js';

export interface RunWatchFacts {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
}

/** A config as the trainer read it: the file's text and the command line's overrides. */
export interface LaunchedConfig {
  fileName: string;
  text: string;
  overrides: string[];
  /** The names of the environment variables set here (interpolations, secrets). */
  envNames: string[];
}

/** What the alert rules take from an evaluated config (each unknown unless a finite number). */
export function factsOf(evaluation: ConfigEvaluation | null): RunWatchFacts {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const resolved = evaluation?.resolved as Record<string, any> | undefined;
  return {
    consumerBatchSize: num(resolved?.rollout?.consumer_batch_size),
    maxHeadOffpolicyness: num(resolved?.rollout?.max_head_offpolicyness),
    recoverFreqSecs: num(resolved?.recover?.freq_secs),
  };
}

/** The config file and overrides in a run's recorded argv (`… --config PATH k=v …`), or null. */
export function launchedConfigOf(record: RunRecord): { configPath: string; overrides: string[] } | null {
  const at = record.argv.indexOf('--config');
  if (at < 0 || at + 1 >= record.argv.length) return null;
  return { configPath: record.argv[at + 1], overrides: record.argv.slice(at + 2) };
}
