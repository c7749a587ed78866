// Each rule of trainer.md §3 on a mutated reference config: code, severity and position.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/config/index.js';
import { evaluate, mutate, only, posOf, REFERENCE } from './helpers.js';

function expectAt(
  text: string,
  code: string,
  severity: 'error' | 'warning',
  needle: string,
  after = '',
  overrides: string[] = [],
  env?: string[],
) {
  const ev = evaluate(text, overrides, env);
  const d = only(ev, code);
  expect(d.severity).toBe(severity);
  expect({ line: d.line, col: d.col }).toEqual(posOf(text, needle, after));
  expect(d.file).toBe('cfg.yaml');
  return d;
}

describe('the reference config', () => {
  it('checks with zero errors and zero warnings when WANDB_API_KEY is set, and resolves', () => {
    const ev = evaluate(REFERENCE);
    expect(ev.diagnostics).toEqual([]);
    expect(ev.hasErrors).toBe(false);
    expect(ev.resolved!.sglang.random_seed).toBe(1);
    expect(ev.resolved!.actor.reward_norm.group_size).toBe(8);
    expect(ev.resolved!.rollout.scheduling_spec).toEqual(ev.resolved!.actor.scheduling_spec);
    expect(ev.resolved!.actor.optimizer.lr).toBe(5e-6);
    expect(ev.resolved!.ref.path).toBe('/path/to/models/Qwen3-VL-8B-Instruct');
    expect(ev.resolved!.eval_gconfig).toEqual(ev.resolved!.gconfig);
  });
  it('resolves auto to the trainer name', () => {
    expect(evaluate(REFERENCE).experimentName).toBe('qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06');
    expect(evaluate(REFERENCE).trialName).toBe('intuition-model');
  });
  it('seed=42 also changes sglang.random_seed through the interpolation', () => {
    const ev = evaluate(REFERENCE, ['seed=42']);
    expect(ev.resolved!.sglang.random_seed).toBe(42);
    expect(ev.originOf('seed')).toEqual({ kind: 'override', index: 1 });
  });
});

describe('allocation rules', () => {
  it('allocation-mode: the old dot form is an error at the key', () => {
    const t = mutate('allocation_mode: sglang[rollout]:d48+fsdp[actor]:d16', 'allocation_mode: sglang.d48+fsdp.d16');
    const d = expectAt(t, 'allocation-mode', 'error', 'allocation_mode: sglang.d48');
    expect(d.message).toContain('sglang:d48+fsdp:d16');
    expect(d.key).toBe('allocation_mode');
  });
  it('allocation-mode: exactly one training component', () => {
    const none = evaluate(REFERENCE, ["allocation_mode='sglang[rollout]:d64'"]);
    expect(only(none, 'allocation-mode').message).toContain('no training component');
    const two = evaluate(REFERENCE, ["allocation_mode='sglang[rollout]:d32+fsdp[actor]:d16+fsdp[critic]:d16'"]);
    expect(only(two, 'allocation-mode').message).toContain('2 training components');
  });
  it('gpu-count: more GPUs than the cluster is an error', () => {
    const t = mutate('fsdp[actor]:d16', 'fsdp[actor]:d32');
    expect(expectAt(t, 'gpu-count', 'error', 'allocation_mode: sglang').message).toMatch(/80 GPUs.*8 x 8 = 64/);
  });
  it('gpu-count: idle GPUs are a warning', () => {
    const t = mutate('sglang[rollout]:d48', 'sglang[rollout]:d40');
    expectAt(t, 'gpu-count', 'warning', 'allocation_mode: sglang');
  });
  it('gpu-count counts test_rollout GPUs when it is enabled', () => {
    const t = mutate('test_rollout:\n  enabled: false', 'test_rollout:\n  enabled: true');
    expect(expectAt(t, 'gpu-count', 'error', 'allocation_mode: sglang').message).toContain(
      '64 (allocation_mode) + 8 (test_rollout.n_gpus) = 72',
    );
  });
  it('batch-divisibility: the trainer message with the valid values near it, at the key', () => {
    const t = mutate('consumer_batch_size: 128', 'consumer_batch_size: 120');
    const d = expectAt(t, 'batch-divisibility', 'error', 'consumer_batch_size: 120');
    expect(d.message).toBe(
      'consumer_batch_size=120 is not divisible by LCM(n_samples=8, dp_size=16)=16. Valid values near 120: 112, 128.',
    );
    expect(d.key).toBe('rollout.consumer_batch_size');
  });
  it('batch-divisibility from an override is reported at the override', () => {
    const ev = evaluate(REFERENCE, ['rollout.consumer_batch_size=100']);
    const d = only(ev, 'batch-divisibility');
    expect(d.override).toEqual({ index: 1, text: 'rollout.consumer_batch_size=100' });
    expect(d.line).toBeUndefined();
    expect(formatDiagnostic(d, 'cfg.yaml')).toMatch(
      /^override 1 'rollout.consumer_batch_size=100': error batch-divisibility /,
    );
  });
});

