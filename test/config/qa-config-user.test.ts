// QA pass as a demanding user: disagreements with the trainer found by probing the config engine at
// its edges. Each case names what the trainer does (real OmegaConf 2.2 on /usr/bin/python3, Hydra's
// OverrideLexer.g4, areal/api/alloc_mode.py, webgym/train.py) and the engine used to do otherwise.
import { beforeAll, describe, expect, it } from 'vitest';
import { coerceScalar } from '../../src/config/coerce.js';
import { parseAllocationMode, parseOverride, resolveWithoutSchema, toTyped } from '../../src/config/index.js';
import { omegaconfAvailable, runOmegaConf, type RefResult } from '../harness/omegaconf.js';
import { evaluate, mutate, only, posOf, REFERENCE } from './helpers.js';

const errors = (overrides: string[], text = REFERENCE) =>
  evaluate(text, overrides).diagnostics.filter((d) => d.severity === 'error');

describe('a list or dict given to a scalar field: the trainer names it as an OmegaConf node', () => {
  // The engine used to print "Value 'list' of type 'list'".
  const values = {
    list: {
      t: 'list' as const,
      a: [
        { t: 'int' as const, v: 1 },
        { t: 'int' as const, v: 2 },
      ],
    },
    dict: { t: 'map' as const, m: new Map([['a', { t: 'int' as const, v: 1 }]]) },
  };
  const cases = (['int', 'float', 'bool', 'str'] as const).flatMap((type) =>
    (['list', 'dict'] as const).map((shape) => ({ type, shape })),
  );
  let ref: RefResult[] = [];
  beforeAll(() => {
    if (omegaconfAvailable())
      ref = runOmegaConf(
        cases.map(({ type, shape }) => ({ kind: 'coerce' as const, type, value: toTyped(values[shape]) })),
      );
  });
  it.each(cases.map((c, i) => [`${c.shape} into ${c.type}`, i] as const))('%s: same message as OmegaConf', (_, i) => {
    if (!omegaconfAvailable()) return;
    const { type, shape } = cases[i];
    const mine = coerceScalar(type, values[shape]);
    const r = ref[i];
    expect('message' in r).toBe(true);
    expect(mine.ok).toBe(false);
    expect(!mine.ok && mine.message).toBe((r as { message: string }).message);
  });
  it('seed=[1,2] says so in one error, at the override', () => {
    const errs = errors(['seed=[1,2]']);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'type-mismatch', override: { index: 1 } });
    expect(errs[0].message).toMatch(
      /^Value '\[1, 2\]' of type 'ListConfig' could not be converted to Integer \(field 'seed' is int\)/,
    );
  });
});

describe('one mistake, one error', () => {
  // seed feeds sglang.random_seed and vllm.seed through ${seed}: the trainer stops at seed; the
  // engine used to add an error per copy, listed BEFORE the cause.
  it.each(['seed=.5', 'seed=1e5', 'seed=inf', 'seed=0x10', 'seed=', 'seed=true'])(
    '%s: only the override is wrong',
    (o) => {
      const errs = errors([o]);
      expect(errs.map((d) => [d.code, d.key, d.override?.index])).toEqual([['type-mismatch', 'seed', 1]]);
    },
  );
  it('the same from the file: one error at the line that is wrong', () => {
    const text = mutate('seed: 1', 'seed: 1.5');
    const errs = errors([], text);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'type-mismatch', key: 'seed', ...posOf(text, 'seed: 1.5') });
  });
  it('a copy that is wrong on its own is still reported', () => {
    const errs = errors(['sglang.random_seed=${trial_name}']);
    expect(errs.map((d) => d.key)).toEqual(['sglang.random_seed']);
  });
});

