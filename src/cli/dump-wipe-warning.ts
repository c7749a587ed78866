// Before a launch or a resume starts the trainer: webgym/train.py will delete the trial's dumps under
// logs/root/<exp>/<trial> (TR:166-185). Counted on the target (heads unread), pins counted here.
import type { ConfigEvaluation } from '../config/index.js';
import { wipedLogDir, wipeWarning } from '../episodes/index.js';
import type { Transport } from '../remote/transport.js';
import { countDumps } from '../runs/dump-list.js';
import { readPins } from '../runs/pins.js';

export async function dumpWipeWarning(
  t: Transport,
  evaluation: ConfigEvaluation,
  run: { experiment: string; trial: string; runId: string | null },
  where: string,
): Promise<string | null> {
  const fileroot = (evaluation.resolved as Record<string, any> | null)?.cluster?.fileroot;
  if (typeof fileroot !== 'string' || fileroot === '') return null;
  const place = { fileroot, experiment: run.experiment, trial: run.trial };
  let found;
  try {
    found = await countDumps(t, place, 'root');
  } catch (e) {
    return `trajectory dumps under ${wipedLogDir(fileroot, run.experiment, run.trial)} not checked (${(e as Error).message}): webgym/train.py deletes them when it starts`;
  }
  const pinned = run.runId ? readPins(run.runId).length : 0;
  const hint = `awrl-tui episodes ${run.runId ?? 'RUN'} ${where} --pin TASK/EP`.replace(/\s+/g, ' ');
  return wipeWarning(found, wipedLogDir(fileroot, run.experiment, run.trial), pinned, hint)?.text ?? null;
}
