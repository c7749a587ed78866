// The root: webgym/configs.py WebGymConfig(GRPOConfig(PPOConfig(BaseExperimentConfig))).
import { any, bool, dict, float, int, list, MISSING, obj, opt, str } from './dsl.js';
import { ppoActorConfig, ppoCriticConfig } from './engine.js';
import { generationHyperparameters, inferenceEngineConfig, sglangConfig, vllmConfig } from './inference.js';

const timer = (name: string, extra: Parameters<typeof obj>[1] = {}) =>
  obj(name, {
    experiment_name: str(MISSING),
    trial_name: str(MISSING),
    fileroot: str(MISSING),
    freq_epochs: opt(int()),
    freq_steps: opt(int()),
    freq_secs: opt(int()),
    ...extra,
  });

const dataset = (name: string, shuffle: boolean, dropLast: boolean) =>
  obj(name, {
    path: str(MISSING),
    type: str(MISSING),
    batch_size: int(1),
    shuffle: bool(shuffle),
    pin_memory: bool(false),
    num_workers: int(0),
    drop_last: bool(dropLast),
    max_length: opt(int()),
  });

const statsLogger = obj('StatsLoggerConfig', {
  experiment_name: str(MISSING),
  trial_name: str(MISSING),
  fileroot: str(MISSING),
  wandb: obj('WandBConfig', {
    mode: str('disabled'),
    wandb_base_url: str(''),
    wandb_api_key: str(''),
    entity: opt(str()),
    project: opt(str()),
    name: opt(str()),
    job_type: opt(str()),
    group: opt(str()),
    notes: opt(str()),
    tags: opt(list(str())),
    config: opt(dict()),
    id_suffix: opt(str(), 'train'),
  }),
  swanlab: obj('SwanlabConfig', {
    project: opt(str()),
    name: opt(str()),
    config: opt(dict()),
    logdir: opt(str()),
    mode: opt(str(), 'disabled'),
    // The trainer reads SWANLAB_API_KEY from its environment at import time; we never read values.
    api_key: opt(str()),
  }),
  tensorboard: obj('TensorBoardConfig', { path: opt(str()) }),
});

const perfTracer = obj('PerfTracerConfig', {
  experiment_name: str(MISSING),
  trial_name: str(MISSING),
  fileroot: str(MISSING),
  enabled: bool(false),
  save_interval: int(1),
  profile_steps: opt(list(int())),
  session_tracer: opt(obj('SessionTracerConfig', { enabled: bool(false), flush_threshold: int(256) })),
});

const cluster = obj('ClusterSpecConfig', {
  name_resolve: obj('NameResolveConfig', {
    type: str('nfs'),
    nfs_record_root: str('/tmp/areal/name_resolve'),
    etcd3_addr: str('localhost:2379'),
    ray_actor_name: str('ray_kv_store'),
  }),
  cluster_name: str('local'),
  fileroot: str('/tmp/areal/'),
  n_nodes: int(32),
  n_gpus_per_node: int(8),
});

const scheduler = obj('SchedulerConfig', {
  type: opt(str()),
  endpoint: str('http://localhost:8081'),
  deploy_mode: str('separation'),
  functioncall_service_domain: str('http://localhost:8080'),
  reward_functioncall_config: dict(),
  reward_model_path: str(''),
  reward_model_service_url: str('http://localhost:30000/classify'),
});

const testRollout = obj('TestRolloutConfig', {
  enabled: bool(false),
  n_gpus: int(4),
  max_new_tokens: int(3072),
  greedy: bool(true),
  max_tasks: opt(int()),
  max_concurrent_per_gpu: int(24),
  log_interval_frac: float(0.1),
  base_model_checkpoint: opt(str()),
});

export const webGymConfig = obj('WebGymConfig', {
  experiment_name: str(MISSING),
  trial_name: str(MISSING),
  cluster,
  allocation_mode: str(''),
  seed: int(1),
  enable_offload: bool(false),
  total_train_epochs: int(1),
  total_train_steps: opt(int()),
  total_train_n_seqs: opt(int()),
  tokenizer_path: str(''),
  train_dataset: dataset('TrainDatasetConfig', true, true),
  valid_dataset: opt(dataset('ValidDatasetConfig', false, false)),
  saver: timer('SaverConfig', { mode: str('auto') }),
  evaluator: timer('EvaluatorConfig'),
  stats_logger: statsLogger,
  perf_tracer: opt(perfTracer),
  recover: timer('RecoverConfig', { mode: str('auto'), retries: int(3), load_only: str('all') }),
  sglang: sglangConfig,
  vllm: vllmConfig,
  scheduler,
  gconfig: generationHyperparameters,
  eval_gconfig: opt(generationHyperparameters),
  rollout: inferenceEngineConfig,
  actor: ppoActorConfig,
  ref: opt(ppoActorConfig),
  critic: opt(ppoCriticConfig),
  dynamic_bs: bool(false),
  webgym: dict(),
  openai_config: opt(dict()),
  test_rollout: testRollout,
});

export { any, float };
