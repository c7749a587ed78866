// Fault specs (AWRL_SIM_FAULT) and the simulator env knobs: what parses, what is refused.
import { describe, expect, it } from 'vitest';
import { parseFaults, faultsAt, FaultSpecError } from '../../src/sim/faults.js';
import { readSimEnv, SimEnvError } from '../../src/sim/env.js';
import { parseTrainArgs } from '../../src/sim/argv.js';
import { learningRate, rewardCurve, stepDynamics } from '../../src/sim/dynamics.js';
import { planFromConfig } from '../../src/sim/plan.js';

describe('parseFaults', () => {
  it('reads every fault form', () => {
    expect(
      parseFaults(
        'nccl-timeout@5, oom@3,stall:update_weights@4,stall:rollout@2:30,nan-grad@2-4,zero-reward@7,omniboxes@1',
      ),
    ).toEqual([
      { kind: 'nccl-timeout', step: 5 },
      { kind: 'oom', step: 3 },
      { kind: 'stall', phase: 'update_weights', step: 4, seconds: null },
      { kind: 'stall', phase: 'rollout_wait', step: 2, seconds: 30 },
      { kind: 'nan-grad', from: 2, to: 4 },
      { kind: 'zero-reward', from: 7, to: Infinity },
      { kind: 'omniboxes', from: 1, to: 1 },
    ]);
    expect(parseFaults(undefined)).toEqual([]);
  });
  it('refuses what it does not know, naming it', () => {
    expect(() => parseFaults('meltdown@3')).toThrow(/unknown fault 'meltdown'/);
    expect(() => parseFaults('stall:lunch@3')).toThrow(FaultSpecError);
    expect(() => parseFaults('oom')).toThrow(/needs @STEP/);
    expect(() => parseFaults('nan-grad@5-2')).toThrow(/bad step range/);
  });
  it('faultsAt picks the faults of one step', () => {
    const f = parseFaults('oom@3,zero-reward@5,nan-grad@2-3');
    expect(faultsAt(f, 3).map((x) => x.kind)).toEqual(['oom', 'nan-grad']);
    expect(faultsAt(f, 99).map((x) => x.kind)).toEqual(['zero-reward']);
  });
});

describe('readSimEnv', () => {
  it('defaults and knobs', () => {
    expect(readSimEnv({})).toMatchObject({ speed: 150, faults: [], seed: null, datasetSize: 2048 });
    expect(readSimEnv({ AWRL_SIM_SPEED: 'instant', AWRL_SIM_SEED: '7', AWRL_SIM_DATASET_SIZE: '64' })).toMatchObject({
      speed: 'instant',
      seed: 7,
      datasetSize: 64,
    });
  });
  it('one clear error per bad knob', () => {
    expect(() => readSimEnv({ AWRL_SIM_SPEED: 'fast' })).toThrow(SimEnvError);
    expect(() => readSimEnv({ AWRL_SIM_FAULT: 'oom@x' })).toThrow(/AWRL_SIM_FAULT: bad step 'x'/);
    expect(() => readSimEnv({ AWRL_SIM_DATASET_SIZE: '0' })).toThrow(/AWRL_SIM_DATASET_SIZE/);
  });
});

describe('parseTrainArgs (argparse with only --config)', () => {
  it('splits --config from Hydra overrides', () => {
    expect(parseTrainArgs(['--config', 'a.yaml', 'seed=2', '+x.y=1', '~z'])).toEqual({
      ok: true,
      config: 'a.yaml',
      overrides: ['seed=2', '+x.y=1', '~z'],
    });
    expect(parseTrainArgs(['--config=a.yaml'])).toEqual({ ok: true, config: 'a.yaml', overrides: [] });
  });
  it('fails like argparse', () => {
    expect(parseTrainArgs(['--config'])).toMatchObject({
      ok: false,
      code: 2,
      text: expect.stringContaining('expected one argument'),
    });
    expect(parseTrainArgs(['-h'])).toMatchObject({ ok: false, code: 0 });
  });
});

describe('dynamics', () => {
  const plan = planFromConfig({
    resolved: {
      train_dataset: { batch_size: 128 },
      rollout: { consumer_batch_size: 128, max_head_offpolicyness: 2 },
      gconfig: { n_samples: 8 },
      total_train_epochs: 10,
      allocation_mode: 'sglang[rollout]:d48+fsdp[actor]:d16',
      actor: {
        optimizer: { lr: 5e-6, warmup_steps_proportion: 0.0167, lr_scheduler_max_steps: 300, min_lr_ratio: 0.1 },
      },
    },
    experimentName: 'e',
    trialName: 't',
    user: 'u',
    datasetSize: 2048,
  });
  it('reads the plan the trainer would', () => {
    expect(plan).toMatchObject({
      stepsPerEpoch: 16,
      totalSteps: 160,
      rollout: { gpus: 48, dp: 48 },
      actor: { gpus: 16, dp: 16 },
    });
  });
  it('is seeded, keeps staleness inside the budget, and rises toward a plateau', () => {
    const base = {
      plan,
      attempt: 0,
      timeScale: 1,
      zeroReward: false,
      nanGrad: false,
      omniboxFailures: 0,
      episodeTimeouts: 0,
      evalStep: false,
      saveStep: false,
    };
    expect(stepDynamics({ ...base, step: 5 })).toEqual(stepDynamics({ ...base, step: 5 }));
    for (let s = 1; s <= 160; s++) {
      const v = Object.fromEntries(stepDynamics({ ...base, step: s }).stats);
      expect(v['staleness/gap/offpolicy_max']).toBeLessThanOrEqual(2);
      expect(v['staleness/gap/offpolicy_min']).toBeLessThanOrEqual(v['staleness/gap/offpolicy_avg']);
      expect(v['rollout/reward']).toBeGreaterThanOrEqual(0);
    }
    expect(rewardCurve(plan, 160)).toBeGreaterThan(rewardCurve(plan, 10) + 0.2);
    expect(learningRate(plan, 1)).toBeLessThan(5e-6);
    expect(learningRate(plan, 6)).toBeCloseTo(5e-6, 12);
  });
});
