// Train-engine dataclasses of areal/api/cli_args.py (TrainEngineConfig, PPOActorConfig, ...).
import { any, bool, dict, float, int, list, MISSING, obj, opt, str, type Field } from './dsl.js';

export const normConfig = obj('NormConfig', {
  mean_level: opt(str(), 'batch'),
  mean_leave1out: bool(false),
  std_level: opt(str(), 'batch'),
  std_unbiased: bool(true),
  eps: float(1e-5),
  group_size: int(1),
});

export const microBatchSpec = obj('MicroBatchSpec', {
  n_mbs: opt(int(), 1),
  granularity: int(1),
  max_tokens_per_mb: opt(int()),
  n_mbs_divisor: int(1),
});

export const optimizerConfig = obj('OptimizerConfig', {
  type: str('adam'),
  lr: float(1e-3),
  weight_decay: float(0.01),
  beta1: float(0.9),
  beta2: float(0.999),
  eps: float(1e-8),
  min_lr_ratio: float(0.0),
  lr_scheduler_max_steps: opt(int()),
  lr_scheduler_type: str('constant'),
  warmup_steps_proportion: float(0.001),
  offload: bool(false),
  initial_loss_scale: float(2 ** 32),
  min_loss_scale: float(1.0),
  loss_scale_window: float(5),
  hysteresis: int(2),
  gradient_clipping: float(1.0),
});

const fsdpEngine = obj('FSDPEngineConfig', {
  wrap_policy: opt(obj('FSDPWrapPolicy', { transformer_layer_cls_to_wrap: opt(list(str())) })),
  offload_params: bool(false),
  memory_efficient_load: bool(false),
});

const archonEngine = obj('ArchonEngineConfig', {
  attn_type: str('varlen'),
  offload_params: bool(false),
  enable_compile: bool(true),
  ac_mode: str('selective'),
  selective_ac_option: str('op'),
  ac_memory_budget: float(0.5),
  ac_preserve_rng_state: bool(false),
  ac_debug: bool(false),
  pp_schedule: str('Interleaved1F1B'),
  pp_layers_per_stage: opt(int()),
  pp_first_stage_less_layers: int(1),
  pp_last_stage_less_layers: int(1),
});

const ddpConfig = obj('DistributedDataParallelConfig', {
  grad_reduce_in_fp32: bool(true),
  overlap_grad_reduce: bool(false),
  overlap_param_gather: bool(false),
  align_param_gather: bool(false),
  use_distributed_optimizer: bool(true),
  check_for_nan_in_grad: bool(false),
  bucket_size: opt(int()),
  average_in_collective: bool(false),
  fp8_param_gather: bool(false),
});

const fp8Config = obj('FP8EngineConfig', {
  mode: str('e4m3'),
  recipe: str('delayed'),
  param: bool(false),
  margin: int(0),
  amax_history_len: int(1),
  amax_compute_algo: str('most_recent'),
  wgrad: bool(true),
  dot_product_attention: bool(false),
  multi_head_attention: bool(false),
  tp_only_amax_red: bool(false),
  first_last_layers_bf16: bool(false),
  num_layers_at_start_in_bf16: int(1),
  num_layers_at_end_in_bf16: int(1),
  direct_convert: bool(true),
});

const megatronEngine = obj('MegatronEngineConfig', {
  wrap_with_ddp: bool(true),
  use_torch_fsdp2: bool(false),
  use_custom_fsdp: bool(false),
  ddp: ddpConfig,
  virtual_pipeline_parallel_size: int(1),
  overlap_param_gather_with_optimizer_step: bool(false),
  use_precision_aware_optimizer: bool(false),
  main_grads_dtype: str('float32'),
  main_params_dtype: str('float32'),
  exp_avg_dtype: str('float32'),
  exp_avg_sq_dtype: str('float32'),
  async_save: bool(false),
  use_checkpoint_opt_param_scheduler: bool(true),
  use_deterministic_algorithms: bool(false),
  recompute_granularity: opt(str(), 'full'),
  recompute_method: opt(str(), 'uniform'),
  recompute_num_layers: opt(int(), 1),
  distribute_saved_activations: opt(bool()),
  recompute_modules: opt(list(str())),
  moe_router_dtype: opt(str(), 'fp32'),
  moe_shared_expert_overlap: bool(false),
  moe_enable_deepep: bool(false),
  moe_token_dispatcher_type: str('alltoall'),
  moe_permute_fusion: bool(false),
  fp8_config: opt(fp8Config),
});

