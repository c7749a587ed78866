// The resolved YAML (what a launch uploads as the run's config.yaml) must read back, in the
// trainer's loader (pure-Python PyYAML with OmegaConf's resolver, then OmegaConf.create), to the
// same values: a property test over random trees, strings full of what YAML treats specially.
// Also `config show --json`: exact ints beyond 2^53, a non-finite float as {"$float": "inf"}.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typedJson } from '../../src/config/index.js';
import { pyFloatRepr, type Val } from '../../src/config/values.js';
import { emitYaml } from '../../src/config/yaml-emit.js';
import { PYTHON } from '../harness/omegaconf.js';
import { evaluate, REFERENCE } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('./pyyaml_values.py', import.meta.url));

/** pyyaml_values.py's typed form of a value. */
function typed(v: Val): unknown {
  switch (v.t) {
    case 'map':
      return { t: 'map', m: [...v.m].map(([k, x]) => [k, typed(x)]) };
    case 'list':
      return { t: 'list', a: v.a.map(typed) };
    case 'int':
      return { t: 'int', v: v.digits ?? String(v.v) };
    case 'float':
      return { t: 'float', v: pyFloatRepr(v.v) };
    case 'null':
      return { t: 'null' };
    case 'missing':
      return { t: 'str', v: '???' };
    default:
      return { t: v.t, v: v.v };
  }
}

const SPECIAL = [
  '\t',
  '\n',
  '\r',
  '\0',
  '\x01',
  '\x1b',
  '\x7f',
  '\x85',
  '\x9f',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  ' ',
  "'",
  '"',
  '\\',
  '#',
  ':',
  '-',
  '?',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&',
  '*',
  '!',
  '|',
  '>',
  '%',
  '@',
  '`',
  '~',
  '=',
  '.',
  '_',
  '+',
];
const ORDINARY = [
  'a',
  'y',
  'n',
  'e',
  'E',
  'x',
  'o',
  'b',
  '0',
  '1',
  '7',
  'é',
  '任',
  '🙂',
  'true',
  'null',
  'yes',
  '0x',
  '1e',
  '${a}',
  '...',
  '---',
];
const text = fc
  .string({ unit: fc.oneof(fc.constantFrom(...SPECIAL), fc.constantFrom(...ORDINARY)), maxLength: 10 })
  .filter((s) => s !== '???');

const scalar: fc.Arbitrary<Val> = fc.oneof(
  text.map((v): Val => ({ t: 'str', v })),
  fc
    .bigInt({ min: -(2n ** 70n), max: 2n ** 70n })
    .map((b): Val =>
      Number.isSafeInteger(Number(b)) ? { t: 'int', v: Number(b) } : { t: 'int', v: Number(b), digits: b.toString() },
    ),
  fc.double().map((v): Val => ({ t: 'float', v })),
  fc.boolean().map((v): Val => ({ t: 'bool', v })),
  fc.constant<Val>({ t: 'null' }),
);

const tree = fc.letrec<{ node: Val; map: Val }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    tie('map'),
    fc.array(tie('node'), { maxLength: 4 }).map((a): Val => ({ t: 'list', a })),
  ),
  map: fc
    .uniqueArray(fc.tuple(text, tie('node')), { maxLength: 5, selector: ([k]) => k })
    .map((es): Val => ({ t: 'map', m: new Map(es) })),
})).map;

