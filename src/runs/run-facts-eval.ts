// The evaluation behind run-facts.ts: the config engine, loaded only where the facts are made (the
// facts thread, or the main thread when there is none).
import { evaluateConfig } from '../config/index.js';
import { factsOf, type LaunchedConfig, type RunWatchFacts } from './run-facts.js';

/** The facts of a config as it was launched: each value the config resolves to, whatever else
 *  its evaluation says (a secret missing HERE, e.g. WANDB_API_KEY on the laptop that follows,
 *  says nothing about the run's budget); unknown where it resolves to no number, all unknown
 *  when it does not read at all. */
export function launchedFacts(config: LaunchedConfig): RunWatchFacts {
  return factsOf(evaluateConfig(config));
}
