// Differential tests: this engine against real OmegaConf (python3-omegaconf, one python process
// for the whole batch). File scalars, override values landing in typed fields, override
// application (Hydra's rules) and interpolation: every case compares resolved typed JSON.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { coerceScalar } from '../../src/config/coerce.js';
import { parseOverride, resolveWithoutSchema, toTyped } from '../../src/config/index.js';
import { omegaconfAvailable, runOmegaConf, type RefCase, type RefResult } from '../harness/omegaconf.js';

type Mine = { ok: unknown } | { error: string };
interface Case {
  name: string;
  ref: RefCase;
  mine: () => Mine;
}

const cases: Case[] = [];
const fromGeneric = (text: string, overrides: string[] = []): Mine => {
  const r = resolveWithoutSchema(text, overrides);
  return 'ok' in r ? r : { error: `${r.stage}: ${r.message}` };
};

// ---- 1. File scalars: the typing table's column 1, and random plain scalars ----------------
const FILE_SCALARS = [
  '5e-6',
  '1e-5',
  '1.0e-5',
  '5E-6',
  '1e5',
  '1e+5',
  '1.5E3',
  '1.0e5',
  '1.7e-05',
  '1.',
  '.5',
  '-.5',
  '+.5',
  '.5e3',
  '+1',
  '-0',
  '1_000',
  '1_000.5',
  '1__0',
  '1_0e5',
  '010',
  '08',
  '0o10',
  '0x10',
  '0b101',
  '1:30',
  '12:30:00',
  '.inf',
  '-.inf',
  'inf',
  '-inf',
  '.nan',
  'nan',
  'NaN',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'true',
  'True',
  'TRUE',
  'tRuE',
  'false',
  'null',
  'Null',
  'NULL',
  'nUll',
  'None',
  '~',
  '',
  '2024-01-01',
  '1.2.3',
  '1e',
  '"5e-6"',
  "'5e-6'",
  '???',
  '[1,2]',
  '{a: 1}',
  'a,b',
  'héllo',
  '0',
  '-1',
  '0.0',
  '-0.0',
  '1e-8',
  '2.0e-5',
  '1.5e+3',
  '0x1F',
  '0b11',
  '+0x10',
  '1_2_3',
  '3.14_15',
  '+.inf',
  '.Inf',
  '.NaN',
  'Yes',
  'OFF',
  'On',
  '!!str 5',
  '!!int "7"',
  '!!float 3',
  "'yes'",
  '"null"',
  '100_000_000',
  '7:',
  'a: b',
];
for (const s of FILE_SCALARS) {
  const text = `v: ${s}\n`;
  cases.push({ name: `file scalar ${JSON.stringify(s)}`, ref: { kind: 'yaml', text }, mine: () => fromGeneric(text) });
}
// Random plain scalars over the characters where YAML 1.1 typing is subtle.
const randomScalars = fc.sample(fc.stringMatching(/^[0-9][0-9._eE+\-:xob]{0,6}$/), { numRuns: 80, seed: 20261129 });
for (const s of new Set(randomScalars)) {
  const text = `v: ${s}\n`;
  cases.push({
    name: `random file scalar ${JSON.stringify(s)}`,
    ref: { kind: 'yaml', text },
    mine: () => fromGeneric(text),
  });
}

// ---- 2. Override values landing in typed fields (Hydra's typing, then OmegaConf's coercion) --
const OVERRIDE_VALUES = [
  '5e-6',
  '1e-5',
  '1.0e-5',
  '1.',
  '.5',
  '-.5',
  '+1',
  '-0',
  '1_000',
  '1_000.5',
  '1__0',
  '010',
  '0x10',
  '1:30',
  'inf',
  '-inf',
  'nan',
  'NaN',
  'yes',
  'no',
  'off',
  'y',
  'true',
  'tRuE',
  'false',
  'null',
  'nUll',
  'None',
  '',
  "'5e-6'",
  '"42"',
  "' 42 '",
  '${a.b}',
  'abc',
  '/path/to/x',
  '42',
  '0',
  '-7',
  '3.0',
  '2.5e3',
  "'1_0'",
  "'inf'",
  "'on'",
  "'2'",
];
const FIELD_TYPES = ['int', 'float', 'bool', 'str'] as const;
for (const text of OVERRIDE_VALUES) {
  const parsed = parseOverride(`k=${text}`).value!;
  if (parsed.t === 'str' && parsed.v.includes('${')) continue;
  for (const type of FIELD_TYPES) {
    for (const optional of type === 'int' ? [false, true] : [false]) {
      cases.push({
        name: `override value k=${text} into ${optional ? 'Optional[' : ''}${type}${optional ? ']' : ''}`,
        ref: { kind: 'coerce', type, optional, value: toTyped(parsed) },
        mine: () => {
          if (parsed.t === 'null') return optional ? { ok: null } : { error: 'not optional' };
          const r = coerceScalar(type, parsed);
          return r.ok ? { ok: toTyped(r.value) } : { error: r.message };
        },
      });
    }
  }
}

