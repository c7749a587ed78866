// The pure core of `compare` and the baseline overlay: a run's steps after a resume, two runs aligned
// by step, TensorBoard's smoothing, the time axes, the figures and the config keys that differ.
import { describe, it, expect } from 'vitest';
import type { TrainerEvent } from '../../src/trainer-log/events.js';
import { RunSteps, samplesConsumed, trainingHours } from '../../src/metrics/run-steps.js';
import { tensorboardEma } from '../../src/metrics/ema.js';
import {
  alignByStep,
  compareKey,
  lastPerBucket,
  latestCommonStep,
  configDiff,
  latestCommon,
  runFigures,
  SUMMARY_KEYS,
  SUMMARY_PREFIXES,
} from '../../src/metrics/compare.js';
import { STEP_TIME_KEY } from '../../src/metrics/step-times.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateConfig } from '../../src/config/index.js';
import { ROOT } from '../runs/cli-process.js';
import { stepEvent } from '../harness/step-event.js';

const t = (min: number) => `2026-12-01T10:${String(min).padStart(2, '0')}:00.000`;
const step = (g: number, min: number, stats: Record<string, number | null>): TrainerEvent =>
  stepEvent(g, 20, t(min), stats);
const batch = (episodes: number | null, role = 'rollout'): TrainerEvent => ({
  type: 'batch',
  waitS: 1,
  totalS: 2,
  episodes,
  time: t(0),
  role,
});

function stepsOf(events: TrainerEvent[]) {
  const r = new RunSteps({ keys: SUMMARY_KEYS, prefixes: SUMMARY_PREFIXES });
  for (const e of events) r.ingest(e);
  return r.view();
}

describe('a run by global step', () => {
  it('after a resume, the repeated steps take the latest incarnation’s values and the downtime is not training time', () => {
    const v = stepsOf([
      { type: 'start', time: t(0) },
      batch(32),
      step(1, 2, { 'rollout/reward': 0.1, 'timeperf/rollout': 60 }),
      batch(32),
      step(2, 4, { 'rollout/reward': 0.2, 'timeperf/rollout': 80 }),
      batch(32),
      step(3, 6, { 'rollout/reward': 0.9 }),
      // Crash; restarted 20 min later from the checkpoint after step 1.
      { type: 'resume', resumeStep: 2, time: t(26) },
      batch(30),
      step(2, 29, { 'rollout/reward': 0.25, 'timeperf/rollout': 100 }),
      batch(null),
      step(3, 30, { 'rollout/reward': 0.3 }),
    ]);
    expect(v.steps).toEqual([1, 2, 3]);
    expect(v.values.get('rollout/reward')).toEqual([0.1, 0.25, 0.3]);
    // Step 3 of the first process is gone with its timeperf key; the later process's step 2 has it.
    expect(v.values.get('timeperf/rollout')).toEqual([60, 100, null]);
    expect(v.stepSeconds).toEqual([120, 180, 60]);
    // The step time as the store derives it: none for the first step of a process.
    expect(v.values.get(STEP_TIME_KEY)).toEqual([null, null, 60]);
    expect(trainingHours(v)).toEqual([120 / 3600, 300 / 3600, 360 / 3600]);
    expect(samplesConsumed(v)).toEqual([32, 62, null]);
    expect(samplesConsumed(v, 32)).toEqual([32, 62, 94]);
    expect(v.resumes).toBe(1);
  });

  it('an eval batch is not the step’s, and a step that goes back without a resume record has no time', () => {
    const v = stepsOf([
      { type: 'start', time: t(0) },
      batch(16),
      batch(99, 'eval-rollout'),
      step(1, 1, {}),
      step(2, 2, {}),
      step(2, 9, {}),
    ]);
    expect(v.steps).toEqual([1, 2]);
    expect(v.episodes).toEqual([16, null]);
    expect(v.stepSeconds).toEqual([60, null]);
  });
});

