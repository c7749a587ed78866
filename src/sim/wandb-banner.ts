// What wandb prints on the trainer's stderr when StatsLogger calls wandb.init() and wandb.finish()
// (wandb 0.23's header and footer, as a captured stdout shows them: trainer.md §8), for the run
// stats_logger.py starts: id `{exp}_{trial}_{suffix}` (suffix kept in `{fileroot}/wandb_id`), project
// `wandb.project` or the experiment, name `{exp}/{trial}`, dir the run's log dir. Mode `disabled`
// prints nothing; `offline` prints the local run dir, and at the end the `wandb sync` command.
import type { SimPlan } from './plan.js';
import { logTimestamp } from './pyfmt.js';
import { wandbAppUrl } from '../runs/wandb-expected.js';

export interface WandbSettings {
  mode: string;
  entity: string | null;
  project: string | null;
  baseUrl: string | null;
  /** stats_logger.wandb.id_suffix: `timestamp` keeps one in `{fileroot}/wandb_id` (default `train`). */
  idSuffix: string;
}

export interface WandbRun {
  url: string | null;
  dir: string;
  name: string;
  offline: boolean;
}

/** The run wandb.init() makes for this plan (null: mode disabled). `entity` null: the logged-in
 *  user's default entity, which the simulator takes to be the Unix user. */
export function wandbRun(plan: SimPlan, w: WandbSettings, suffix: string, nowMs: number): WandbRun | null {
  if (w.mode === 'disabled') return null;
  const id = `${plan.experimentName}_${plan.trialName}_${suffix}`;
  const offline = w.mode === 'offline';
  // `run-20260525_121955-ID`: wandb's run dir, named by its start (local time).
  const stamp = logTimestamp(nowMs).slice(0, 17).replace('-', '_').replace(/:/g, '');
  const dir = `${plan.logDir}/wandb/${offline ? 'offline-run' : 'run'}-${stamp}-${id}`;
  const app = wandbAppUrl(w.baseUrl ?? '');
  const url = offline ? null : `${app}/${w.entity ?? plan.user}/${w.project ?? plan.experimentName}/runs/${id}`;
  return { url, dir, name: `${plan.experimentName}/${plan.trialName}`, offline };
}

/** The header wandb.init() prints; `resumed`: the id's run already exists (a restart). */
export function wandbHeader(run: WandbRun, w: WandbSettings, user: string, resumed: boolean): string[] {
  if (run.offline)
    return [
      'wandb: Tracking run with wandb version 0.23.1',
      'wandb: W&B syncing is set to `offline` in this directory. Run `wandb online` or set WANDB_MODE=online to enable cloud syncing.',
      `wandb: Run data is saved locally in ${run.dir}`,
    ];
  const project = run.url!.replace(/\/runs\/[^/]+$/, '');
  return [
    `wandb: Currently logged in as: ${user} (${w.entity ?? user}) to ${w.baseUrl ?? 'https://api.wandb.ai'}. Use \`wandb login --relogin\` to force relogin`,
    'wandb: Tracking run with wandb version 0.23.1',
    `wandb: Run data is saved locally in ${run.dir}`,
    'wandb: Run `wandb offline` to turn off syncing.',
    `wandb: ${resumed ? 'Resuming' : 'Syncing'} run ${run.name}`,
    `wandb: ⭐️ View project at ${project}`,
    `wandb: 🚀 View run at ${run.url}`,
  ];
}

/** The footer wandb.finish() prints. */
export function wandbFooter(run: WandbRun): string[] {
  if (run.offline) return ['wandb: You can sync this run to the cloud by running:', `wandb: wandb sync ${run.dir}`];
  return [`wandb: 🚀 View run ${run.name} at: ${run.url}`, `wandb: Find logs at: ${run.dir}/logs`];
}