describe('dataset rules', () => {
  it('batch-size-mismatch is a warning at train_dataset.batch_size', () => {
    expectAt(
      mutate('  batch_size: 128\n  shuffle', '  batch_size: 64\n  shuffle'),
      'batch-size-mismatch',
      'warning',
      'batch_size: 64',
    );
  });
  it('dataset-path without webgym is an error', () => {
    expectAt(
      mutate('path: /path/to/webgym_tasks/train.jsonl', 'path: /data/tasks/train.jsonl'),
      'dataset-path',
      'error',
      'path: /data/tasks/train.jsonl',
    );
  });
  it('dataset-type other than rl is an error (valid_dataset too)', () => {
    expectAt(mutate('  type: rl\n  max_length', '  type: sft\n  max_length'), 'dataset-type', 'error', 'type: sft');
    const t = mutate('test.jsonl\n  type: rl', 'test.jsonl\n  type: sft');
    expect(expectAt(t, 'dataset-type', 'error', 'type: sft').key).toBe('valid_dataset.type');
  });
});

describe('actor rules', () => {
  it('max-tokens-per-mb below 16384 is an error', () => {
    expectAt(
      mutate('max_tokens_per_mb: 16384', 'max_tokens_per_mb: 8192'),
      'max-tokens-per-mb',
      'error',
      'max_tokens_per_mb: 8192',
    );
  });
  it('behav-imp-weight-cap must be > 1', () => {
    expectAt(
      mutate('behav_imp_weight_cap: 5.0', 'behav_imp_weight_cap: 0.5'),
      'behav-imp-weight-cap',
      'error',
      'behav_imp_weight_cap: 0.5',
    );
  });
  it('behav-imp-weight-cap needs use_decoupled_loss', () => {
    const t = mutate('use_decoupled_loss: true', 'use_decoupled_loss: false');
    expectAt(t, 'behav-imp-weight-cap-decoupled', 'error', 'behav_imp_weight_cap: 5.0');
  });
  it('hub-model-path is a warning', () => {
    const t = mutate('path: /path/to/models/Qwen3-VL-8B-Instruct', 'path: Qwen/Qwen3-VL-8B-Instruct');
    expectAt(t, 'hub-model-path', 'warning', 'path: Qwen/Qwen3-VL-8B-Instruct');
  });
  it('sglang-vlm-cache below 8192 is a warning at the variable', () => {
    expectAt(
      mutate('SGLANG_VLM_CACHE_SIZE_MB: "8192"', 'SGLANG_VLM_CACHE_SIZE_MB: "100"'),
      'sglang-vlm-cache',
      'warning',
      'SGLANG_VLM_CACHE_SIZE_MB',
    );
  });
  it('sglang-vlm-cache unset is a warning at the first scheduling spec', () => {
    const t = mutate('        SGLANG_VLM_CACHE_SIZE_MB: "8192"\n', '');
    const d = only(evaluate(t), 'sglang-vlm-cache');
    expect(d.severity).toBe('warning');
    // A list item is reported where its first key starts, just after the dash.
    expect({ line: d.line, col: d.col }).toEqual({
      line: posOf(t, '- task_type: worker').line,
      col: posOf(t, '- task_type: worker').col + 2,
    });
  });
  it('scheduling-spec-count: three specs is an error at the override (rollout inherits it)', () => {
    const ev = evaluate(REFERENCE, ['actor.scheduling_spec=[{gpu:1},{gpu:1},{gpu:1}]']);
    const ds = ev.diagnostics.filter((d) => d.code === 'scheduling-spec-count');
    // File positions first (rollout and ref take theirs through an interpolation), then the override.
    expect(ds.map((d) => d.key)).toEqual(['rollout.scheduling_spec', 'ref.scheduling_spec', 'actor.scheduling_spec']);
    expect(ds.every((d) => d.severity === 'error')).toBe(true);
    expect(ds[2].override?.index).toBe(1);
    expect(ds[0].line).toBe(posOf(REFERENCE, 'scheduling_spec: ${actor.scheduling_spec}').line);
  });
});

describe('inference rules', () => {
  it('context-length shorter than max_tokens is an error', () => {
    expectAt(
      mutate('context_length: 16384', 'context_length: 8192'),
      'context-length',
      'error',
      'context_length: 8192',
    );
  });
  it('multimodal off is a warning', () => {
    expectAt(
      mutate('enable_multimodal: true', 'enable_multimodal: false'),
      'multimodal',
      'warning',
      'enable_multimodal: false',
    );
  });
});

