// Seeded, plausible numbers for one train step: reward rising with noise toward a plateau,
// per-difficulty rewards, staleness inside the off-policy budget, per-phase timings, controller
// memory per phase, token counts. Pure: the same (seed, step, attempt) gives the same step.
import { Rng } from './rng.js';
import { statKeys } from './keys.js';
import type { SimPlan } from './plan.js';
import type { SimPhase } from './faults.js';

export interface MemorySample {
  phase: 'recompute logp' | 'ref logp' | 'compute advantages' | 'ppo update';
  allocatedGB: number;
  reservedGB: number;
  usedGB: number;
  totalGB: number;
}

export interface BatchLine {
  pendingBefore: number;
  consumed: number;
  waitS: number;
  concatS: number;
  totalS: number;
  shape: [number, number];
  nEpisodes: number;
}

export interface StepInput {
  plan: SimPlan;
  /** 1-based global step. */
  step: number;
  /** How many times this trainer process was started for this trial (0 = first): repeated steps differ. */
  attempt: number;
  /** Simulated seconds per nominal trainer second (1 / speed). */
  timeScale: number;
  zeroReward: boolean;
  nanGrad: boolean;
  omniboxFailures: number;
  episodeTimeouts: number;
  evalStep: boolean;
  saveStep: boolean;
}

export interface StepDynamics {
  /** Phase durations in simulated seconds, in the order they run. */
  durations: Array<[SimPhase, number]>;
  memory: MemorySample[];
  batch: BatchLine;
  /** The stats table (raw values; the writer prints them `.4e`). */
  stats: Array<[string, number]>;
}

const r2 = (x: number): number => Math.round(x * 100) / 100;
const r1 = (x: number): number => Math.round(x * 10) / 10;
const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
export const DEVICE_TOTAL_GB = 79.11;

/** Mean reward of the policy at a step: rises from ~0.12 toward a ~0.55 plateau. */
export function rewardCurve(plan: SimPlan, step: number): number {
  const tau = Math.max(8, plan.totalSteps / 3);
  return 0.12 + 0.43 * (1 - Math.exp(-step / tau));
}

/** Cosine schedule with linear warmup, as the actor's optimizer config asks. */
export function learningRate(plan: SimPlan, step: number): number {
  const warm = Math.max(0, Math.round(plan.warmupProportion * plan.lrMaxSteps));
  const s = step - 1;
  if (warm > 0 && s < warm) return (plan.lr * (s + 1)) / warm;
  const progress = Math.min(1, (s - warm) / Math.max(1, plan.lrMaxSteps - warm));
  const minLr = plan.lr * plan.minLrRatio;
  return minLr + (plan.lr - minLr) * 0.5 * (1 + Math.cos(Math.PI * progress));
}