describe('two runs aligned by step', () => {
  it('keeps the union of steps, null where a run has none, delta b − a only where both are finite', () => {
    const s = alignByStep(
      { steps: [1, 2, 3, 4], values: [0.1, 0.2, NaN, 0.4] },
      { steps: [2, 3, 4, 5, 6], values: [0.5, 0.6, 0.7, null, 0.9] },
    );
    expect(s.steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.a).toEqual([0.1, 0.2, NaN, 0.4, null, null]);
    expect(s.b).toEqual([null, 0.5, 0.6, 0.7, null, 0.9]);
    expect(s.delta[1]).toBeCloseTo(0.3, 12);
    expect(s.delta[2]).toBeNull();
    expect(latestCommon(s)).toEqual({ step: 4, a: 0.4, b: 0.7, delta: 0.7 - 0.4 });
    expect(latestCommon(alignByStep({ steps: [1], values: [1] }, { steps: [2], values: [2] }))).toBeNull();
  });
});

describe('a frame’s view of two runs', () => {
  it('latestCommonStep agrees with aligning them, without aligning', () => {
    const a = { steps: [2, 4, 6, 8], values: [0.1, 0.2, 0.3, NaN] };
    const b = { steps: [1, 2, 3, 4, 5, 6, 7], values: [1, 2, 3, 4, 5, null, 7] };
    expect(latestCommonStep(a, b)).toEqual(latestCommon(alignByStep(a, b)));
    expect(latestCommonStep(a, b)).toMatchObject({ step: 4, delta: 4 - 0.2 });
    expect(latestCommonStep(a, { steps: [], values: [] })).toBeNull();
  });

  it('lastPerBucket keeps at most max points, each the last of its bucket, the last step included', () => {
    const p = {
      steps: Array.from({ length: 10 }, (_, i) => i + 1),
      values: Array.from({ length: 10 }, (_, i) => i * 10),
    };
    expect(lastPerBucket(p, 4)).toEqual({ steps: [2, 5, 7, 10], values: [10, 40, 60, 90] });
    expect(lastPerBucket(p, 20).steps).toHaveLength(10);
  });
});

describe("TensorBoard's debiased EMA", () => {
  // Golden values from TensorBoard's classicSmoothing formula, computed in Python (float64).
  it('matches TensorBoard: non-finite points given back and skipped', () => {
    const out = tensorboardEma([0.1, 0.3, NaN, 0.2, Infinity, 0.5], 0.6);
    expect(out[0]).toBeCloseTo(0.10000000000000002, 15);
    expect(out[1]).toBeCloseTo(0.22499999999999998, 15);
    expect(out[2]).toBeNaN();
    expect(out[3]).toBeCloseTo(0.21224489795918366, 15);
    expect(out[4]).toBe(Infinity);
    expect(out[5]).toBeCloseTo(0.34448529411764706, 15);
    const b = tensorboardEma([1, 2, 3, 4], 0.9);
    [1.0, 1.5263157894736843, 2.0701107011070117, 2.6312881651642916].forEach((g, i) =>
      expect(b[i]).toBeCloseTo(g, 14),
    );
    const c = tensorboardEma([0.25, 0.5, 0.125], 0.99);
    [0.25, 0.3756281407035174, 0.2912444025453694].forEach((g, i) => expect(c[i]).toBeCloseTo(g, 13));
  });

  it('a constant series is given back as it is, weight 0 is the raw series, nulls skipped like nan', () => {
    expect(tensorboardEma([2, 2, 2], 0.9)).toEqual([2, 2, 2]);
    expect(tensorboardEma([1, 5, 3], 0)).toEqual([1, 5, 3]);
    expect(tensorboardEma([1, null, 3], 0.5)).toEqual(
      tensorboardEma([1, NaN, 3], 0.5).map((x) => (Number.isNaN(x) ? null : x)),
    );
  });
});