describe('Unicode digits: Python int()/float() read them, so OmegaConf does', () => {
  it.each([
    ['int', '٣', 3],
    ['int', '１２', 12],
    ['float', '٣.5', 3.5],
    ['int', '𝟗𝟎', 90],
  ] as const)('%s field takes %s', (type, text, want) => {
    const r = coerceScalar(type, { t: 'str', v: text });
    expect(r).toMatchObject({ ok: true, value: { t: type, v: want } });
  });
  it('and matches real OmegaConf', () => {
    if (!omegaconfAvailable()) return;
    const vals = ['٣', '１２', '٣_٣', '٣.5', '𝟗𝟎'];
    const ref = runOmegaConf(
      vals.flatMap((v) => [
        { kind: 'coerce' as const, type: 'int' as const, value: v },
        { kind: 'coerce' as const, type: 'float' as const, value: v },
      ]),
    );
    vals.forEach((v, i) => {
      for (const [j, type] of (['int', 'float'] as const).entries()) {
        const r = ref[i * 2 + j];
        const mine = coerceScalar(type, { t: 'str', v });
        if ('ok' in r)
          expect(mine.ok && (mine.value as { v: number }).v).toBe(
            typeof r.ok === 'object' ? Number((r.ok as { float: string }).float) : r.ok,
          );
        else expect(mine.ok).toBe(false);
      }
    });
  });
  it("the reference config with seed: '٣' is fine, and seed is 3", () => {
    const ev = evaluate(mutate('seed: 1', "seed: '٣'"));
    expect(ev.hasErrors).toBe(false);
    expect(ev.resolved!.seed).toBe(3);
  });
});

describe('YAML aliases: PyYAML refuses what the yaml package lets through', () => {
  // An alias without its anchor used to become null silently.
  it('an undefined alias is an error at its position', () => {
    const text = mutate('seed: 1', 'seed: *base_seed');
    const errs = errors([], text);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'yaml-syntax', line: posOf(text, 'seed: *base_seed').line });
    expect(errs[0].message).toMatch(/undefined alias 'base_seed'/);
  });
  it.each(['v: *.\n', 'v: &a.b 1\n'])('an alias or anchor name outside [A-Za-z0-9_-] is refused: %j', (text) => {
    expect(resolveWithoutSchema(text)).toMatchObject({ stage: 'load' });
    if (omegaconfAvailable()) expect(runOmegaConf([{ kind: 'yaml', text }])[0]).toMatchObject({ stage: 'load' });
  });
  it('a defined alias still works', () => {
    expect(resolveWithoutSchema('a: &x 5\nb: *x\n')).toEqual({ ok: { a: 5, b: 5 } });
  });
});

describe('Hydra override lexing (OverrideLexer.g4)', () => {
  // EXPONENT_FLOAT: ... [eE] [+-]? DIGIT (('_')? DIGIT)* : underscores in the exponent too.
  it('1e1_0 is a float (1e10), as Python float() reads it', () => {
    expect(parseOverride('k=1e1_0').value).toEqual({ t: 'float', v: 1e10 });
    expect(parseOverride('k=1.5E-0_5').value).toEqual({ t: 'float', v: 1.5e-5 });
  });
  // INTERPOLATION: '${' ~('}')+ '}' ends at the first '}': nested needs quotes.
  it('a nested interpolation unquoted is refused and the fix is named', () => {
    const d = only(evaluate(REFERENCE, ['experiment_name=${a.${b}}']), 'override-syntax');
    expect(d.message).toContain("a nested interpolation must be quoted: experiment_name='${a.${b}}'");
    expect(parseOverride("k='${a.${b}}'").value).toEqual({ t: 'str', v: '${a.${b}}' });
  });
});

describe('allocation_mode', () => {
  // webgym/train.py: dp_size = AllocationMode.from_str(...).train.data_parallel_size: the TRAINING
  // component, whatever the names. An inference component named 'actor' used to be taken.
  it("the batch is sized by the training component, not by an inference component named 'actor'", () => {
    expect(parseAllocationMode('sglang[actor]:d48+fsdp[train]:d16')).toMatchObject({ ok: true, actorDp: 16 });
    const ev = evaluate(REFERENCE, ["allocation_mode='sglang[actor]:d48+fsdp[train]:d16'"]);
    expect(ev.diagnostics.filter((d) => d.code === 'batch-divisibility')).toEqual([]);
  });
  // Lark's %ignore WS is [ \t\f\r\n]+ only.
  it('a no-break space is not whitespace to the trainer', () => {
    const r = parseAllocationMode('sglang[rollout]:d48\u00a0+fsdp[actor]:d16');
    expect(r).toMatchObject({ ok: false, col: 20 });
    expect(!r.ok && r.message).toMatch(/U\+00A0/);
    expect(parseAllocationMode('sglang[rollout]:d48\t+\nfsdp[actor]:d16')).toMatchObject({ ok: true, totalGpus: 64 });
  });
});

