// The stats-table vocabulary. Base: the 160 keys of a real AsyncWebRL table (fixture run-a), in the
// trainer's own order; plus the per-difficulty, token and time keys of docs/trainer.md §6 that a
// longer real run also logs, to land within the real 150–250 keys. Pure data.

/** Keys of the real table before the 50 `compute_logp/extra_N/avg` keys, in order. */
const BASE: readonly string[] = [
  'ppo_actor/advantages/avg',
  'ppo_actor/advantages/max',
  'ppo_actor/advantages/min',
  'ppo_actor/behave_cap_ratio',
  'ppo_actor/final_reward/avg',
  'ppo_actor/final_reward/max',
  'ppo_actor/final_reward/min',
  'ppo_actor/kl_rewards/avg',
  'ppo_actor/kl_rewards/max',
  'ppo_actor/kl_rewards/min',
  'ppo_actor/n_seqs',
  'ppo_actor/n_tokens',
  'ppo_actor/n_valid_tokens',
  'ppo_actor/prompt_len/avg',
  'ppo_actor/prompt_len/max',
  'ppo_actor/prompt_len/min',
  'ppo_actor/response_len/avg',
  'ppo_actor/response_len/max',
  'ppo_actor/response_len/min',
  'ppo_actor/seq_len/avg',
  'ppo_actor/seq_len/max',
  'ppo_actor/seq_len/min',
  'ppo_actor/update/actor_loss/avg',
  'ppo_actor/update/actor_loss/max',
  'ppo_actor/update/actor_loss/min',
  'ppo_actor/update/approx_kl/avg',
  'ppo_actor/update/approx_kl/max',
  'ppo_actor/update/approx_kl/min',
  'ppo_actor/update/behave_imp_weight/avg',
  'ppo_actor/update/behave_imp_weight/max',
  'ppo_actor/update/behave_imp_weight/min',
  'ppo_actor/update/clip_ratio/avg',
  'ppo_actor/update/clip_ratio/max',
  'ppo_actor/update/clip_ratio/min',
  'ppo_actor/update/entropy/avg',
  'ppo_actor/update/entropy/max',
  'ppo_actor/update/entropy/min',
  'ppo_actor/update/grad_norm',
  'ppo_actor/update/importance_weight/avg',
  'ppo_actor/update/importance_weight/max',
  'ppo_actor/update/importance_weight/min',
  'ppo_actor/update/lr',
  'ppo_actor/update/n_tokens',
  'ppo_actor/update/n_valid_tokens',
  'ppo_actor/update/new_logp/avg',
  'ppo_actor/update/new_logp/max',
  'ppo_actor/update/new_logp/min',
  'ppo_actor/update/old_logp/avg',
  'ppo_actor/update/old_logp/max',
  'ppo_actor/update/old_logp/min',
  'ppo_actor/update/update_successful',
  'staleness/gap/current_version',
  'staleness/gap/offpolicy_avg',
  'staleness/gap/offpolicy_max',
  'staleness/gap/offpolicy_min',
  'staleness/versions_per_batch/n_unique',
  'timeperf/clear_batches',
  'timeperf/compute_advantage',
  'timeperf/eval',
  'timeperf/recompute_logp',
  'timeperf/rollout',
  'timeperf/train_step',
  'timeperf/update_weights',
  'rollout/reward',
  'rollout/num_steps',
  'rollout/blocking_rate',
  'rollout/omniboxes_failed',
  'rollout/evaluator_failed',
  'rollout/success/num_steps',
  'rollout/failure/num_steps',
  'rollout/easy/reward',
  'rollout/medium/reward',
  'rollout/hard/reward',
  'rollout/entropy_avg',
  'rollout/action_click_rate',
  'rollout/action_type_rate',
  'rollout/action_scroll_rate',
  'rollout/action_answer_rate',
  'rollout/action_wait_rate',
  'rollout/action_goback_rate',
  'rollout/action_navigate_rate',
  'rollout/diff_1/reward',
  'rollout/diff_1/num_steps',
  'rollout/diff_2/reward',
  'rollout/diff_2/num_steps',
  'rollout/diff_3/reward',
  'rollout/diff_3/num_steps',
  'rollout/diff_4/reward',
  'rollout/diff_4/num_steps',
  'rollout/diff_5/reward',
  'rollout/diff_5/num_steps',
  'rollout/diff_6/reward',
  'rollout/diff_6/num_steps',
  'rollout/diff_7/reward',
  'rollout/diff_7/num_steps',
  'rollout/diff_8/reward',
  'rollout/diff_8/num_steps',
  'rollout/diff_9/reward',
  'rollout/diff_9/num_steps',
  'rollout/diff_10/reward',
  'rollout/diff_10/num_steps',
  'staleness/rollout/trajectories_accepted',
  'staleness/rollout/trajectories_rejected',
  'staleness/rollout/pending_dispatch',
  'staleness/rollout/in_progress',
  'staleness/update/awaiting_train',
  'staleness/update/consumed_this_step',
  'actor/gradient_steps',
  'actor/gradient_samples',
  'kl_pos_q1_abs',
];

/** Extra keys, inserted right after the named base key so families stay together. */
const EXTRA_AFTER: Record<string, readonly string[]> = {
  'timeperf/update_weights': ['timeperf/save'],
  'rollout/hard/reward': [
    'rollout/easy/num_steps',
    'rollout/medium/num_steps',
    'rollout/hard/num_steps',
    'rollout/easy/success_rate',
    'rollout/medium/success_rate',
    'rollout/hard/success_rate',
    'rollout/success_rate',
    'rollout/episode_timeouts',
  ],
  'rollout/entropy_avg': [
    'rollout/n_tokens/avg',
    'rollout/n_tokens/max',
    'rollout/n_tokens/min',
    'rollout/n_images/avg',
  ],
};

/** Only on steps that ran the evaluator (`timeperf/eval` > 0). */
export const EVAL_KEYS: readonly string[] = [
  'test_rollout/trajectory/reward',
  'test_rollout/trajectory/num_steps',
  'test_rollout/easy/reward',
  'test_rollout/medium/reward',
  'test_rollout/hard/reward',
];

export const EXTRA_LOGP_KEYS = 50;

/** Every key of a train step's table, in print order (eval keys go right after `rollout/reward`'s family). */
export function statKeys(withEval: boolean): string[] {
  const out: string[] = [];
  for (const k of BASE) {
    out.push(k);
    for (const e of EXTRA_AFTER[k] ?? []) out.push(e);
    if (withEval && k === 'rollout/hard/reward') out.push(...EVAL_KEYS);
  }
  for (let i = 0; i < EXTRA_LOGP_KEYS; i++) out.push(`ppo_actor/update/compute_logp/extra_${i}/avg`);
  return out;
}

/** The fixture's own 160 keys (for structural comparisons). */
export const FIXTURE_KEY_COUNT = BASE.length + EXTRA_LOGP_KEYS;