describe('compareKey and the figures', () => {
  const a = stepsOf([
    { type: 'start', time: t(0) },
    step(1, 1, { 'rollout/reward': 0.1, 'staleness/gap/offpolicy_max': 2, 'timeperf/train_step': 10 }),
    step(2, 2, { 'rollout/reward': 0.3, 'staleness/gap/offpolicy_max': 3, 'timeperf/train_step': 20 }),
    { type: 'finished', time: t(3) },
  ]);
  const b = stepsOf([
    { type: 'start', time: t(0) },
    step(1, 2, { 'rollout/reward': 0.2, 'test_rollout/trajectory/round': 1, 'test_rollout/trajectory/reward': 0.5 }),
    step(2, 4, { 'rollout/reward': NaN, 'test_rollout/trajectory/round': 1 }),
    step(3, 6, { 'rollout/reward': 0.4, 'test_rollout/trajectory/round': 2, 'test_rollout/trajectory/reward': 0.6 }),
  ]);

  it('smooths each run’s own points and carries both time axes', () => {
    const s = compareKey(a, b, 'rollout/reward', 0.6, { b: { consumerBatchSize: 8 } });
    expect(s.steps).toEqual([1, 2, 3]);
    expect(s.aSmoothed.slice(0, 2)).toEqual(tensorboardEma([0.1, 0.3], 0.6));
    expect(s.bSmoothed[2]).toEqual(tensorboardEma([0.2, NaN, 0.4], 0.6)[2]);
    expect(s.aHours).toEqual([1 / 60, 2 / 60, null]);
    expect(s.bSamples).toEqual([8, 16, 24]);
    expect(s.aSamples).toEqual([null, null, null]);
  });

  it('final and best reward, phases, staleness, eval rounds', () => {
    const fa = runFigures(a);
    expect(fa).toMatchObject({ steps: 2, lastStep: 2, finished: true, finalReward: 0.3 });
    expect(fa.bestReward).toEqual({ step: 2, value: 0.3 });
    expect(fa.phases).toEqual([{ key: 'timeperf/train_step', meanS: 15 }]);
    expect(fa.staleness.max).toBe(3);
    expect(fa.eval).toBeNull();
    const fb = runFigures(b);
    expect(fb.bestReward).toEqual({ step: 3, value: 0.4 });
    expect(fb.eval).toEqual({ rounds: 2, lastReward: 0.6 });
    expect(fb.meanStepTimeS).toBe(120);
  });
});

describe('configDiff', () => {
  const file = join(ROOT, 'configs', 'webgym_1x8_grpo_inst_nokl_local.yaml');
  const text = readFileSync(file, 'utf8');
  const resolved = (overrides: string[]) =>
    evaluateConfig({ fileName: file, text, overrides, envNames: ['WANDB_API_KEY'] }).resolved!;
  it('holds exactly the resolved keys that differ, those an interpolation takes from a changed key included', () => {
    const d = configDiff(resolved([]), resolved(['seed=7', 'actor.optimizer.lr=1e-5', 'actor.optimizer.lr=5e-6']));
    expect(d.map((x) => x.key).sort()).toEqual(
      resolvedKeysEqualTo(resolved([]), 1, '${seed}', text).concat('seed').sort(),
    );
    expect(d.find((x) => x.key === 'seed')).toEqual({ key: 'seed', a: 1, b: 7 });
    expect(d.every((x) => x.a === 1 && x.b === 7)).toBe(true);
    expect(configDiff(resolved([]), resolved(['actor.optimizer.lr=5e-6']))).toEqual([]);
    const lr = configDiff(resolved([]), resolved(['actor.optimizer.lr=1e-5']));
    expect(lr).toEqual([{ key: 'actor.optimizer.lr', a: 5e-6, b: 1e-5 }]);
  });
});

/** The keys whose line in the file interpolates `${seed}` (what a changed seed must carry along). */
function resolvedKeysEqualTo(_tree: Record<string, any>, _v: number, ref: string, text: string): string[] {
  const keys: string[] = [];
  const path: { indent: number; key: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\s*)([A-Za-z_][\w]*):\s*(.*)$/.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    while (path.length && path[path.length - 1].indent >= indent) path.pop();
    path.push({ indent, key: m[2] });
    if (m[3].trim() === ref) keys.push(path.map((p) => p.key).join('.'));
  }
  return keys;
}
