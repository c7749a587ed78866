// allocation_mode grammar, GPUs against the cluster, and the trainer's batch divisibility check.
import { parseAllocationMode } from '../allocation-mode.js';
import { get, type Rule, type RuleFinding } from './context.js';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export const allocationRules: Rule = ({ cfg }) => {
  const out: RuleFinding[] = [];
  const mode = cfg.allocation_mode;
  if (typeof mode !== 'string') return out;
  const a = parseAllocationMode(mode);
  if (!a.ok) {
    out.push({
      severity: 'error',
      code: 'allocation-mode',
      key: 'allocation_mode',
      message: `allocation_mode '${mode}' (column ${a.col}): ${a.message}`,
    });
    return out;
  }
  const nodes = get(cfg, 'cluster.n_nodes');
  const perNode = get(cfg, 'cluster.n_gpus_per_node');
  const testGpus = get(cfg, 'test_rollout.enabled') ? Number(get(cfg, 'test_rollout.n_gpus') ?? 0) : 0;
  if (typeof nodes === 'number' && typeof perNode === 'number') {
    const have = nodes * perNode;
    const used = a.totalGpus + testGpus;
    const what = testGpus
      ? `${a.totalGpus} (allocation_mode) + ${testGpus} (test_rollout.n_gpus) = ${used}`
      : `${used}`;
    if (used > have)
      out.push({
        severity: 'error',
        code: 'gpu-count',
        key: 'allocation_mode',
        message: `allocation uses ${what} GPUs but the cluster has ${nodes} x ${perNode} = ${have}; shrink allocation_mode or raise cluster.n_nodes / cluster.n_gpus_per_node`,
      });
    else if (used < have)
      out.push({
        severity: 'warning',
        code: 'gpu-count',
        key: 'allocation_mode',
        message: `allocation uses ${what} GPUs of the ${nodes} x ${perNode} = ${have} the cluster has; ${have - used} would sit idle`,
      });
  }
  // webgym/train.py with the test rollout on (and a valid_dataset): it splits the rollout slots by
  // `alloc.gen.data_parallel_size` and `test_share // test_rollout.n_gpus` before anything starts.
  if (get(cfg, 'test_rollout.enabled') === true && get(cfg, 'valid_dataset') != null) {
    const tn = get(cfg, 'test_rollout.n_gpus');
    if (typeof tn === 'number' && tn <= 0)
      out.push({
        severity: 'error',
        code: 'test-rollout',
        key: 'test_rollout.n_gpus',
        message: `test_rollout.enabled with test_rollout.n_gpus=${tn}: the trainer divides the eval rollout slots by it and stops at start (ZeroDivisionError); give it GPUs (e.g. 8) or set test_rollout.enabled: false`,
      });
    if (!a.components.some((c) => c.backend === 'sglang' || c.backend === 'vllm'))
      out.push({
        severity: 'error',
        code: 'test-rollout',
        key: 'test_rollout.enabled',
        message: `test_rollout.enabled but allocation_mode '${mode}' has no inference component (sglang or vllm): the trainer sizes the split from it and stops at start; add one or set test_rollout.enabled: false`,
      });
  }
  const n = get(cfg, 'gconfig.n_samples');
  const cbs = get(cfg, 'rollout.consumer_batch_size');
  // webgym/train.py reads `AllocationMode.train.data_parallel_size`: it needs exactly one training
  // component (none → None has no attribute; several → "Ambiguous 'train' property").
  const training = a.components.filter((c) => c.backend === null || ['fsdp', 'megatron', 'archon'].includes(c.backend));
  if (typeof n === 'number' && n > 1 && training.length !== 1) {
    out.push({
      severity: 'error',
      code: 'allocation-mode',
      key: 'allocation_mode',
      message:
        training.length === 0
          ? `allocation_mode '${mode}' has no training component; add one, e.g. +fsdp[actor]:d4`
          : `allocation_mode '${mode}' has ${training.length} training components; the trainer needs exactly one to size the batch (it fails with "Ambiguous 'train' property")`,
    });
    return out;
  }
  const dp = a.actorDp;
  // The trainer checks only when n_samples > 1 (webgym/train.py).
  if (typeof n === 'number' && n > 1 && typeof cbs === 'number' && dp) {
    const lcm = (n * dp) / gcd(n, dp);
    if (cbs % lcm !== 0) {
      const lo = Math.floor(cbs / lcm) * lcm || lcm;
      const hi = (Math.floor(cbs / lcm) + 1) * lcm;
      out.push({
        severity: 'error',
        code: 'batch-divisibility',
        key: 'rollout.consumer_batch_size',
        message: `consumer_batch_size=${cbs} is not divisible by LCM(n_samples=${n}, dp_size=${dp})=${lcm}. Valid values near ${cbs}: ${lo}, ${hi}.`,
      });
    }
  }
  return out;
};
