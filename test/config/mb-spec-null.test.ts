// `actor.mb_spec.max_tokens_per_mb: null` is what the trainer's own dataclass defaults to
// (MicroBatchSpec.max_tokens_per_mb: int | None = None) and what AReaL turns into "no token cap"
// (split_padded_tensor_dict_into_mb_list: None -> DEFAULT_MAX_TOKENS_PER_MB = 10**12): a whole
// trajectory always fits one micro-batch. The cockpit must not refuse what the trainer runs.
import { describe, expect, it } from 'vitest';
import { parseOverride, toTyped } from '../../src/config/index.js';
import { MISSING, type Field } from '../../src/config/schema/dsl.js';
import { webGymConfig } from '../../src/config/schema/experiment.js';
import { omegaconfAvailable, runOmegaConf } from '../harness/omegaconf.js';
import { evaluate, mutate } from './helpers.js';

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

const NULL_IN_FILE = mutate('max_tokens_per_mb: 16384', 'max_tokens_per_mb: null');
const ABSENT = mutate('  mb_spec:\n    max_tokens_per_mb: 16384\n  optimizer:', '  optimizer:');

describe('actor.mb_spec.max_tokens_per_mb: null (the dataclass default)', () => {
  it('null in the file is no max-tokens-per-mb error, and the config has no error at all', () => {
    const ev = evaluate(NULL_IN_FILE);
    expect(ev.diagnostics.filter((d) => d.code === 'max-tokens-per-mb')).toEqual([]);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ev.resolved?.actor.mb_spec.max_tokens_per_mb).toBeNull();
  });

  it('left out (the default None) and set to null by an override are accepted too', () => {
    expect(evaluate(ABSENT).diagnostics.filter((d) => d.code === 'max-tokens-per-mb')).toEqual([]);
    const ev = evaluate(mutate('x', 'x'), ['actor.mb_spec.max_tokens_per_mb=null']);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ev.resolved?.actor.mb_spec.max_tokens_per_mb).toBeNull();
  });

  it('a number below a trajectory is still refused (the rule is about a set cap)', () => {
    const ev = evaluate(mutate('max_tokens_per_mb: 16384', 'max_tokens_per_mb: 8192'));
    expect(ev.diagnostics.filter((d) => d.code === 'max-tokens-per-mb').map((d) => d.line)).toEqual([95]);
  });

  it.skipIf(!omegaconfAvailable())(
    'real OmegaConf merges null into MicroBatchSpec (Optional[int]) as None, from the file and from an override',
    () => {
      const schema = schemaJson(webGymConfig);
      const o = parseOverride('actor.mb_spec.max_tokens_per_mb=null');
      const [fromFile, fromOverride] = runOmegaConf([
        { kind: 'structured', schema, text: NULL_IN_FILE },
        {
          kind: 'structured',
          schema,
          text: mutate('x', 'x'),
          overrides: [{ kind: o.kind, key: o.key, value: toTyped(o.value!) }],
        },
      ]);
      for (const r of [fromFile, fromOverride]) {
        expect('ok' in r).toBe(true);
        expect((r as { ok: any }).ok.actor.mb_spec.max_tokens_per_mb).toBeNull();
      }
    },
  );
});
