// Hydra's functions in overrides, as train.py meets them: its overrides go through Hydra's compose
// (areal/api/cli_args.py: hydra_compose(config_name, overrides)), so the casts are evaluated and the
// sweeps refused (compose runs one config: "Sweep parameters … requires --multirun").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseOverride, toTyped } from '../../src/config/index.js';
import { PYTHON } from '../harness/omegaconf.js';
import { evaluate, REFERENCE } from './helpers.js';

const typedOf = (text: string) => toTyped(parseOverride(`k=${text}`).value!);
const F = (repr: string) => ({ float: repr });
const errorOf = (text: string): string => {
  try {
    parseOverride(`k=${text}`);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`k=${text} parsed`);
};

describe('casts: int() float() str() bool()', () => {
  it.each([
    ['int(3.7)', 3],
    ['int(-2.5)', -2],
    ["int('42')", 42],
    ['int(" 42 ")', 42],
    ['int(true)', 1],
    ['int(1_000)', 1000],
    ["int('1_000')", 1000],
    ['int(value=3.5)', 3],
    ['int (3.5)', 3],
    ['int( 3.5 )', 3],
    ['int([1.5, "2"])', [1, 2]],
    ['int({a: 1.9})', { a: 1 }],
    ['float(1)', F('1.0')],
    ["float('5e-6')", F('5e-06')],
    ["float(' inf ')", F('inf')],
    ['float(true)', F('1.0')],
    ["float('1_000.5')", F('1000.5')],
    ['str(5)', '5'],
    ['str(1e-5)', '1e-05'],
    ['str(3.0)', '3.0'],
    ['str(true)', 'true'],
    ['str([1, 2.5])', ['1', '2.5']],
    ['str(abc)', 'abc'],
    ['bool(1)', true],
    ['bool(0)', false],
    ["bool('TRUE')", true],
    ['bool(null)', false],
    ['bool(nan)', true],
    ['bool(0.0)', false],
    ['[int(1.5), str(2)]', [1, '2']],
    ['{a: float(1)}', { a: F('1.0') }],
    ['sort([3, 1, 2])', [1, 2, 3]],
    ['sort([b, a], reverse=true)', ['b', 'a']],
    ['sort(list=[2, 1])', [1, 2]],
    ['sort(5)', 5],
    ['shuffle(7)', [7]],
    ['shuffle([7])', [7]],
  ] as [string, unknown][])('k=%s', (text, expected) => {
    expect(typedOf(text)).toEqual(expected);
  });

  it.each([
    ['int(abc)', "ValueError while evaluating 'int(abc)': invalid literal for int() with base 10: 'abc'"],
    ["int('1.5')", "ValueError while evaluating 'int('1.5')': invalid literal for int() with base 10: '1.5'"],
    ['int(nan)', "ValueError while evaluating 'int(nan)': cannot convert float NaN to integer"],
    ['int(inf)', "OverflowError while evaluating 'int(inf)': cannot convert float infinity to integer"],
    ['int(null)', "AssertionError while evaluating 'int(null)': "],
    ['float(abc)', "ValueError while evaluating 'float(abc)': could not convert string to float: 'abc'"],
    ['bool(yes)', "ValueError while evaluating 'bool(yes)': Cannot cast 'yes' to bool"],
    ['int(x=1)', "TypeError while evaluating 'int(x=1)': got an unexpected keyword argument 'x'"],
    ['int()', "TypeError while evaluating 'int()': No positional args or value specified"],
    ['foo(1)', "HydraException while evaluating 'foo(1)': Unknown function 'foo'"],
    [
      'sort([1, a])',
      "TypeError while evaluating 'sort([1, a])': '<' not supported between instances of 'str' and 'int'",
    ],
  ])('k=%s is refused as Hydra refuses it', (text, message) => {
    expect(errorOf(text)).toContain(message);
  });

  it.each([
    'choice(1,2)',
    'range(1,5)',
    'range(5)',
    'interval(0,1)',
    'glob(*)',
    'tag(a, choice(1,2))',
    'sort(3,1,2)',
    'shuffle(1,2)',
    'int(1,2)',
    '[choice(1,2)]',
  ])('k=%s: sweeps are not supported by train.py', (text) => {
    const m = errorOf(text);
    expect(m).toMatch(/^sweeps are not supported by train\.py: /);
    expect(m).toContain(`Sweep parameters 'k=${text}' requires --multirun`);
  });

  it('an unknown function is one line naming the ones Hydra has', () => {
    const m = errorOf('run(1)');
    expect(m).toContain(
      "HydraException while evaluating 'run(1)': Unknown function 'run' (available: bool,choice,float,glob,int,interval,range,shuffle,sort,str,tag)",
    );
    expect(m).not.toContain('\n');
  });

  it.each(['json_str({a: 1})', 'extend_list(a, b)', 'json_str(1,2)'])(
    "k=%s: not in Hydra 1.4.0.dev1 (AReaL's pin), refused as it refuses it",
    (text) => {
      const name = text.slice(0, text.indexOf('('));
      expect(errorOf(text)).toContain(`HydraException while evaluating '${text}': Unknown function '${name}'`);
    },
  );

  it('shuffle() of a list is random at each launch: refused with why', () => {
    expect(errorOf('shuffle([1, 2, 3])')).toMatch(/random order at each launch/);
  });

  it('the same builtins in real Python give the same values and errors', () => {
    const cases: { fn: string; text: string }[] = [];
    const texts = [
      '3.7',
      '-2.5',
      "'42'",
      "' 42 '",
      'true',
      '1_000',
      "'1_000'",
      "'1__0'",
      "'_1'",
      "'1e3'",
      "'+7'",
      "' -0 '",
      'abc',
      "'1.5'",
      'nan',
      'inf',
      '-inf',
      "'12345678901234567890'",
      '1e300',
      "'5e-6'",
      "' inf '",
      "'-Infinity'",
      "'nan'",
      "'1_000.5'",
      "'.5'",
      "'5.'",
      "'1e5'",
      "'1_0e1_0'",
      "'e5'",
      "''",
      "'TRUE'",
      'yes',
      '0',
      '0.0',
      'null',
      "'é'",
      "'a\"b'",
      "'tab\\there'",
      '[1, "x", 2.5]',
      '{a: 1, b: [x]}',
      '1e-5',
      '100000000000000000.0',
    ];
    for (const fn of ['int', 'float', 'str', 'bool']) for (const text of texts) cases.push({ fn, text });
    const ours = cases.map(({ fn, text }) => {
      try {
        return { ok: toTyped(parseOverride(`k=${fn}(${text})`).value!) };
      } catch (e) {
        return { error: /^(\w+) while evaluating/.exec((e as Error).message)?.[1] ?? (e as Error).message };
      }
    });
    const input = cases.map(({ text }) => ({ value: toTyped(parseOverride(`k=${text}`).value!) }));
    const r = spawnSync(PYTHON, [fileURLToPath(new URL('./python_casts.py', import.meta.url))], {
      input: JSON.stringify(cases.map((c, i) => ({ fn: c.fn, value: input[i].value }))),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const py = (JSON.parse(r.stdout) as ({ ok: unknown } | { error: string })[]).map((x) =>
      'ok' in x ? x : { error: x.error },
    );
    const diff = cases
      .map((c, i) => ({ call: `${c.fn}(${c.text})`, ours: ours[i], python: py[i] }))
      .filter((d) => JSON.stringify(d.ours) !== JSON.stringify(d.python));
    // A null reaches int()/float()/str() only through Hydra's assert: an AssertionError there.
    expect(
      diff.filter((d) => !(d.call.endsWith('(null)') && 'error' in d.ours && d.ours.error === 'AssertionError')),
    ).toEqual([]);
  });
});

describe('through the engine: what the trainer would run', () => {
  it('seed=int(3.7) is seed 3, and ${seed} copies it', () => {
    const ev = evaluate(REFERENCE, ['seed=int(3.7)', "actor.optimizer.lr=float('1e-5')"]);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ev.resolved?.seed).toBe(3);
    expect(ev.resolved?.sglang.random_seed).toBe(3);
    expect(ev.resolved?.actor.optimizer.lr).toBe(1e-5);
    expect(ev.launchArgv({ remoteConfigPath: 'c.yaml' })).toEqual(
      expect.arrayContaining(['++seed=3', '++actor.optimizer.lr=1e-5']),
    );
  });

  it('a sweep is one override-syntax error naming the override', () => {
    const ev = evaluate(REFERENCE, ['seed=choice(1,2)']);
    const ds = ev.diagnostics.filter((d) => d.severity === 'error');
    expect(ds.map((d) => [d.code, d.override?.index])).toEqual([['override-syntax', 1]]);
    expect(ds[0].message).toMatch(/^sweeps are not supported by train\.py: 'choice\(1,2\)'/);
  });

  it("a secret's value never shows in a function's error", () => {
    const ev = evaluate(REFERENCE, [
      'webgym.cpu_cluster_token=int(sk-live-abc123)',
      '++stats_logger.wandb.wandb_api_key=float(wk-9f8e7d)',
    ]);
    expect(ev.diagnostics.length).toBeGreaterThan(0);
    expect(JSON.stringify(ev.diagnostics)).not.toMatch(/sk-live-abc123|wk-9f8e7d/);
  });

  it("an unclosed quote in an override is placed at the quote, where Hydra's lexer fails (LexerNoViableAltException)", () => {
    for (const [o, col] of [
      ['seed="42', 6],
      ["trial_name='abc", 12],
      ['webgym.host_ip=[1, "x]', 20],
    ] as const) {
      const d = evaluate(REFERENCE, [o]).diagnostics.find((x) => x.code === 'override-syntax');
      expect(d?.message, o).toContain(`column ${col}`);
    }
  });
});
