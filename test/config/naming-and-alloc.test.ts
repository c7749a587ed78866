// allocation_mode parsing, Python float formatting (checked against real Python), experiment names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inferExperimentName, parseAllocationMode, pyFloatRepr } from '../../src/config/index.js';
import { runOmegaConf } from '../harness/omegaconf.js';
import { evaluate, REFERENCE } from './helpers.js';

describe('parseAllocationMode', () => {
  it('counts the reference split: 48 + 16 = 64, actor dp 16', () => {
    const a = parseAllocationMode('sglang[rollout]:d48+fsdp[actor]:d16');
    expect(a).toEqual({
      ok: true,
      totalGpus: 64,
      actorDp: 16,
      components: [
        { backend: 'sglang', name: 'rollout', dims: { d: 48 }, gpus: 48 },
        { backend: 'fsdp', name: 'actor', dims: { d: 16 }, gpus: 16 },
      ],
    });
  });
  it('multiplies d·c·t·p, ignores e, and gives colocated members after the first 0 GPUs', () => {
    const a = parseAllocationMode('sglang[r]:d2t4+megatron[a]:d2p2t2c2e4|fsdp[c]:d16');
    if (!a.ok) throw new Error(a.message);
    expect(a.components.map((c) => c.gpus)).toEqual([8, 16, 0]);
    expect(a.totalGpus).toBe(24);
    expect(a.components[2].dims).toEqual({ d: 16 });
    expect(a.actorDp).toBe(2);
    expect(parseAllocationMode('d4t2').ok && parseAllocationMode('d4t2')).toMatchObject({ totalGpus: 8, actorDp: 4 });
    expect(parseAllocationMode('vllm:d2+[actor]:d2')).toMatchObject({ ok: true, actorDp: 2 });
    // Whitespace is ignored, a repeated dimension takes the last value, hybrid MoE counts attention GPUs.
    expect(parseAllocationMode(' sglang[r]:d4 + fsdp[a]:d2d4 ')).toMatchObject({ ok: true, totalGpus: 8, actorDp: 4 });
    expect(parseAllocationMode('sglang:d4+megatron:(attn:d2t2|ffn:e4)')).toMatchObject({
      ok: true,
      totalGpus: 8,
      actorDp: 2,
    });
    expect(parseAllocationMode('sglang[r]:d2+fsdp[a]:d4|fsdp[c]:d4')).toMatchObject({ ok: true, totalGpus: 6 });
  });
  it.each([
    ['sglang.d4+fsdp.d4', /old dot form/, 1],
    ['sglang[r]:d4+fsdp[a]:p2', /FSDP/, 14],
    ['sglang[r]:d4+fsdp[a]:e2', /FSDP/, 14],
    ['sglang[r]:d04+fsdp[a]:d4', /leading zero/, 11],
    ['sglang[r]:c2+fsdp[a]:d4', /'c' is not valid for sglang/, 11],
    ['sglang:d4+fsdp:d4+fsdp:d2', /every component needs a name/, 1],
    ['sglang[r]:d4+fsdp[a]:d4|fsdp:d4', /needs a name/, 25],
    ['sglang[r]:d4+fsdp[a]:d4|fsdp[c]:d2', /matching world sizes/, 25],
    ['sglang[r]:d4+megatron[a]:d2e4', /cannot divide/, 14],
    ['d4+d4', /without a backend need names/, 1],
    ['sglang[1r]:d4+fsdp[a]:d4', /'1r' is not a valid name/, 8],
    ['sglang[a]:d4+fsdp[a]:d4', /used twice/, 18],
    ['tpu[r]:d4', /unknown backend/, 1],
    ['sglang[r]:+fsdp[a]:d4', /no dimensions/, 11],
    ['', /empty/, 1],
  ])('%s is refused', (s, why, col) => {
    const a = parseAllocationMode(s);
    expect(a.ok).toBe(false);
    if (!a.ok) {
      expect(a.message).toMatch(why);
      expect(a.col).toBe(col);
    }
  });
});

describe('Python float formatting', () => {
  it('matches repr() for typical and random doubles', () => {
    const typical = [
      5e-6,
      1e-5,
      0.0001,
      0.01,
      1,
      1e16,
      1e15,
      123456789.125,
      1.5e-7,
      0.1 + 0.2,
      2 ** 32,
      -0.5,
      1e22,
      5e-324,
      1.7976931348623157e308,
    ];
    const random = fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), { numRuns: 300, seed: 42 });
    const all = [...typical, ...random];
    const [ref] = runOmegaConf([{ kind: 'repr', values: all.map((x) => (Object.is(x, -0) ? '-0.0' : String(x))) }]);
    expect('ok' in ref && ref.ok).toEqual(all.map(pyFloatRepr));
  });
});

describe('experiment name', () => {
  it('follows the trainer for kl, critic and fbc variants', () => {
    const cfg = evaluate(REFERENCE).resolved!;
    expect(inferExperimentName({ ...cfg, actor: { ...cfg.actor, kl_ctl: 0.01, recompute_logprob: false } })).toBe(
      'qwen3vl8b-inst-grpo-offpolicy2-kl0.01-noprox-batch128-k8-lr5e-06',
    );
    expect(
      inferExperimentName({
        ...cfg,
        actor: { ...cfg.actor, critic_loss: 'archer', actor_loss: 'fbc', path: '/m/Qwen3-VL-8B-Thinking' },
      }),
    ).toMatch(/^qwen3vl8b-think-archer-fbc-/);
    expect(inferExperimentName({ ...cfg, actor: { ...cfg.actor, critic_loss: 'ppo', optimizer: null } })).toBe(
      'qwen3vl8b-inst-ppo-grpo-offpolicy2-nokl-prox-batch128-k8',
    );
  });
  it('is resolved from overrides, with Python number text', () => {
    const ev = evaluate(REFERENCE, [
      'actor.optimizer.lr=1e-4',
      'rollout.consumer_batch_size=256',
      'train_dataset.batch_size=256',
    ]);
    expect(ev.experimentName).toBe('qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch256-k8-lr0.0001');
    expect(evaluate(REFERENCE, ['experiment_name=my-run']).experimentName).toBe('my-run');
  });
});
