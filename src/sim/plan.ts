// What the simulator takes from the trainer's resolved config: the handful of fields that shape a
// run (issue 4), with the trainer's own defaults where a field is absent. Pure.
import { parseAllocationMode } from '../config/index.js';
import type { TestRolloutPlan } from './test-rollout.js';
import type { WandbSettings } from './wandb-banner.js';

export type SchedulerType = 'local' | 'ray' | 'slurm';

export interface AllocComponent {
  backend: string;
  name: string;
  gpus: number;
  dp: number;
}

export interface SimPlan {
  experimentName: string;
  trialName: string;
  fileroot: string;
  user: string;
  /** `<fileroot>/logs/<user>/<experiment>/<trial>` */
  logDir: string;
  /** `<fileroot>/checkpoints/<user>/<experiment>/<trial>` (recover_info/ lives here) */
  ckptDir: string;
  nNodes: number;
  gpusPerNode: number;
  rollout: AllocComponent;
  actor: AllocComponent;
  epochs: number;
  stepsPerEpoch: number;
  /** What `Train step g/G` prints as G: FinetuneSpec.total_train_steps = epochs × steps per epoch. */
  totalSteps: number;
  /** The step the trainer stops after: `total_train_steps` when set ("Terminate training after
   *  this number of steps"; rl_trainer.py breaks out of its loop there), else totalSteps. */
  lastStep: number;
  /** webgym's test rollout thread (`test_rollout.enabled`), null when off. */
  testRollout: TestRolloutPlan | null;
  /** stats_logger.wandb (mode `disabled` when absent: the simulator prints no banner then). */
  wandb: WandbSettings;
  trainBatchSize: number;
  consumerBatchSize: number;
  nSamples: number;
  maxHeadOffpolicyness: number;
  scheduler: SchedulerType;
  lr: number;
  warmupProportion: number;
  lrMaxSteps: number;
  minLrRatio: number;
  klCtl: number;
  /** `enable_offload`: the actor offloads between steps and logs `Memory-Usage after onload model`. */
  offload: boolean;
  recoverFreqSteps: number | null;
  recoverFreqSecs: number | null;
  recoverFreqEpochs: number | null;
  evalFreqEpochs: number | null;
  maxConcurrentPerWorker: number;
  maxConcurrentRollouts: number;
  seed: number;
  /** `rollout.dump_to_file`: episodes and screenshots under `LOG/rollout/<version>/`. */
  dumpToFile: boolean;
}

type Json = Record<string, unknown>;

function at(root: Json, path: string): unknown {
  let cur: unknown = root;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[p];
  }
  return cur;
}
const num = (root: Json, path: string, dflt: number): number => {
  const v = at(root, path);
  return typeof v === 'number' && Number.isFinite(v) ? v : dflt;
};
const numOrNull = (root: Json, path: string): number | null => {
  const v = at(root, path);
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
};
const str = (root: Json, path: string, dflt: string): string => {
  const v = at(root, path);
  return typeof v === 'string' && v !== '' ? v : dflt;
};

/** GPUs and data-parallel size per component of allocation_mode, read with the config engine's parser. */
export function allocationComponents(mode: string): AllocComponent[] {
  const r = parseAllocationMode(mode);
  if (!r.ok) return [];
  return r.components.map((c) => {
    const isInfer = c.backend === 'sglang' || c.backend === 'vllm';
    return {
      backend: c.backend ?? '',
      name: c.name ?? (isInfer ? 'rollout' : 'actor'),
      gpus: c.gpus,
      dp: c.dims.d ?? 1,
    };
  });
}

export interface PlanInput {
  resolved: Json;
  experimentName: string;
  trialName: string;
  user: string;
  /** Tasks in the training set (the simulator has no dataset; AWRL_SIM_DATASET_SIZE). */
  datasetSize: number;
  /** Tasks in the test set (the eval rounds' size without test_rollout.max_tasks); default 80. */
  evalTasks?: number;
}