describe('runtime rules', () => {
  it('scheduler-type must be local, ray or slurm', () => {
    expectAt(mutate('scheduler:\n  type: ray', 'scheduler:\n  type: k8s'), 'scheduler-type', 'error', 'type: k8s');
  });
  it('scheduler-type unset is an error', () => {
    const ev = evaluate(REFERENCE, ['~scheduler.type']);
    expect(only(ev, 'scheduler-type').message).toContain('Unknown scheduler type: None');
  });
  it('name-resolve-type local does not exist', () => {
    const t = mutate('name_resolve:\n    type: ray', 'name_resolve:\n    type: local');
    expectAt(t, 'name-resolve-type', 'error', 'type: local', 'name_resolve');
  });
  it('recover-freq is a warning under slurm when unset', () => {
    const t = mutate('scheduler:\n  type: ray', 'scheduler:\n  type: slurm');
    expectAt(
      mutate('  freq_secs: 1200', '  freq_secs: null', t),
      'recover-freq',
      'warning',
      'freq_secs: null',
      'recover:',
    );
  });
  it('saver-mode must be auto, sync or async', () => {
    const t = mutate(
      'saver:\n  experiment_name: ${experiment_name}',
      'saver:\n  mode: fast\n  experiment_name: ${experiment_name}',
    );
    expectAt(t, 'saver-mode', 'error', 'mode: fast');
  });
  it('wandb-api-key: online without WANDB_API_KEY is an error; the value is never needed', () => {
    const d = expectAt(REFERENCE, 'wandb-api-key', 'error', 'mode: online', '', [], []);
    expect(d.message).toContain('WANDB_API_KEY');
    expect(evaluate(REFERENCE, [], ['WANDB_API_KEY']).diagnostics.some((x) => x.code === 'wandb-api-key')).toBe(false);
  });
});

describe('schema', () => {
  it('unknown-key names the full path and the dataclass', () => {
    const t = mutate('  eps_clip: 0.2', '  eps_clip: 0.2\n  foo: 1');
    const d = expectAt(t, 'unknown-key', 'error', 'foo: 1');
    expect(d.message).toContain("Key 'foo' not in 'PPOActorConfig'");
    expect(d.key).toBe('actor.foo');
  });
  it('unknown-key from ++ is reported at the override; free-form sections accept anything', () => {
    const ev = evaluate(REFERENCE, [
      '++actor.optimizer.betaX=1',
      '++webgym.anything.new=1',
      '++actor.scheduling_spec.0.env_vars.NEW=1',
    ]);
    const d = only(ev, 'unknown-key');
    expect(d.override?.index).toBe(1);
    expect(d.key).toBe('actor.optimizer.betaX');
    expect(ev.resolved!.actor.scheduling_spec[0].env_vars.NEW).toBe('1');
  });
  it('coerces like the trainer: int rejects 1.0, float takes "1e-5", bool takes yes/off', () => {
    expectAt(
      mutate('total_train_epochs: 10', 'total_train_epochs: 10.0'),
      'type-mismatch',
      'error',
      'total_train_epochs: 10.0',
    );
    const ev = evaluate(mutate('enable_offload: true', 'enable_offload: off', mutate('lr: 5.0e-6', "lr: '1e-5'")));
    expect(ev.diagnostics).toEqual([]);
    expect(ev.resolved!.enable_offload).toBe(false);
    expect(ev.resolved!.actor.optimizer.lr).toBe(1e-5);
    expect(evaluate(REFERENCE, ['seed="42"']).resolved!.seed).toBe(42);
  });
  it('missing-value: a mandatory ??? left unset', () => {
    const ev = evaluate(REFERENCE, ['~trial_name']);
    expect(ev.diagnostics.find((d) => d.code === 'missing-value' && d.key === 'trial_name')?.severity).toBe('error');
    expect(ev.trialName).toBeNull();
    expect(evaluate(REFERENCE, ['~experiment_name']).experimentName).toBeNull();
  });
  it('interpolation: a missing target names the key', () => {
    const t = mutate('tokenizer_path: ${actor.path}', 'tokenizer_path: ${actor.pth}');
    const ds = evaluate(t).diagnostics.filter((d) => d.code === 'interpolation');
    // rollout.tokenizer_path: ${tokenizer_path} fails with it, as in OmegaConf.
    expect(ds.map((d) => d.key)).toEqual(['tokenizer_path', 'rollout.tokenizer_path']);
    expect(ds[0].message).toContain("'actor.pth'");
    expect({ line: ds[0].line, col: ds[0].col }).toEqual(posOf(t, 'tokenizer_path: ${actor.pth}'));
  });
  it('interpolation: a cycle is an error', () => {
    const ev = evaluate(REFERENCE, ['seed=${sglang.random_seed}']);
    expect(ev.diagnostics.some((d) => d.code === 'interpolation' && /Recursive/.test(d.message))).toBe(true);
  });
});