describe('YAML syntax errors are placed where the trainer (PyYAML) places them', () => {
  const yamlErr = (text: string) => only(evaluate(text), 'yaml-syntax');
  // The yaml package reports the line ABOVE (start of the value that became multi-line).
  it("an over-indented key: PyYAML's mark, the ':' of that line", () => {
    const text = mutate('  min_new_tokens: 0', '   min_new_tokens: 0');
    const d = yamlErr(text);
    expect(d).toMatchObject({ line: posOf(text, '   min_new_tokens: 0').line, col: 18 });
    expect(d.message).toMatch(/^mapping values are not allowed here/);
  });
  it('an over-indented FIRST key: the next key, at its column (the yaml package said column 1)', () => {
    const text = mutate('  n_samples: 8', '   n_samples: 8');
    expect(yamlErr(text)).toMatchObject({ line: posOf(text, '  min_new_tokens: 0').line, col: 3 });
  });
  // The yaml package reported a stray '- item' from the blank line above the comments before it.
  it("a stray '- key:' line: its own line", () => {
    const text = mutate('\nallocation_mode:', '\n- allocation_mode:');
    expect(yamlErr(text)).toMatchObject({ line: posOf(text, '- allocation_mode:').line, col: 1 });
  });
  // PyYAML: "while scanning a quoted scalar (the opening quote) … found unexpected end of stream";
  // the yaml package pointed at the end of the file only.
  it("an unclosed quote: where PyYAML's scanner ends (no ' follows: the end of the file), the opening named", () => {
    const text = mutate('    target: actor', "    target: 'actor");
    const d = yamlErr(text);
    expect(d).toMatchObject({ line: text.split('\n').length, col: 1 });
    expect(d.message).toContain(
      `quote opened at line ${posOf(text, "target: 'actor").line}, column 13 is never closed`,
    );
  });
});

describe('SGLANG_VLM_CACHE_SIZE_MB as SGLang reads it (int())', () => {
  const cache = (v: string) =>
    evaluate(REFERENCE, [`actor.scheduling_spec.0.env_vars.SGLANG_VLM_CACHE_SIZE_MB=${v}`]).diagnostics.filter(
      (d) => d.code === 'sglang-vlm-cache',
    );
  // 1e4 on the command line is a float; in the str field it becomes '10000.0', which int() refuses.
  it.each(['1e4', '0x2000', "'8192 MB'"])('%s is not a number of MB to SGLang: warned', (v) => {
    expect(cache(v)).toHaveLength(1);
    expect(cache(v)[0].message).toMatch(/cannot read as a whole number of MB/);
  });
  it.each(['8192', '8_192', "' 9000 '", '16384'])('%s is fine', (v) => {
    expect(cache(v)).toEqual([]);
  });
  it('8191 is one short', () => {
    expect(cache('8191')).toHaveLength(1);
  });
});

describe('ints beyond 2^53 stay exact (Python ints are)', () => {
  // The launch argv used to carry ++seed=12345678901234567000: another seed than the one asked for.
  it('an override is relaunched with the digits the user typed', () => {
    const ev = evaluate(REFERENCE, ['seed=12345678901234567890', 'trial_name=t${seed}']);
    const argv = ev.launchArgv({ remoteConfigPath: '/r/c.yaml' });
    expect(argv).toContain('++seed=12345678901234567890');
    expect(ev.resolved!.trial_name).toBe('t12345678901234567890');
  });
  it('from the file too, through str() of an interpolation', () => {
    expect(resolveWithoutSchema('seed: 98765432109876543210\nname: run${seed}\n')).toMatchObject({
      ok: { name: 'run98765432109876543210' },
    });
  });
});

describe('an override path that cannot be reached says why (not "use +", which fails too)', () => {
  it.each(['actor.scheduling_spec.5.gpu=2', '+actor.scheduling_spec.5.gpu=2', '++actor.scheduling_spec.2={gpu:1}'])(
    '%s: a list index past the end',
    (o) => {
      const d = only(evaluate(REFERENCE, [o]), 'override-missing-key');
      expect(d.message).toMatch(
        /index \d is out of range: 'actor\.scheduling_spec' has 1 entry .* give the whole list: actor\.scheduling_spec=\[…\]\.$/,
      );
      expect(d.message).not.toMatch(/To append it use \+/);
    },
  );
  it('a key under a plain value', () => {
    const d = only(evaluate(REFERENCE, ['actor.optimizer.lr.x=1']), 'override-missing-key');
    expect(d.message).toBe(
      "Could not override 'actor.optimizer.lr.x': 'actor.optimizer.lr' is a plain value (5e-06), not a mapping: it has no 'x'.",
    );
  });
  it('a key missing from a mapping still gets the + advice', () => {
    expect(only(evaluate(REFERENCE, ['actor.foo=1']), 'override-missing-key').message).toMatch(
      /To append it use \+actor\.foo=1/,
    );
  });
});