export function stepDynamics(inp: StepInput): StepDynamics {
  const { plan, step } = inp;
  const rng = Rng.of(plan.seed, step, inp.attempt);
  const B = plan.consumerBatchSize;
  const ts = inp.timeScale;

  // Nominal phase times of the real 64-GPU run (fixture run-a): ~10 min per step, mostly rollout wait.
  const nominal: Array<[SimPhase, number]> = [
    ['rollout_wait', rng.uniform(480, 690)],
    ['recompute_logp', rng.uniform(6, 40)],
  ];
  if (plan.klCtl > 0) nominal.push(['ref_logp', rng.uniform(6, 30)]);
  nominal.push(
    ['compute_advantages', rng.uniform(10, 35)],
    ['ppo_update', rng.uniform(9, 40)],
    ['update_weights', rng.uniform(1, 20)],
  );
  if (inp.saveStep) nominal.push(['save', rng.uniform(15, 25)]);
  const durations = nominal.map(([p, s]) => [p, s * ts] as [SimPhase, number]);
  const dur = (p: SimPhase): number => durations.find(([q]) => q === p)?.[1] ?? 0;

  const memory: MemorySample[] = [];
  const mem = (phase: MemorySample['phase'], alloc: number, reserved: number): void => {
    const reservedGB = r2(reserved);
    memory.push({ phase, allocatedGB: r2(alloc), reservedGB, usedGB: r2(reservedGB + 3.8), totalGB: DEVICE_TOTAL_GB });
  };
  mem('recompute logp', rng.uniform(18.05, 18.7), rng.uniform(59.8, 62.2));
  if (plan.klCtl > 0) mem('ref logp', rng.uniform(18.05, 18.7), rng.uniform(59.8, 62.2));
  mem('compute advantages', rng.uniform(18.1, 18.75), rng.uniform(60.5, 62.2));
  mem('ppo update', rng.uniform(20.9, 21.7), rng.uniform(68.7, 71.6));

  const avgSteps = rng.uniform(8, 11);
  const nSeqs = Math.round(B * avgSteps);
  const maxLen = rng.int(14000, 16000);
  const waitS = r1(dur('rollout_wait'));
  const concatS = r1(4.1 * ts);
  const batch: BatchLine = {
    pendingBefore: rng.int(0, 4),
    consumed: Math.max(1, Math.floor(B / plan.nSamples)),
    waitS,
    concatS,
    totalS: r1(waitS + concatS),
    shape: [nSeqs, maxLen],
    nEpisodes: B,
  };

  const zero = inp.zeroReward;
  const reward = zero ? 0 : clamp01(rewardCurve(plan, step) + rng.normal(0, 0.04));
  const byDiff = (delta: number): number => (zero ? 0 : clamp01(reward + delta + rng.normal(0, 0.03)));
  const v: Record<string, number> = {};
  const trio = (base: string, avg: number, max: number, min: number): void => {
    v[`${base}/avg`] = avg;
    v[`${base}/max`] = max;
    v[`${base}/min`] = min;
  };
  trio(
    'ppo_actor/advantages',
    zero ? 0 : rng.normal(0, 0.03),
    zero ? 0 : rng.uniform(0.8, 1.2),
    zero ? 0 : -rng.uniform(0.2, 0.5),
  );
  v['ppo_actor/behave_cap_ratio'] = rng.uniform(0, 1e-3);
  trio('ppo_actor/final_reward', reward, zero ? 0 : 1, 0);
  const kl = plan.klCtl > 0 ? -rng.uniform(1e-4, 1e-3) : 0;
  trio('ppo_actor/kl_rewards', kl, 0, kl * 3);
  v['ppo_actor/n_seqs'] = nSeqs;
  const nTokens = Math.round(nSeqs * maxLen * rng.uniform(0.68, 0.74));
  const nValid = Math.round(nSeqs * rng.uniform(680, 750));
  v['ppo_actor/n_tokens'] = nTokens;
  v['ppo_actor/n_valid_tokens'] = nValid;
  const prompt = rng.uniform(9800, 11200);
  const resp = nValid / nSeqs;
  trio('ppo_actor/prompt_len', prompt, rng.uniform(14800, 15900), rng.uniform(2900, 3500));
  trio('ppo_actor/response_len', resp, rng.uniform(300, 420), rng.uniform(8, 20));
  trio('ppo_actor/seq_len', prompt + resp, maxLen, rng.uniform(3000, 3600));
  trio('ppo_actor/update/actor_loss', rng.normal(0, 0.01), rng.uniform(0.02, 0.08), -rng.uniform(0.02, 0.08));
  trio('ppo_actor/update/approx_kl', rng.uniform(2e-4, 2e-3), rng.uniform(0.01, 0.05), -rng.uniform(0.01, 0.05));
  trio('ppo_actor/update/behave_imp_weight', 1 + rng.normal(0, 0.005), rng.uniform(2.2, 4.9), rng.uniform(0.3, 0.55));
  trio('ppo_actor/update/clip_ratio', rng.uniform(0.01, 0.03), rng.uniform(0.04, 0.08), rng.uniform(0.002, 0.008));
  trio('ppo_actor/update/entropy', rng.uniform(0.4, 0.6), rng.uniform(1.0, 1.4), rng.uniform(0.15, 0.3));
  v['ppo_actor/update/grad_norm'] = inp.nanGrad ? NaN : rng.uniform(0.15, 0.45);
  trio('ppo_actor/update/importance_weight', 1 + rng.normal(0, 0.02), rng.uniform(1.6, 2.4), rng.uniform(0.45, 0.55));
  v['ppo_actor/update/lr'] = learningRate(plan, step);
  v['ppo_actor/update/n_tokens'] = nTokens;
  v['ppo_actor/update/n_valid_tokens'] = nValid;
  trio('ppo_actor/update/new_logp', -rng.uniform(0.25, 0.4), -rng.uniform(0, 1e-3), -rng.uniform(10, 14));
  trio('ppo_actor/update/old_logp', -rng.uniform(0.25, 0.4), -rng.uniform(0, 1e-3), -rng.uniform(10, 14));
  v['ppo_actor/update/update_successful'] = inp.nanGrad ? 0 : 1;

  // Staleness stays inside the budget: the trainer never uses tokens older than max_head_offpolicyness.
  const version = step - 1;
  const budget = Math.min(plan.maxHeadOffpolicyness, version);
  const offMax = rng.int(0, budget);
  const offMin = rng.int(0, offMax);
  v['staleness/gap/current_version'] = version;
  v['staleness/gap/offpolicy_avg'] = offMax === offMin ? offMin : rng.uniform(offMin, offMax);
  v['staleness/gap/offpolicy_max'] = offMax;
  v['staleness/gap/offpolicy_min'] = offMin;
  v['staleness/versions_per_batch/n_unique'] = offMax - offMin + 1;

  v['timeperf/clear_batches'] = rng.uniform(0.005, 0.02) * ts;
  v['timeperf/compute_advantage'] = dur('compute_advantages');
  v['timeperf/eval'] = inp.evalStep ? rng.uniform(300, 600) * ts : 0;
  v['timeperf/recompute_logp'] = dur('recompute_logp');
  v['timeperf/rollout'] = dur('rollout_wait');
  v['timeperf/train_step'] = dur('ppo_update');
  v['timeperf/update_weights'] = dur('update_weights');
  v['timeperf/save'] = dur('save');

  v['rollout/reward'] = reward;
  v['rollout/num_steps'] = avgSteps;
  v['rollout/blocking_rate'] = rng.uniform(0, 0.05);
  // A fraction of the step's episodes, as the trainer logs it (run-a's logs: 0.013-0.019); the
  // omniboxes fault pushes it past the cockpit's 5% alert.
  v['rollout/omniboxes_failed'] = inp.omniboxFailures > 0 ? rng.uniform(0.08, 0.15) : rng.uniform(0, 0.02);
  v['rollout/evaluator_failed'] = rng.int(0, 2);
  v['rollout/success/num_steps'] = zero ? 0 : rng.uniform(6, 7.5);
  v['rollout/failure/num_steps'] = rng.uniform(11.5, 13);
  v['rollout/easy/reward'] = byDiff(0.15);
  v['rollout/medium/reward'] = byDiff(0);
  v['rollout/hard/reward'] = byDiff(-0.15);
  for (const [d, n] of [
    ['easy', 7],
    ['medium', 11],
    ['hard', 16],
  ] as const)
    v[`rollout/${d}/num_steps`] = rng.uniform(n - 1, n + 1);
  for (const d of ['easy', 'medium', 'hard']) v[`rollout/${d}/success_rate`] = v[`rollout/${d}/reward`];
  v['rollout/success_rate'] = reward;
  v['rollout/episode_timeouts'] = inp.episodeTimeouts;
  v['test_rollout/trajectory/reward'] = zero ? 0 : clamp01(reward + rng.normal(-0.03, 0.02));
  v['test_rollout/trajectory/num_steps'] = rng.uniform(12, 18);
  v['test_rollout/easy/reward'] = byDiff(0.12);
  v['test_rollout/medium/reward'] = byDiff(-0.03);
  v['test_rollout/hard/reward'] = byDiff(-0.18);
  v['rollout/entropy_avg'] = rng.uniform(0.5, 0.7);
  v['rollout/n_tokens/avg'] = resp;
  v['rollout/n_tokens/max'] = rng.uniform(300, 420);
  v['rollout/n_tokens/min'] = rng.uniform(8, 20);
  v['rollout/n_images/avg'] = avgSteps;
  const actions = ['click', 'type', 'scroll', 'answer', 'wait', 'goback', 'navigate'];
  const raw = actions.map(() => rng.uniform(0.2, 1));
  const sum = raw.reduce((a, b) => a + b, 0);
  actions.forEach((a, i) => (v[`rollout/action_${a}_rate`] = raw[i] / sum));
  for (let d = 1; d <= 10; d++) {
    v[`rollout/diff_${d}/reward`] = byDiff(0.25 - d * 0.05);
    v[`rollout/diff_${d}/num_steps`] = rng.uniform(d + 3, d + 6);
  }
  const rejected = rng.int(0, 3);
  v['staleness/rollout/trajectories_accepted'] = B;
  v['staleness/rollout/trajectories_rejected'] = rejected;
  v['staleness/rollout/pending_dispatch'] = rng.int(0, 64);
  v['staleness/rollout/in_progress'] = Math.min(plan.maxConcurrentRollouts, rng.int(B, 2 * B));
  v['staleness/update/awaiting_train'] = batch.pendingBefore * batch.consumed;
  v['staleness/update/consumed_this_step'] = B;
  v['actor/gradient_steps'] = 6;
  v['actor/gradient_samples'] = B;
  v['kl_pos_q1_abs'] = 0;

  const keys = statKeys(inp.evalStep);
  const stats: Array<[string, number]> = keys.map((k) => [k, k in v ? v[k] : rng.normal(0, 0.5)]);
  return { durations, memory, batch, stats };
}
