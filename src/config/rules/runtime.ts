// Scheduler, name resolution, recovery and experiment tracking.
import { get, type Rule, type RuleFinding } from './context.js';

const SCHEDULERS = ['local', 'ray', 'slurm'];
const NAME_RESOLVE = ['nfs', 'etcd3', 'ray'];

export const runtimeRules: Rule = ({ cfg, envNames }) => {
  const out: RuleFinding[] = [];
  const sched = get(cfg, 'scheduler.type');
  if (!SCHEDULERS.includes(sched))
    out.push({
      severity: 'error',
      code: 'scheduler-type',
      key: 'scheduler.type',
      message: `scheduler.type is ${sched === null || sched === undefined ? 'not set (the trainer fails with "Unknown scheduler type: None")' : `'${sched}'`}; use local, ray or slurm`,
    });
  const nr = get(cfg, 'cluster.name_resolve.type');
  if (typeof nr === 'string' && !NAME_RESOLVE.includes(nr))
    out.push({
      severity: 'error',
      code: 'name-resolve-type',
      key: 'cluster.name_resolve.type',
      message: `cluster.name_resolve.type '${nr}' is not supported; use nfs, etcd3 or ray${nr === 'local' ? ' (there is no local: use nfs on one node)' : ''}`,
    });
  if (sched === 'slurm' && get(cfg, 'recover.freq_secs') == null)
    out.push({
      severity: 'warning',
      code: 'recover-freq',
      key: 'recover.freq_secs',
      message:
        'recover.freq_secs is not set while Slurm enforces a wall-clock limit; set it (e.g. 1200) so a killed job resumes from a recent checkpoint',
    });
  const saverMode = get(cfg, 'saver.mode');
  if (typeof saverMode === 'string' && !['auto', 'sync', 'async'].includes(saverMode))
    out.push({
      severity: 'error',
      code: 'saver-mode',
      key: 'saver.mode',
      message: `saver.mode '${saverMode}' is not valid; use auto, sync or async`,
    });
  if (get(cfg, 'stats_logger.wandb.mode') === 'online' && !envNames.has('WANDB_API_KEY'))
    out.push({
      severity: 'error',
      code: 'wandb-api-key',
      key: 'stats_logger.wandb.mode',
      message:
        'stats_logger.wandb.mode is online but WANDB_API_KEY is not set; export WANDB_API_KEY, or set stats_logger.wandb.mode: disabled',
    });
  return out;
};
