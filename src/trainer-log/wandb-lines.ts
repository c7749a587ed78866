// wandb's own lines on the controller's stdout (not AReaL records: `wandb: ` and the text, no header),
// printed by wandb.init() and wandb.finish() (wandb_run.py's header and footer):
//   `wandb: 🚀 View run at https://wandb.ai/ENTITY/PROJECT/runs/ID` (0.12 … 0.23; copies lose the emoji)
//   `wandb: 🚀 View run NAME at: URL` (the footer of newer versions)
//   `wandb: Run data is saved locally in DIR/wandb/offline-run-20260323_113655-ID` (offline mode;
//   online runs have `run-…`, and their URL line says more)
import type { WandbEvent } from './events.js';

const VIEW_RUN = /^wandb: .*?\bView run (.+ )?at:? (https?:\/\/\S+)\s*$/;
const SAVED_LOCALLY = /^wandb: Run data is saved locally in (.+?)\s*$/;
const OFFLINE_DIR = /(?:^|[/\\])offline-run-[^/\\]+$/;

/** The event of a `wandb: ` line (`line` without escape codes), or null. `footer`: the run line
 *  names the run (`View run NAME at: URL`, wandb.finish()'s): the same run as the header's. */
export function wandbEvent(line: string): (WandbEvent & { footer?: true }) | null {
  if (!line.startsWith('wandb: ')) return null;
  const run = VIEW_RUN.exec(line);
  if (run !== null) return { type: 'wandb', url: run[2], time: null, ...(run[1] ? { footer: true as const } : {}) };
  const saved = SAVED_LOCALLY.exec(line);
  if (saved !== null && OFFLINE_DIR.test(saved[1]))
    return { type: 'wandb', url: null, dir: saved[1], offline: true, time: null };
  return null;
}
