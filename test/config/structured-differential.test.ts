// The whole load path against real OmegaConf: overrides (Hydra's rules), then
// OmegaConf.merge(OmegaConf.structured(WebGymConfig), yaml) and resolution, with the dataclasses
// built in Python from this engine's schema description. Compares the resolved typed config, or
// that both refuse.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseOverride, toTyped } from '../../src/config/index.js';
import { MISSING, type Field } from '../../src/config/schema/dsl.js';
import { webGymConfig } from '../../src/config/schema/experiment.js';
import { runOmegaConf, type RefResult } from '../harness/omegaconf.js';
import { evaluate, mutate, REFERENCE } from './helpers.js';

function schemaJson(f: Field): unknown {
  const d = f.d === MISSING ? '???' : f.d;
  if (f.k === 'obj')
    return {
      k: 'obj',
      name: f.name,
      opt: f.opt,
      d,
      fields: Object.fromEntries(Object.entries(f.fields).map(([k, x]) => [k, schemaJson(x)])),
    };
  if (f.k === 'list' || f.k === 'dict') return { k: f.k, opt: f.opt, d, of: schemaJson(f.of) };
  return { k: f.k, opt: f.opt, d };
}
const SCHEMA = schemaJson(webGymConfig);

const M = (from: string, to: string) => mutate(from, to);
const CASES: [string, string, string[]][] = [
  ['reference', REFERENCE, []],
  ['seed as a quoted string', M('seed: 1\n', 'seed: "42"\n'), []],
  ['seed as a float', M('seed: 1\n', 'seed: 42.0\n'), []],
  ['seed as yes', M('seed: 1\n', 'seed: yes\n'), []],
  ['bool from "yes"', M('enable_offload: true', 'enable_offload: "yes"'), []],
  ['bool from 2', M('enable_offload: true', 'enable_offload: 2'), []],
  ['bool from 1.0', M('enable_offload: true', 'enable_offload: 1.0'), []],
  ['float from "1e-5"', M('lr: 5.0e-6', "lr: '1e-5'"), []],
  ['float from 1', M('lr: 5.0e-6', 'lr: 1'), []],
  ['int from "10"', M('total_train_epochs: 10', 'total_train_epochs: "10"'), []],
  ['int from "1_0"', M('total_train_epochs: 10', 'total_train_epochs: "1_0"'), []],
  ['str field from an int interpolation', M('tokenizer_path: ${actor.path}', 'tokenizer_path: ${seed}'), []],
  ['int field from a str interpolation', M('random_seed: ${seed}', 'random_seed: ${trial_name}'), []],
  [
    'int field from a numeric str interpolation',
    M('trial_name: intuition-model', 'trial_name: "7"').replace('random_seed: ${seed}', 'random_seed: ${trial_name}'),
    [],
  ],
  ['embedded interpolation into an int field', M('random_seed: ${seed}', 'random_seed: 1${seed}'), []],
  ['top_k 1e8 is a float', M('  temperature: 1.0\n', '  temperature: 1.0\n  top_k: 1e8\n'), []],
  ['unknown root key', M('seed: 1\n', 'seed: 1\nfoo: 1\n'), []],
  ['unknown nested key', M('  eps_clip: 0.2', '  eps_clip: 0.2\n  eps_clipp: 0.3'), []],
  [
    'wrap_policy null',
    M(
      '    wrap_policy:\n      transformer_layer_cls_to_wrap:\n        - Qwen3VLTextDecoderLayer\n        - Qwen3VLVisionBlock\n  mb_spec',
      '    wrap_policy: null\n  mb_spec',
    ),
    [],
  ],
  ['ref null', REFERENCE.replace(/\nref:\n[\s\S]*?\ncritic: null/, '\nref: null\ncritic: null'), []],
  ['critic set', M('critic: null', 'critic: {path: /m/critic, experiment_name: e, trial_name: t}'), []],
  ['valid_dataset null', REFERENCE.replace(/\nvalid_dataset:\n[\s\S]*?type: rl\n/, '\nvalid_dataset: null\n'), []],
  ['openai_config null', REFERENCE.replace(/\nopenai_config:\n[\s\S]*?openai\/"\n/, '\nopenai_config: null\n'), []],
  [
    'env var values become strings',
    M('WEBGYM_SKIP_IMAGE_JUDGE: "0"', 'WEBGYM_SKIP_IMAGE_JUDGE: 0\n        FLAG: true\n        RATE: 1e-3'),
    [],
  ],
  ['spec gpu from a string', M('      gpu: 1\n', '      gpu: "2"\n'), []],
  [
    'list of str from mixed',
    M('    id_suffix: timestamp', '    id_suffix: timestamp\n    tags: [a, 1, 2.5, true]'),
    [],
  ],
  [
    'list of int from strings',
    M('  attention_backend: flashinfer', '  attention_backend: flashinfer\n  cuda_graph_bs: [1, "2", 0x10]'),
    [],
  ],
  ['list field given a string', M('  temperature: 1.0\n', '  temperature: 1.0\n  stop: x\n'), []],
  ['non-optional group null', REFERENCE.replace(/\ncluster:\n[\s\S]*?type: ray\n/, '\ncluster: null\n'), []],
  ['optional int from a string', M('  queue_size: null', '  queue_size: "7"'), []],
  ['kl_ctl 0 becomes 0.0', M('kl_ctl: 0.0', 'kl_ctl: 0'), []],
  ['optional group from a dict', M('  adv_norm: null', '  adv_norm: {mean_level: batch}'), []],
  ['int timer from a float', M('  freq_secs: 1200', '  freq_secs: 1.5'), []],
  ['non-optional str null', M('experiment_name: auto', 'experiment_name: null'), []],
  ['optional str null', M('rollout:\n  experiment_name: ${experiment_name}', 'rollout:\n  experiment_name: null'), []],
  [
    'relative interpolation',
    M('  max_new_tokens: ${gconfig.max_new_tokens}', '  max_new_tokens: ${..gconfig.max_new_tokens}'),
    [],
  ],
  [
    'interpolation between int fields',
    M('consumer_batch_size: 128', 'consumer_batch_size: ${train_dataset.batch_size}'),
    [],
  ],
  ['perf_tracer null', REFERENCE.replace(/\nperf_tracer:\n[\s\S]*$/, '\nperf_tracer: null\n'), []],
  [
    'free-form dicts',
    M('scheduler:\n  type: ray', 'scheduler:\n  type: local\n  reward_functioncall_config: {a: [1, {b: 2}]}'),
    [],
  ],
  ['wandb config dict', M('    id_suffix: timestamp', '    id_suffix: timestamp\n    config: {lr: 1, x: [yes]}'), []],
  ['missing target', M('tokenizer_path: ${actor.path}', 'tokenizer_path: ${actor.pth}'), []],
  ['interpolation to ???', M('trial_name: intuition-model', 'trial_name: ???'), []],
  [
    'list interpolation into list field',
    M(
      '  scheduling_spec: ${actor.scheduling_spec}\n  fileroot',
      '  scheduling_spec: ${ref.scheduling_spec}\n  fileroot',
    ),
    [],
  ],
  [
    'overrides: typed values',
    REFERENCE,
    ['seed=42', 'actor.optimizer.lr=1e-4', 'gconfig.top_p=1', 'enable_offload=off', 'total_train_epochs="3"'],
  ],
  ['overrides: ++ unknown key', REFERENCE, ['++actor.new=1']],
  ['overrides: + new key in group', REFERENCE, ['+actor.optimizer.betaX=2']],
  ['overrides: dict merge', REFERENCE, ['actor.optimizer={lr:1e-4,eps:1e-6}']],
  ['overrides: delete optional group', REFERENCE, ['~valid_dataset']],
  ['overrides: ++ null', REFERENCE, ['++sglang.context_length=null']],
  ['overrides: int field gets 1.0', REFERENCE, ['seed=1.0']],
  ['overrides: add default-only field', REFERENCE, ['+actor.optimizer.offload=true']],
  ['overrides: add default-only group', REFERENCE, ['++eval_gconfig={temperature:0.6}']],
  ['overrides: list replace', REFERENCE, ['actor.scheduling_spec=[{gpu:2,env_vars:{SGLANG_VLM_CACHE_SIZE_MB:8192}}]']],
  ['overrides: list index', REFERENCE, ['actor.scheduling_spec.0.mem=64']],
  ['overrides: interpolation value', REFERENCE, ['++vllm.seed=${gconfig.n_samples}', 'trial_name=${seed}x']],
  ['overrides: string into bool', REFERENCE, ['enable_offload=maybe']],
  ['overrides: quoted number into int', REFERENCE, ["seed='0x10'"]],
  // OmegaConf 2.4 merges (#17): a ??? keeps the dataclass value; containers inside scalar lists/dicts stay.
  ['seed: ??? keeps the default', M('seed: 1\n', 'seed: ???\n'), []],
  ['optional group ??? keeps None', M('critic: null', 'critic: ???'), []],
  ['overrides: seed=??? keeps the default', REFERENCE, ['seed=???']],
  [
    'a list inside a list[str] element',
    M('    id_suffix: timestamp', '    id_suffix: timestamp\n    tags: [a, [b, 1], {c: 2}]'),
    [],
  ],
  ['a list as an env_vars value', M('WEBGYM_SKIP_IMAGE_JUDGE: "0"', 'WEBGYM_SKIP_IMAGE_JUDGE: [0, x]'), []],
  ['a dict as an env_vars value', M('WEBGYM_SKIP_IMAGE_JUDGE: "0"', 'WEBGYM_SKIP_IMAGE_JUDGE: {a: [1, 2.5]}'), []],
  [
    'overrides: a key under an env_vars string',
    REFERENCE,
    ['++actor.scheduling_spec.0.env_vars.SGLANG_VLM_CACHE_SIZE_MB.y=2'],
  ],
  ['a file that is only a scalar', 'hello\n', []],
];

let ref: RefResult[] = [];
beforeAll(() => {
  ref = runOmegaConf(
    CASES.map(([, text, ovs]) => ({
      kind: 'structured' as const,
      schema: SCHEMA,
      text,
      overrides: ovs.map((t) => {
        const p = parseOverride(t);
        return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
      }),
    })),
  );
});

const REFUSING = /^(yaml-syntax|override-.*|unknown-key|type-mismatch|not-optional|interpolation|missing-value)$/;

describe('structured load vs real OmegaConf', () => {
  it.each(CASES.map(([name], i) => [name, i] as const))('%s', (_name, i) => {
    const [, text, ovs] = CASES[i];
    const ev = evaluate(text, ovs);
    const refusing = ev.diagnostics.filter((d) => d.severity === 'error' && REFUSING.test(d.code));
    const r = ref[i];
    if ('ok' in r) {
      expect(refusing).toEqual([]);
      const mine = toTyped(ev.resolvedTree!) as Record<string, unknown>;
      const theirs = r.ok as Record<string, unknown>;
      // eval_gconfig is filled by PPOConfig.__post_init__, which OmegaConf does not run.
      delete mine.eval_gconfig;
      delete theirs.eval_gconfig;
      expect(mine).toEqual(theirs);
    } else {
      expect(refusing.length, `OmegaConf refused (${r.stage}: ${r.error} ${r.message})`).toBeGreaterThan(0);
    }
  });
});

describe('the structured cases exercise both outcomes', () => {
  it('OmegaConf refuses exactly the cases meant to be refused', () => {
    const refused = CASES.filter((_, i) => !('ok' in ref[i])).map(([name]) => name);
    expect(refused).toEqual([
      'seed as a float',
      'seed as yes',
      'bool from 1.0',
      'int field from a str interpolation',
      'top_k 1e8 is a float',
      'unknown root key',
      'unknown nested key',
      'list field given a string',
      'non-optional group null',
      'int timer from a float',
      'non-optional str null',
      'missing target',
      'interpolation to ???',
      'overrides: ++ unknown key',
      'overrides: + new key in group',
      'overrides: int field gets 1.0',
      'overrides: string into bool',
      'overrides: quoted number into int',
      'a file that is only a scalar',
    ]);
  });
});
