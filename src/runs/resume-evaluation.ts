// The config of a run as it was launched, read back from the target through the one config engine:
// `--launch --resume` plans the resume with it (secrets, pre-flight), `follow` judges the run by it.
import { evaluateConfig, type ConfigEvaluation } from '../config/index.js';
import type { Transport } from '../remote/transport.js';
import type { Target } from './targets.js';
import type { RunRecord } from './run-record.js';
import { readRecord } from './launch.js';
import { runsRoot } from './list.js';
import { isValidRunId } from './run-record.js';
import { launchedConfigOf } from './run-facts.js';

/**
 * The config of a run being resumed, evaluated as it was launched: its uploaded config.yaml plus the
 * overrides in its recorded argv (`python webgym/train.py --config PATH ++k=v …`). Null when the run
 * or its config cannot be read (resumeRun then says what is wrong) or the config no longer evaluates.
 */
export async function evaluationForResume(
  transport: Transport,
  target: Target,
  runId: string,
  envNames: readonly string[],
  /** The run's record when the caller has just read it (one round trip less). */
  known?: RunRecord,
): Promise<{ evaluation: ConfigEvaluation; record: RunRecord; configPath: string } | null> {
  if (!isValidRunId(runId)) return null;
  const record = known ?? (await readRecord(transport, `${runsRoot(target)}/${runId}`));
  if (!record) return null;
  const launched = launchedConfigOf(record);
  if (!launched) return null;
  const { configPath, overrides } = launched;
  let text: string;
  try {
    text = (await transport.readFile(configPath)).toString('utf8');
  } catch {
    return null;
  }
  const ev = evaluateConfig({
    fileName: configPath,
    text,
    overrides,
    envNames: [...envNames],
  });
  return ev.hasErrors || !ev.resolved ? null : { evaluation: ev, record, configPath };
}