describe('allocation_mode names and the hybrid MoE form (Lark grammar)', () => {
  // NAME: /[a-zA-Z_][a-zA-Z0-9_]*/ — the engine used to say "bad dimensions 'fsdp[1abc]:d4'".
  it.each([
    ['fsdp[1abc]:d4', /'1abc' is not a valid name/],
    ['sglang[roll-out]:d4+fsdp:d4', /'roll-out' is not a valid name/],
    ['sglang[]:d4+fsdp:d4', /name in 'sglang\[\]:d4' is empty/],
    ['sglang[r]d4+fsdp:d4', /needs ':' after the name/],
  ])('%s is refused with a message about the name', (mode, re) => {
    const r = parseAllocationMode(mode);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(re);
  });
  // hybrid_moe_syntax: "("? attn_section "|" ffn_section ")"? — the parentheses are optional.
  it('megatron:attn:d4t2|ffn:e4t2 without parentheses is one component', () => {
    expect(parseAllocationMode('sglang:d4+megatron:attn:d4t2|ffn:e4t2')).toMatchObject({
      ok: true,
      totalGpus: 12,
      actorDp: 4,
    });
  });
});

describe('test rollout: what webgym/train.py computes before anything starts', () => {
  it('n_gpus 0 with the test rollout on is an error at test_rollout.n_gpus (ZeroDivisionError in the trainer)', () => {
    const d = only(
      evaluate(REFERENCE, [
        'test_rollout.enabled=true',
        'test_rollout.n_gpus=0',
        'allocation_mode=sglang:d48+fsdp:d16',
      ]),
      'test-rollout',
    );
    expect(d).toMatchObject({ severity: 'error', key: 'test_rollout.n_gpus', override: { index: 2 } });
  });
  it('no inference component with the test rollout on is an error (alloc.gen is None)', () => {
    expect(only(evaluate(REFERENCE, ['test_rollout.enabled=true', 'allocation_mode=d56']), 'test-rollout').key).toBe(
      'test_rollout.enabled',
    );
  });
  it('without a valid_dataset the trainer skips the test rollout: nothing to say', () => {
    expect(
      evaluate(REFERENCE, [
        'test_rollout.enabled=true',
        'test_rollout.n_gpus=0',
        'valid_dataset=null',
      ]).diagnostics.filter((d) => d.code === 'test-rollout'),
    ).toEqual([]);
  });
});

describe('YAML scalars the resolver matches but Python cannot construct', () => {
  // PyYAML: 0x_ matches the int resolver, then int('', 16) raises; ._ matches the float one, then
  // float('.') raises. The engine used to load them as NaN.
  it.each(['v: 0x_\n', 'v: 0b_\n', 'v: ._\n', 'v: !!int 0x_\n', 'v: !!float ._\n'])(
    '%j is a load error, as in OmegaConf',
    (text) => {
      expect(resolveWithoutSchema(text)).toMatchObject({ stage: 'load' });
      if (omegaconfAvailable()) expect(runOmegaConf([{ kind: 'yaml', text }])[0]).toMatchObject({ stage: 'load' });
    },
  );
  it('.nan is still NaN', () => {
    expect(resolveWithoutSchema('v: .nan\n')).toMatchObject({ ok: { v: { float: 'nan' } } });
  });
});