// ---- 3. Override application: Hydra's rules for =, +, ++, ~, merge of dicts, list indices ---
const BASE = `seed: 1
name: run
opt: {lr: 5.0e-6, eps: 1e-8, betas: [0.9, 0.999]}
nested: {a: {b: 1, c: [1, 2, 3]}, empty: null}
specs:
  - {gpu: 1, env: {X: "1"}}
  - {gpu: 2}
ref: \${seed}
flag: off
missing: ???
`;
const OVERRIDE_SETS: string[][] = [
  ['seed=2'],
  ['seed=2.0'],
  ['seed=abc'],
  ['seed=null'],
  ['seed='],
  ['foo=1'],
  ['+foo=1'],
  ['++foo=1'],
  ['+seed=3'],
  ['++seed=3'],
  ['~seed'],
  ['~foo'],
  ['~seed=1'],
  ['~seed=2'],
  ['~nested.empty'],
  ['~missing'],
  ['+missing=4'],
  ['missing=4'],
  ['opt.lr=1e-5'],
  ['opt={lr:1e-4}'],
  ['opt={lr:1e-4,new:1}'],
  ['+opt={new:1}'],
  ['++opt={new:1}'],
  ['opt.betas=[0.5,0.6]'],
  ['opt.betas.0=0.1'],
  ['specs.0.gpu=4'],
  ['specs.1.env=null'],
  ['specs.0.env.X=2'],
  ['specs.0.env={Y:3}'],
  ['+specs.0.env.Y=3'],
  ['specs.5.gpu=1'],
  ['+a.b.c=1'],
  ['++a.b.c=1'],
  ['nested.a.b=${seed}'],
  ['nested.a={b:2}'],
  ['nested.a=[1,2]'],
  ['nested.empty=1'],
  ['+nested.empty=1'],
  ['nested.empty.x=1'],
  ['++nested.empty.x=1'],
  ['name="x y"'],
  ["name='a\\'b'"],
  ['name=a\\,b'],
  ['name=[a,b]'],
  ['name={k:v}'],
  ['flag=true', 'flag=false'],
  ['seed=2', '~seed'],
  ['~seed', '+seed=5'],
  ['ref=3'],
  ['~ref'],
  ['seed=7', 'nested.a.b=${ref}'],
  ['specs=[]'],
  ['specs=[{gpu:8}]'],
  ['~specs.0'],
  ['~nested.a.c.1'],
  ['opt.eps=1_000'],
  ['opt.lr=inf'],
  ['name=NaN'],
  ['+x=[1,[2,3],{a:b}]'],
];
for (const set of OVERRIDE_SETS) {
  const parsed = set.map((t) => {
    const p = parseOverride(t);
    return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
  });
  cases.push({
    name: `overrides ${set.join(' ')}`,
    ref: { kind: 'apply', text: BASE, overrides: parsed },
    mine: () => fromGeneric(BASE, set),
  });
}

// Random override sequences over the same base (fixed seed: the same cases every run).
const KEYS = [
  'seed',
  'name',
  'opt.lr',
  'opt.betas',
  'opt.betas.0',
  'nested.a.b',
  'nested.empty',
  'nested.a',
  'specs.0.gpu',
  'specs.1',
  'new.k',
  'ref',
  'flag',
  'missing',
];
const VALUES = ['1', '2.5', 'null', 'true', 'abc', '[1,2]', '{x:1}', '{b:7}', '${seed}', '${nested.a.b}', "'q r'", ''];
const overrideArb = fc
  .tuple(fc.constantFrom('', '+', '++', '~'), fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), fc.boolean())
  .map(([pre, key, value, withValue]) =>
    pre === '~' ? (withValue ? `~${key}=${value}` : `~${key}`) : `${pre}${key}=${value}`,
  );
const randomSets = fc.sample(fc.array(overrideArb, { minLength: 1, maxLength: 3 }), { numRuns: 80, seed: 1129 });
for (const set of randomSets) {
  const parsed = set.map((t) => {
    const p = parseOverride(t);
    return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
  });
  cases.push({
    name: `random overrides ${set.join(' ')}`,
    ref: { kind: 'apply', text: BASE, overrides: parsed },
    mine: () => fromGeneric(BASE, set),
  });
}