describe('yaml and override errors', () => {
  it('yaml-syntax: a duplicate key is an error at its position', () => {
    const t = mutate('seed: 1\n', 'seed: 1\nseed: 2\n');
    const ev = evaluate(t);
    const d = only(ev, 'yaml-syntax');
    expect(d.line).toBe(posOf(t, 'seed: 2').line);
    expect(ev.resolved).toBeNull();
  });
  it('override-syntax, -missing-key, -exists, -delete', () => {
    const ev = evaluate(REFERENCE, ['seed=1,2', 'nope=1', '+seed=3', '~nothing', 'actor.path=héllo']);
    expect(ev.diagnostics.map((d) => [d.code, d.override?.index])).toEqual([
      ['override-syntax', 1],
      ['override-missing-key', 2],
      ['override-exists', 3],
      ['override-delete', 4],
      ['override-syntax', 5],
    ]);
    expect(ev.diagnostics[1].message).toContain('+nope=1');
  });
});

describe('secrets', () => {
  it('secret-in-config: a key in the YAML or an override is an error that never shows the value', () => {
    const t = mutate('    entity: webgym', "    entity: webgym\n    wandb_api_key: 'sk-live-abc123'");
    const d = expectAt(t, 'secret-in-config', 'error', 'wandb_api_key');
    expect(d.message).toContain('WANDB_API_KEY');
    const ev = evaluate(REFERENCE, ['++webgym.cpu_cluster_token=tok-xyz987', 'stats_logger.wandb.mode=disabled']);
    const s = only(ev, 'secret-in-config');
    expect(s.override?.index).toBe(1);
    expect(s.override?.text).toBe('++webgym.cpu_cluster_token=<redacted>');
    const exists = evaluate(REFERENCE, [
      '+webgym.cpu_cluster_token=tok-xyz987',
      '+webgym.cpu_cluster_token=tok-xyz987',
    ]);
    const sweep = evaluate(REFERENCE, ['webgym.cpu_cluster_token=a,tok-xyz987']);
    expect(exists.diagnostics.map((d) => d.code)).toContain('override-exists');
    expect(sweep.diagnostics.map((d) => d.code)).toEqual(['override-syntax']);
    for (const x of [...ev.diagnostics, ...exists.diagnostics, ...sweep.diagnostics, ...evaluate(t).diagnostics])
      expect(JSON.stringify(x)).not.toMatch(/sk-live-abc123|tok-xyz987/);
  });
  it('*_env_var keys only name a variable and are fine', () => {
    expect(evaluate(REFERENCE).diagnostics).toEqual([]);
  });
});

describe('resolvers', () => {
  it('${oc.env:X} is left to the trainer with a warning that names the variable, never its value', () => {
    const t = mutate('  fileroot: /path/to/areal-fileroot', '  fileroot: ${oc.env:AREAL_ROOT}/fileroot');
    const ev = evaluate(t, [], ['WANDB_API_KEY']);
    const d = ev.diagnostics.find((x) => x.code === 'resolver' && x.key === 'cluster.fileroot')!;
    expect(d.severity).toBe('warning');
    expect(d.message).toContain('AREAL_ROOT is not set here');
    expect(ev.hasErrors).toBe(false);
    expect(ev.resolved!.cluster.fileroot).toBe('${oc.env:AREAL_ROOT}/fileroot');
    expect(
      evaluate(t, [], ['WANDB_API_KEY', 'AREAL_ROOT']).diagnostics.find((x) => x.key === 'cluster.fileroot')!.message,
    ).toContain('AREAL_ROOT is set here');
  });

  it("a resolver OmegaConf does not have is named as the trainer's failure, with the likely one", () => {
    const t = mutate('  fileroot: /path/to/areal-fileroot', '  fileroot: ${oc.evn:AREAL_ROOT}/fileroot');
    const d = evaluate(t).diagnostics.find((x) => x.code === 'resolver' && x.key === 'cluster.fileroot')!;
    expect(d.message).toMatch(/no resolver named oc\.evn \(did you mean oc\.env\?\).*UnsupportedInterpolationType/);
    // What real OmegaConf says about the same text.
    const py = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        'from omegaconf import OmegaConf\ntry:\n  OmegaConf.create({"a": "${oc.evn:X}"}).a\nexcept Exception as e: print(type(e).__name__)',
      ],
      { encoding: 'utf8' },
    );
    expect(py.stdout.trim()).toBe('UnsupportedInterpolationType');
    const known = evaluate(
      mutate('  fileroot: /path/to/areal-fileroot', '  fileroot: ${oc.select:cluster.n_nodes,1}'),
    ).diagnostics.find((x) => x.code === 'resolver')!;
    expect(known.message).not.toMatch(/no resolver named/);
  });
});