describe('YAML keys as OmegaConf loads them', () => {
  const both = (text: string) => ({
    mine: resolveWithoutSchema(text),
    ref: omegaconfAvailable() ? runOmegaConf([{ kind: 'yaml', text }])[0] : null,
  });
  it('a null key is refused ("Incompatible key type"), at the key', () => {
    const { mine, ref } = both('a: 1\nnull: 2\n');
    expect(mine).toMatchObject({ stage: 'load' });
    if (ref) expect(ref).toMatchObject({ stage: 'load', message: "Incompatible key type 'NoneType'" });
    expect(only(evaluate(`${REFERENCE}\nwebgym_extra:\n  ~: 1\n`), 'yaml-syntax').message).toMatch(
      /Incompatible key type 'NoneType'/,
    );
  });
  // OmegaConf's loader checks duplicates among str-tagged keys only.
  it.each(['w:\n  true: 1\n  true: 2\n', 'w:\n  1: a\n  1: b\n'])(
    'a repeated non-string key is allowed, the last wins: %j',
    (text) => {
      const { mine, ref } = both(text);
      expect(mine).toHaveProperty('ok');
      if (ref) expect(mine).toEqual(ref);
    },
  );
  it('a repeated quoted key is still a duplicate', () => {
    expect(resolveWithoutSchema('a: 1\n"a": 2\n')).toMatchObject({ stage: 'load' });
  });
  it('a bool key is named as Python prints it (True)', () => {
    expect(resolveWithoutSchema('w:\n  yes: 1\n')).toEqual({ ok: { w: { True: 1 } } });
  });
  // PyYAML's composer: "found duplicate anchor".
  it('an anchor defined twice is refused', () => {
    const { mine, ref } = both('a: &x 1\nb: &x 2\nc: *x\n');
    expect(mine).toMatchObject({ stage: 'load' });
    if (ref) expect(ref).toMatchObject({ stage: 'load' });
  });
});

describe('override application as Hydra does it (OmegaConf.update), against real OmegaConf', () => {
  const TEXT = 'seed: 1\nref: ${seed}\nspecs: [{gpu: 1}]\nmissing: ???\nw: {x: 3}\n';
  const cases: string[][] = [
    ['++w.x.y=1'], // force_add puts a mapping in place of the plain value 3
    ['+seed.x=2.5'],
    ['++specs.0=abc', '++specs.0.env.B=q'],
    ['++missing.k=abc'],
    ['~ref=1'], // the comparison resolves ${seed}
    ['~ref=true'], // and True == 1 in Python
    ['~ref=2'],
    ['w.x.y=1'], // a plain `=` still cannot add
  ];
  it.each(cases.map((c, i) => [c.join(' '), i] as const))('%s', (_, i) => {
    if (!omegaconfAvailable()) return;
    const ovs = cases[i];
    const [r] = runOmegaConf([
      {
        kind: 'apply',
        text: TEXT,
        overrides: ovs.map((t) => {
          const p = parseOverride(t);
          return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
        }),
      },
    ]);
    const mine = resolveWithoutSchema(TEXT, ovs);
    if ('ok' in r) expect(mine).toEqual({ ok: r.ok });
    else expect(mine).toMatchObject({ stage: r.stage, ...(r.index ? { index: r.index } : {}) });
  });
  it('the delete message quotes the resolved value, as Hydra does', () => {
    expect(resolveWithoutSchema('seed: 1\nref: ${seed}\n', ['~ref=2'])).toMatchObject({
      message: "Could not delete from config. The value of 'ref' is 1 and not 2.",
    });
  });
  it('on the reference config a typed field given a mapping this way still fails in the merge', () => {
    expect(only(evaluate(REFERENCE, ['++seed.x=1']), 'type-mismatch').message).toMatch(
      /^Value '\{'x': 1\}' of type 'DictConfig' could not be converted to Integer/,
    );
  });
});

describe('one error, no nonsense after it', () => {
  it("a mapping for SGLANG_VLM_CACHE_SIZE_MB is accepted as OmegaConf 2.4 accepts it (no '[object Object]')", () => {
    const ev = evaluate(REFERENCE, ['++actor.scheduling_spec.0.env_vars.SGLANG_VLM_CACHE_SIZE_MB.y=2']);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ev.resolved?.actor.scheduling_spec[0].env_vars.SGLANG_VLM_CACHE_SIZE_MB).toEqual({ y: 2 });
    expect(ev.diagnostics.some((d) => d.message.includes('[object Object]'))).toBe(false);
  });
});

describe('a mandatory value left ??? is one error, not one per ${copy}', () => {
  it('seed=??? keeps the dataclass default (OmegaConf merges a ??? as no value): no error, ${seed} copies 1', () => {
    const ev = evaluate(REFERENCE, ['seed=???']);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect([ev.resolved?.seed, ev.resolved?.sglang.random_seed]).toEqual([1, 1]);
  });
  it('trial_name=??? (no default) : the missing-value error at the override only', () => {
    const errs = evaluate(REFERENCE, ['trial_name=???']).diagnostics.filter((d) => d.severity === 'error');
    expect(errs.map((d) => [d.code, d.key])).toEqual([['missing-value', 'trial_name']]);
  });
});