export const schedulingStrategy = obj('SchedulingStrategy', {
  type: str('separation'),
  target: opt(str()),
  fork: bool(true),
});

export const schedulingSpec = obj('SchedulingSpec', {
  cpu: int(8),
  gpu: int(0),
  mem: int(32),
  port_count: int(2),
  image: str('/tmp/areal-test/images/areal-latest.sif'),
  task_type: str('worker'),
  env_vars: dict(str()),
  cmd: opt(str()),
  srun_additional_args: str('--unbuffered --mpi=pmi2 -K --chdir $PWD'),
  additional_bash_cmds: opt(list(str())),
  container_type: str('apptainer'),
  mount: str('/storage:/storage'),
  nodelist: opt(str()),
  exclude: opt(str()),
});

/** `tuple[SchedulingSpec, ...]` defaulting to one spec whose cmd is the RPC server. */
export const schedulingSpecs = list(schedulingSpec, [{ cmd: 'python -m areal.infra.rpc.rpc_server' }]);

const trainEngineFields: Record<string, Field> = {
  experiment_name: str(MISSING),
  trial_name: str(MISSING),
  path: str(''),
  attn_impl: str('flash_attention_2'),
  init_from_scratch: bool(false),
  is_critic: bool(false),
  temperature: float(1.0),
  mb_spec: microBatchSpec,
  pad_to_maximum: bool(false),
  disable_dropout: bool(false),
  gradient_checkpointing: bool(false),
  dtype: str('bfloat16'),
  grad_reduce_dtype: str('float32'),
  optimizer: opt(optimizerConfig),
  weight_update_mode: str('xccl'),
  fsdp: fsdpEngine,
  archon: archonEngine,
  megatron: megatronEngine,
  use_lora: bool(false),
  lora_rank: int(32),
  lora_alpha: int(16),
  target_modules: list(str()),
  peft_type: str('lora'),
  enable_tree_training: bool(false),
  scheduling_spec: schedulingSpecs,
  scheduling_strategy: schedulingStrategy,
};

export const ppoActorConfig = obj('PPOActorConfig', {
  ...trainEngineFields,
  ppo_n_minibatches: int(4),
  ppo_n_epochs: int(1),
  eps_clip: float(0.2),
  eps_clip_higher: opt(float()),
  c_clip: opt(float()),
  m2_threshold: opt(float()),
  reward_norm: opt(normConfig),
  reward_scaling: float(1.0),
  reward_bias: float(0.0),
  reward_clip: float(20.0),
  overlong_reward_penalty: bool(false),
  overlong_tokens: opt(int()),
  overlong_penalty_factor: opt(float()),
  mask_no_eos_with_zero: bool(false),
  step_adv_const_length: opt(float()),
  discount: float(1.0),
  gae_lambda: float(1.0),
  adv_norm: opt(normConfig),
  kl_ctl: float(0.1),
  kl_estimator: str('k1'),
  kl_use_prox: bool(false),
  use_frpo_loss_term: bool(false),
  frpo_clip_eps: float(0.2),
  frpo_length_norm: bool(false),
  use_frpo_weight_clip: bool(false),
  frpo_weight_clip_eps: float(0.2),
  use_sapo_loss: bool(false),
  sapo_tau_pos: float(1.0),
  sapo_tau_neg: float(1.05),
  recompute_logprob: bool(false),
  use_decoupled_loss: bool(false),
  behav_imp_weight_cap: opt(float()),
  importance_sampling_level: str('token'),
  prox_logp_method: str('recompute'),
  log_agent_stats: bool(false),
  log_agent_stats_keys: list(str()),
  critic_loss: str('none'),
  actor_loss: str('grpo'),
  archer_gamma: float(0.95),
  filter_unchanged_screenshot: bool(false),
  max_new_tokens: int(1024),
});

export const ppoCriticConfig = obj('PPOCriticConfig', {
  ...trainEngineFields,
  n_minibatches: int(1),
  eps_clip: float(0.5),
  mask_no_eos_with_zero: bool(false),
});

export { any };