// ---- 4. Interpolation: absolute, relative, embedded, chained, containers, errors -------------
const INTERP_DOCS = [
  'a: 1\nb: ${a}',
  'a: 1.0\nb: ${a}\nc: x${a}y',
  'a: 5e-6\nb: lr${a}',
  'a: true\nb: ${a}\nc: is ${a}',
  'a: null\nb: ${a}\nc: v=${a}',
  'a: {x: 1, y: ${.x}}',
  'a: {x: 1, b: {y: ${..x}}}',
  'a: {b: {c: 3, d: ${..b.c}}}',
  'x: 0\na: {b: {c: ${...x}}}',
  'a: [10, 20]\nb: ${a.1}\nc: ${a[0]}',
  'a: {p: [1, 2]}\nb: ${a}\nc: ${a.p}',
  'a: ${b}\nb: ${c}\nc: deep',
  'a: ${b}\nb: ${a}',
  'a: ${missing}',
  'a: ${x.y.z}\nx: {y: 1}',
  'a: \\${not}',
  'a: 1\nb: ${a}${a}',
  'a: {k: v}\nb: pre ${a.k} post',
  'a: 1\nb: {c: ${a}}',
  'n: 8\nm: {g: ${n}}\nk: ${m.g}',
  'a: 010\nb: ${a}',
  'a: "010"\nb: ${a}',
  'a: 0x10\nb: s${a}',
  'a: 1_000\nb: ${a}',
  'a: ???\nb: ${a}',
  'a: ${.b}\nb: 2',
  'a: [${b}, x${b}]\nb: 3',
  'p: /models/Qwen3\nt: ${p}\nr: {path: ${t}}',
  'seed: 42\nsglang: {random_seed: ${seed}}\nvllm: {seed: ${sglang.random_seed}}',
  'a: ${b.c}\nb: ${d}\nd: {c: 7}',
  'a: 1e5\nb: ${a}',
  'a: .inf\nb: x${a}',
  'a: -.5\nb: ${a}',
  'a: off\nb: ${a}',
  'a: "${b}"\nb: 9',
  "a: '${b}'\nb: no",
  'a: {b: ${.c}, c: {d: 1}}',
  'a: x${b.y}\nb: {y: [1]}',
  'l: [a, b]\ns: ${l.5}',
  'a: 1\nb: ${a.x}',
];
INTERP_DOCS.forEach((text, i) => {
  cases.push({
    name: `interpolation #${i + 1} ${JSON.stringify(text)}`,
    ref: { kind: 'yaml', text },
    mine: () => fromGeneric(text),
  });
});

// ---- 5. YAML documents: block/flow styles, quoting, anchors and merge keys, comments, errors --
// (A top-level list is a valid ListConfig but never a trainer config, so it is not compared.)
const YAML_DOCS = [
  'a: |\n  line1\n  line2\nb: >\n  folded\n  text\n',
  'a: |-\n  keep\nb: >+\n  x\n\nc: 1\n',
  "a: \"tab\\tq\\\"x\\u00e9\"\nb: 'it''s'\n",
  'a: {b: [1, {c: d}], e: []}\nf: {}\n',
  'a:\nb: ~\nc: null\n',
  'base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\nl: *b\n',
  'a: &a [1, 2]\nb: *a\n',
  'x: &x {p: 1}\ny: &y {q: 2}\nz:\n  <<: [*x, *y]\n  r: 3\n',
  'a: 1 # comment\n# full line\nb: "# not a comment"\n',
  'a: 1\na: 2\n',
  'a: [1, 2\n',
  'a: b: c\n',
  'key with spaces: 1\n"quoted key": 2\n',
  '',
  '# only a comment\n',
  'a: !!str 010\nb: !!float 1\nc: !!int "0x1f"\n',
  'a: 2001-12-14t21:59:43.10-05:00\n',
  'a: :x\nb: x:y\nc: -x\n',
  'a: "${b}"\nb: \'${c}\'\nc: 5\n',
  'a:\n  - b: 1\n    c: 2\n  - d\n',
  'a: 0o17\nb: 0O17\nc: 1_2:30\n',
  'a: 1e1000\nb: -1e1000\n',
  'a: 123456789012345678\n',
  // A file that is only a scalar (#17): OmegaConf.create reads a string as YAML once more.
  'hello\n',
  "'seed: 5'\n",
  "'hello world'\n",
  '42\n',
  'true\n',
  // Aliases within the limit read as their anchors.
  'a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b]\n',
];
YAML_DOCS.forEach((text, i) => {
  cases.push({
    name: `yaml document #${i + 1} ${JSON.stringify(text)}`,
    ref: { kind: 'yaml', text },
    mine: () => fromGeneric(text),
  });
});

// ---- run ---------------------------------------------------------------------------------
let ref: RefResult[] = [];
beforeAll(() => {
  if (!omegaconfAvailable())
    throw new Error('python3-omegaconf is missing: apt-get install -y python3-omegaconf (for /usr/bin/python3)');
  ref = runOmegaConf(cases.map((c) => c.ref));
});

describe('engine vs real OmegaConf', () => {
  it('has at least 200 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });
  it.each(cases.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const r = ref[i];
    const m = cases[i].mine();
    if ('ok' in r) {
      expect(m).toEqual({ ok: r.ok });
    } else {
      // Both must refuse; the wording differs (ours says what to change).
      expect(m, `OmegaConf refused (${r.stage}: ${r.error} ${r.message})`).toHaveProperty('error');
    }
  });
});