export function planFromConfig(inp: PlanInput): SimPlan {
  const r = inp.resolved;
  const fileroot = str(r, 'cluster.fileroot', '/tmp/areal');
  const comps = allocationComponents(str(r, 'allocation_mode', 'sglang:d1+fsdp:d1'));
  const rollout = comps.find((c) => c.backend === 'sglang' || c.backend === 'vllm' || c.name === 'rollout') ?? {
    backend: 'sglang',
    name: 'rollout',
    gpus: 1,
    dp: 1,
  };
  const actor = comps.find((c) => c !== rollout) ?? { backend: 'fsdp', name: 'actor', gpus: 1, dp: 1 };
  const trainBatchSize = Math.max(1, num(r, 'train_dataset.batch_size', 128));
  const stepsPerEpoch = Math.max(1, Math.floor(inp.datasetSize / trainBatchSize));
  const epochs = Math.max(1, num(r, 'total_train_epochs', 1));
  const sched = str(r, 'scheduler.type', 'local');
  return {
    experimentName: inp.experimentName,
    trialName: inp.trialName,
    fileroot,
    user: inp.user,
    logDir: `${fileroot}/logs/${inp.user}/${inp.experimentName}/${inp.trialName}`,
    ckptDir: `${fileroot}/checkpoints/${inp.user}/${inp.experimentName}/${inp.trialName}`,
    nNodes: num(r, 'cluster.n_nodes', 1),
    gpusPerNode: num(r, 'cluster.n_gpus_per_node', 8),
    rollout,
    actor,
    epochs,
    stepsPerEpoch,
    totalSteps: epochs * stepsPerEpoch,
    lastStep: Math.min(epochs * stepsPerEpoch, Math.floor(numOrNull(r, 'total_train_steps') ?? Infinity)),
    testRollout:
      at(r, 'test_rollout.enabled') === true
        ? {
            nGpus: num(r, 'test_rollout.n_gpus', 4),
            maxConcurrentPerGpu: num(r, 'test_rollout.max_concurrent_per_gpu', 24),
            tasks: Math.max(1, num(r, 'test_rollout.max_tasks', inp.evalTasks ?? 80)),
            logIntervalFrac: num(r, 'test_rollout.log_interval_frac', 0.1),
            baseCheckpoint: str(r, 'test_rollout.base_model_checkpoint', '') || null,
          }
        : null,
    wandb: {
      mode: str(r, 'stats_logger.wandb.mode', 'disabled'),
      entity: str(r, 'stats_logger.wandb.entity', '') || null,
      project: str(r, 'stats_logger.wandb.project', '') || null,
      baseUrl: str(r, 'stats_logger.wandb.wandb_base_url', '') || null,
      idSuffix: str(r, 'stats_logger.wandb.id_suffix', '') || 'train',
    },
    trainBatchSize,
    consumerBatchSize: Math.max(1, num(r, 'rollout.consumer_batch_size', trainBatchSize)),
    nSamples: Math.max(1, num(r, 'gconfig.n_samples', 1)),
    maxHeadOffpolicyness: Math.max(0, num(r, 'rollout.max_head_offpolicyness', 0)),
    scheduler: sched === 'ray' || sched === 'slurm' ? sched : 'local',
    lr: num(r, 'actor.optimizer.lr', 5e-6),
    warmupProportion: num(r, 'actor.optimizer.warmup_steps_proportion', 0),
    lrMaxSteps: num(r, 'actor.optimizer.lr_scheduler_max_steps', epochs * stepsPerEpoch),
    minLrRatio: num(r, 'actor.optimizer.min_lr_ratio', 0),
    klCtl: num(r, 'actor.kl_ctl', 0),
    offload: at(r, 'enable_offload') === true,
    recoverFreqSteps: numOrNull(r, 'recover.freq_steps'),
    recoverFreqSecs: numOrNull(r, 'recover.freq_secs'),
    recoverFreqEpochs: numOrNull(r, 'recover.freq_epochs'),
    evalFreqEpochs: numOrNull(r, 'evaluator.freq_epochs'),
    maxConcurrentPerWorker: num(r, 'rollout.max_concurrent_per_worker', 32),
    maxConcurrentRollouts: num(r, 'rollout.max_concurrent_rollouts', 128),
    seed: num(r, 'seed', 1),
    dumpToFile: at(r, 'rollout.dump_to_file') === true,
  };
}

/** Python's getpass.getuser(): the first of LOGNAME, USER, LNAME, USERNAME, else the account name. */
export function pythonUser(env: Record<string, string | undefined>, accountName: string): string {
  for (const k of ['LOGNAME', 'USER', 'LNAME', 'USERNAME']) {
    const v = env[k];
    if (v) return v;
  }
  return accountName;
}

/** Step coordinates: 1-based global step -> (0-based epoch, 0-based step in epoch). */
export function stepCoords(plan: SimPlan, globalStep1: number): { epoch: number; epochStep: number } {
  const g = globalStep1 - 1;
  return { epoch: Math.floor(g / plan.stepsPerEpoch), epochStep: g % plan.stepsPerEpoch };
}
