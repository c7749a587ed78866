// The evaluation behind run-facts.ts: the config engine, loaded only by whoever makes the facts
// (`follow` while it connects, the cockpit when a run is selected).
import { evaluateConfig } from '../config/index.js';
import type { Transport } from '../remote/transport.js';
import type { RunRecord } from './run-record.js';
import { expectedWandb, wandbConfigFacts, wandbIdFile, type ExpectedWandb, type RunNames } from './wandb-expected.js';
import { factsOf, launchedConfigOf, type LaunchedConfig, type RunWatchFacts } from './run-facts.js';

/** The facts of a config as it was launched: each value the config resolves to, whatever else
 *  its evaluation says (a secret missing HERE, e.g. WANDB_API_KEY on the laptop that follows,
 *  says nothing about the run's budget); unknown where it resolves to no number, all unknown
 *  when it does not read at all. */
export function launchedFacts(config: LaunchedConfig): RunWatchFacts {
  return factsOf(evaluateConfig(config));
}

/** The facts of a run: its config file and overrides as its record has them, read on the target
 *  (all unknown without a config in its argv; a read that fails rejects). */
export async function readRunFacts(transport: Transport, record: RunRecord): Promise<RunWatchFacts> {
  const launched = launchedConfigOf(record);
  if (!launched) return {};
  const text = (await transport.readFile(launched.configPath)).toString('utf8');
  const envNames = Object.keys(process.env).filter((k) => process.env[k] !== undefined && process.env[k] !== '');
  const evaluation = evaluateConfig({ fileName: launched.configPath, text, overrides: launched.overrides, envNames });
  const facts = factsOf(evaluation);
  const names = { experiment: evaluation.experimentName, trial: evaluation.trialName };
  const wandb = await readExpectedWandb(transport, evaluation.resolved, names);
  return wandb ? { ...facts, wandb } : facts;
}

/** The wandb run the config makes, before wandb prints it (wandb-expected.ts); with id_suffix
 *  `timestamp`, its suffix read from the file StatsLogger keeps it in (unknown until written). */
export async function readExpectedWandb(
  transport: Transport,
  resolved: unknown,
  names: RunNames,
): Promise<ExpectedWandb | null> {
  const f = wandbConfigFacts(resolved, names);
  if (f === null) return null;
  let idText: string | null = null;
  if (f.idSuffix === 'timestamp')
    idText = await transport.readFile(wandbIdFile(f)).then(
      (b) => b.toString('utf8'),
      () => null,
    );
  return expectedWandb(f, idText);
}
