// A controller's stdout with webgym's test rollout rounds and wandb's banner, written from the code
// that prints them (webgym async 01e3daef): areal/utils/test_rollout.py's logger.info/%-formats,
// rl_trainer.py's `_export_and_commit_stats` (the running round's `test_rollout/step/*` keys in every
// table; the completed round's `test_rollout/trajectory/*` keys in the table of the step after it,
// when `should_save()`), stats_logger.py's wandb.init (id `{exp}_{trial}_{suffix}`) and wandb 0.23's
// header as a captured stdout shows it.
import { rec, stepRecords } from './helpers.js';

const ESC = '\x1b';
export const WANDB_URL =
  'https://wandb.ai/webgym/rl/runs/qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06_trial0_2026_05_25_12_00_00';

/** Python's `%.4f`, `%.1f` (values chosen to have exact binary halves nowhere). */
const f4 = (x: number) => x.toFixed(4);
const f1 = (x: number) => x.toFixed(1);

export function progressLine(
  r: number,
  reward: number,
  ns: number,
  c: number,
  t: number,
  fl: number,
  el: number,
  s: number,
) {
  return (
    `Test rollout round ${r} progress: reward=${f4(reward)}, num_steps=${f1(ns)}, ` +
    `completed=${c}/${t}, failed=${fl}, elapsed=${f1(el)}s, model_step=${s}`
  );
}

export function completeLine(
  r: number,
  reward: number,
  ns: number,
  c: number,
  t: number,
  fl: number,
  time: number,
  s: number,
) {
  return (
    `Test rollout round ${r} complete: reward=${f4(reward)}, num_steps=${f1(ns)}, ` +
    `completed=${c}/${t}, failed=${fl}, time=${f1(time)}s, model_step=${s}`
  );
}

const tr = (stamp: string, level: string, msg: string) => rec(stamp, 'TestRollout', level, msg);

const BASE: [string, string][] = [
  ['rollout/reward', '3.1250e-01'],
  ['ppo_actor/update/grad_norm', '2.1000e-01'],
  ['timeperf/train_step', '1.2000e+02'],
];

/** Two rounds and a crash of the eval thread, with train steps 1-3 around them. */
export function evalLog(): string {
  return [
    `wandb: Currently logged in as: researcher (webgym) to https://api.wandb.ai. Use \`wandb login --relogin\` to force relogin`,
    `wandb: Tracking run with wandb version 0.23.1`,
    `wandb: Run data is saved locally in /mnt/shared/areal-fileroot/logs/root/exp/trial0/wandb/run-20260525_120000-exp_trial0_2026_05_25_12_00_00`,
    `wandb: Run \`wandb offline\` to turn off syncing.`,
    `wandb: Syncing run exp/trial0`,
    `wandb: ⭐️ View project at https://wandb.ai/webgym/rl`,
    `wandb: 🚀 View run at ${WANDB_URL}`,
    tr('20260525-12:10:00.000', 'INFO', 'Test rollout thread started'),
    tr('20260525-12:10:00.001', 'INFO', 'Launching 8 test rollout SGLang servers...'),
    tr('20260525-12:15:00.000', 'INFO', 'Test rollout SGLang servers ready'),
    tr('20260525-12:15:00.001', 'INFO', '=== Test rollout round 0 starting ==='),
    tr('20260525-12:15:00.002', 'INFO', 'Loading weights from /models/Qwen3-VL-8B-Instruct (step 0)'),
    tr('20260525-12:15:31.000', 'INFO', 'Submitting test rollout tasks (round=0, model_step=0)...'),
    tr('20260525-12:15:31.001', 'INFO', 'Submitting 80 test rollout tasks (max_inflight=192)...'),
    tr('20260525-12:20:00.000', 'INFO', progressLine(0, 0.375, 6.2, 8, 80, 0, 269.0, 0)),
    stepRecords('20260525-12:21:00.000', 1, [...BASE, ['test_rollout/step/reward', '3.7500e-01']]),
    tr('20260525-12:40:00.000', 'INFO', progressLine(0, 0.4125, 7.3, 78, 80, 2, 1469.0, 0)),
    tr('20260525-12:41:00.000', 'INFO', 'Entering grace period: 0 tasks remaining, deadline in 120s'),
    tr('20260525-12:41:00.001', 'INFO', completeLine(0, 0.4125, 7.3, 78, 80, 2, 1529.0, 0)),
    tr('20260525-12:41:00.002', 'INFO', 'Requested checkpoint save from training loop (round 0)'),
    rec('20260525-12:42:00.000', 'RLTrainer', 'INFO', 'Saving HF + DCP checkpoints (test rollout, step=1)'),
    stepRecords('20260525-12:43:00.000', 2, [
      ...BASE,
      ['test_rollout/trajectory/reward', '4.1250e-01'],
      ['test_rollout/trajectory/round', '0.0000e+00'],
      ['test_rollout/trajectory/easy/reward', '6.0000e-01'],
      ['test_rollout/trajectory/easy/num_steps', '4.5000e+00'],
      ['test_rollout/trajectory/easy/n_tasks', '3.0000e+01'],
      ['test_rollout/trajectory/hard/reward', '2.0000e-01'],
      ['test_rollout/trajectory/hard/num_steps', '1.1200e+01'],
      ['test_rollout/trajectory/hard/n_tasks', '2.0000e+01'],
      ['test_rollout/trajectory/medium/reward', '3.8462e-01'],
      ['test_rollout/trajectory/medium/num_steps', '7.1000e+00'],
      ['test_rollout/trajectory/medium/n_tasks', '2.8000e+01'],
    ]),
    tr('20260525-12:43:00.001', 'INFO', '=== Test rollout round 1 starting ==='),
    tr('20260525-12:43:00.002', 'INFO', 'Loading weights from /ckpt/default/epoch0epochstep1globalstep1 (step 1)'),
    tr('20260525-12:43:20.000', 'INFO', 'Submitting test rollout tasks (round=1, model_step=1)...'),
    tr('20260525-12:43:20.001', 'INFO', "Blocking 2 websites for this round: ['booking.com', 'expedia.com']"),
    tr('20260525-12:43:20.002', 'INFO', 'Filtered 6 tasks from blocked websites'),
    tr('20260525-13:00:00.000', 'INFO', progressLine(1, 0.45, 7.0, 20, 74, 0, 1000.0, 1)),
    tr('20260525-13:20:00.000', 'WARNING', 'Grace period expired: abandoning 3 remaining tasks as failures'),
    tr('20260525-13:20:00.001', 'INFO', completeLine(1, 0.4638, 6.9, 69, 74, 5, 2220.0, 1)),
    `${ESC}[31m${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[31m20260525-13:30:00.000 TestRollout ERROR: Test rollout thread crashed, retrying in 30s...${ESC}[0m`,
    'Traceback (most recent call last):',
    '  File "/opt/webgym/areal/utils/test_rollout.py", line 289, in _eval_loop',
    '    self._eval_loop_inner()',
    'TimeoutError: Timed out waiting for placement group',
    stepRecords('20260525-13:31:00.000', 3, BASE),
    '',
  ].join('\n');
}
