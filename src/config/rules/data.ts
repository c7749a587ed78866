// Datasets: the WebGym loader is chosen by the path, and only RL datasets are trained.
import { get, type Rule, type RuleFinding } from './context.js';

export const dataRules: Rule = ({ cfg }) => {
  const out: RuleFinding[] = [];
  const cbs = get(cfg, 'rollout.consumer_batch_size');
  const bs = get(cfg, 'train_dataset.batch_size');
  if (typeof cbs === 'number' && typeof bs === 'number' && cbs !== bs)
    out.push({
      severity: 'warning',
      code: 'batch-size-mismatch',
      key: 'train_dataset.batch_size',
      message: `train_dataset.batch_size=${bs} differs from rollout.consumer_batch_size=${cbs}; set both to the same value`,
    });
  for (const ds of ['train_dataset', 'valid_dataset']) {
    const d = cfg[ds];
    if (!d || typeof d !== 'object') continue;
    if (typeof d.path === 'string' && !d.path.includes('webgym'))
      out.push({
        severity: 'error',
        code: 'dataset-path',
        key: `${ds}.path`,
        message: `${ds}.path '${d.path}' does not contain 'webgym': the trainer picks its WebGym dataset loader by that substring; point it at the webgym_tasks jsonl`,
      });
    if (typeof d.type === 'string' && d.type !== 'rl')
      out.push({
        severity: 'error',
        code: 'dataset-type',
        key: `${ds}.type`,
        message: `${ds}.type is '${d.type}'; the GRPO trainer needs type: rl`,
      });
  }
  return out;
};