function pyLoad(texts: string[]): unknown[] {
  const r = spawnSync(PYTHON, [SCRIPT], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as unknown[];
}

describe('emit -> PyYAML + OmegaConf load -> the same values', () => {
  it('random trees of awkward strings, big ints and non-finite floats', () => {
    const trees = fc.sample(tree, { numRuns: 400, seed: 20261201 }).filter((t) => t.t === 'map' && t.m.size > 0);
    const texts = trees.map((t) => emitYaml(t));
    const loaded = pyLoad(texts);
    const bad = trees
      .map((t, i) => ({ yaml: texts[i], want: { value: typed(t) }, got: loaded[i] }))
      .filter((c) => JSON.stringify(c.want) !== JSON.stringify(c.got));
    expect(bad.slice(0, 3)).toEqual([]);
  });

  it.each([
    ['a\tb'],
    ['tab\t'],
    ['\x01ctl'],
    ['line\u2028sep'],
    ['nel\x85x'],
    ['del\x7f'],
    ['...'],
    ['--- x'],
    ['multi\nline\ttab'],
  ])('%j', (s) => {
    const v: Val = {
      t: 'map',
      m: new Map<string, Val>([
        ['k', { t: 'str', v: s }],
        [s, { t: 'int', v: 1 }],
      ]),
    };
    expect(pyLoad([emitYaml(v)])[0]).toEqual({ value: typed(v) });
  });

  it('the resolved reference config with a TAB in a value reads back to the same values', () => {
    const ev = evaluate(REFERENCE, ["trial_name='a\tb'"]);
    const yaml = ev.effectiveYaml({ resolved: true });
    expect(pyLoad([yaml])[0]).toEqual({ value: typed(ev.resolvedTree!) });
  });
});

/** pyyaml_values.py's typed tree as `config show --json` must write it: a non-finite float is
 *  {"$float": repr}, a key beginning with `$` gets one more `$`. */
function asShowJson(x: any): unknown {
  switch (x.t) {
    case 'map':
      return Object.fromEntries(
        x.m.map(([k, v]: [string, unknown]) => [k.startsWith('$') ? '$' + k : k, asShowJson(v)]),
      );
    case 'list':
      return x.a.map(asShowJson);
    case 'int':
      return Number(x.v);
    case 'float':
      return ['inf', '-inf', 'nan'].includes(x.v) ? { $float: x.v } : Number(x.v);
    case 'null':
      return null;
    default:
      return x.v;
  }
}

describe('config show --json: exact', () => {
  it('ints beyond 2^53 keep every digit; a float inf, -inf, nan is {"$float": …}, the string \'inf\' a string', () => {
    const ev = evaluate(REFERENCE, [
      'seed=9007199254740993',
      'actor.optimizer.lr=inf',
      '++gconfig.top_p=-inf',
      '++actor.eps_clip=nan',
      "trial_name='inf'",
      "experiment_name='nan'",
    ]);
    const json = typedJson(ev.resolvedTree!);
    expect(json).toContain('"seed": 9007199254740993,');
    expect(json).not.toContain('9007199254740992');
    expect(json).toContain('"lr": {"$float": "inf"},');
    const back = JSON.parse(json);
    expect([back.actor.optimizer.lr, back.gconfig.top_p, back.actor.eps_clip]).toEqual([
      { $float: 'inf' },
      { $float: '-inf' },
      { $float: 'nan' },
    ]);
    expect([back.trial_name, back.experiment_name]).toEqual(['inf', 'nan']);
    expect(back.sglang.random_seed).toBe(Number('9007199254740993')); // JSON.parse itself rounds; the text does not
    // Real OmegaConf, loading the resolved YAML the launch uploads, tells the same values apart: the JSON
    // says exactly what it says, leaf for leaf.
    const [loaded] = pyLoad([ev.effectiveYaml({ resolved: true })]) as { value: unknown }[];
    expect(back).toEqual(asShowJson(loaded.value));
  });

  it('a config key that begins with $ gets one more $, so no config map reads as the float marker', () => {
    const v: Val = {
      t: 'map',
      m: new Map<string, Val>([
        ['$float', { t: 'str', v: 'inf' }],
        ['x', { t: 'float', v: Infinity }],
      ]),
    };
    const json = typedJson(v);
    expect(JSON.parse(json)).toEqual({ $$float: 'inf', x: { $float: 'inf' } });
    const [loaded] = pyLoad([emitYaml(v)]) as { value: unknown }[];
    expect(JSON.parse(json)).toEqual(asShowJson(loaded.value));
  });

  it("where plain JSON is exact it reads back the same; a float keeps its .0, in JSON.stringify's layout", () => {
    const ev = evaluate(REFERENCE);
    const json = typedJson(ev.resolvedTree!);
    expect(JSON.parse(json)).toEqual(ev.redact(ev.resolved));
    expect(json).toContain('\n    "kl_ctl": 0.0,\n');
    expect(json.split('\n').length).toBe(JSON.stringify(ev.redact(ev.resolved), null, 2).split('\n').length);
  });
});
