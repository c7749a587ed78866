// Hydra's command-line typing (docs/omegaconf-typing.md, column 4) and its errors, and the
// formatter that writes values back so they read with the same type and text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatOverrideValue, parseOverride, PyFloat, toTyped } from '../../src/config/index.js';
import { formatTypedValue, hydraQuote } from '../../src/config/format-value.js';

const typedOf = (text: string) => toTyped(parseOverride(`k=${text}`).value!);
const F = (repr: string) => ({ float: repr });

// text → what Hydra hands over before the merge (column 4 of the typing table).
const TABLE: [string, unknown][] = [
  ['5e-6', F('5e-06')],
  ['1e-5', F('1e-05')],
  ['1.0e-5', F('1e-05')],
  ['5E-6', F('5e-06')],
  ['1e5', F('100000.0')],
  ['1e+5', F('100000.0')],
  ['1.5E3', F('1500.0')],
  ['1.0e5', F('100000.0')],
  ['1.7e-05', F('1.7e-05')],
  ['1.', F('1.0')],
  ['.5', F('0.5')],
  ['-.5', F('-0.5')],
  ['+.5', F('0.5')],
  ['.5e3', F('500.0')],
  ['+1', 1],
  ['-0', 0],
  ['1_000', 1000],
  ['1_000.5', F('1000.5')],
  ['1__0', '1__0'],
  ['1_0e5', F('1000000.0')],
  ['010', '010'],
  ['08', '08'],
  ['0o10', '0o10'],
  ['0x10', '0x10'],
  ['0b101', '0b101'],
  ['1:30', '1:30'],
  ['12:30:00', '12:30:00'],
  ['.inf', '.inf'],
  ['-.inf', '-.inf'],
  ['inf', F('inf')],
  ['-inf', F('-inf')],
  ['.nan', '.nan'],
  ['nan', F('nan')],
  ['NaN', F('nan')],
  ['yes', 'yes'],
  ['no', 'no'],
  ['on', 'on'],
  ['off', 'off'],
  ['y', 'y'],
  ['n', 'n'],
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['tRuE', true],
  ['false', false],
  ['null', null],
  ['Null', null],
  ['NULL', null],
  ['nUll', null],
  ['None', 'None'],
  ['', ''],
  ['2024-01-01', '2024-01-01'],
  ['1.2.3', '1.2.3'],
  ['1e', '1e'],
  ['"5e-6"', '5e-6'],
  ["'5e-6'", '5e-6'],
  ['${a.b}', '${a.b}'],
  ['x_${a}', 'x_${a}'],
  ['???', '???'],
  ['[1,2]', [1, 2]],
  ['{a:1}', { a: 1 }],
];

describe('Hydra override typing (typing table, column 4)', () => {
  it.each(TABLE)('k=%s', (text, expected) => {
    expect(typedOf(text)).toEqual(expected);
  });
  it.each([
    ['~', 'not allowed'],
    ['#x', 'not allowed'],
    ['héllo', 'not allowed'],
    ['a,b', 'sweep'],
  ])('k=%s is refused (%s)', (text, why) => {
    expect(() => parseOverride(`k=${text}`)).toThrow(why);
  });
  it('parses the override forms', () => {
    expect(parseOverride('a.b=1')).toMatchObject({ kind: 'set', path: ['a', 'b'] });
    expect(parseOverride('+a.b=1')).toMatchObject({ kind: 'add' });
    expect(parseOverride('++a.b=1')).toMatchObject({ kind: 'force' });
    expect(parseOverride('~a.b')).toMatchObject({ kind: 'delete' });
    expect(parseOverride('~a.b').value).toBeUndefined();
    expect(parseOverride('~a.b=1')).toMatchObject({ kind: 'delete', value: { t: 'int', v: 1 } });
    expect(parseOverride('actor.scheduling_spec.0.gpu=1').path).toEqual(['actor', 'scheduling_spec', '0', 'gpu']);
  });
  it('quoted strings follow Hydra escapes; brackets must be quoted', () => {
    expect(typedOf("'sglang[rollout]:d48+fsdp[actor]:d16'")).toBe('sglang[rollout]:d48+fsdp[actor]:d16');
    expect(() => parseOverride('allocation_mode=sglang[rollout]:d48')).toThrow(/must be quoted/);
    expect(typedOf("'it\\'s'")).toBe("it's");
    expect(typedOf("'a\\\\'")).toBe('a\\');
    expect(typedOf("'a\\b'")).toBe('a\\b');
    expect(typedOf('a\\,b')).toBe('a,b');
    expect(typedOf('[a, "b c", [1, 2.0], {x: null}]')).toEqual(['a', 'b c', [1, F('2.0')], { x: null }]);
    expect(typedOf(' 5 ')).toBe(5);
    expect(typedOf('a b')).toBe('a b');
  });
  it('rejects keys that are not value paths', () => {
    expect(() => parseOverride('db@pkg=x')).toThrow(/config-group/);
    expect(() => parseOverride('a..b=1')).toThrow(/not a valid key/);
    expect(() => parseOverride('seed')).toThrow(/missing '='/);
  });
});

describe('formatOverrideValue', () => {
  it('writes ints, floats, bools, null and quoted strings', () => {
    expect(formatOverrideValue(5)).toBe('5');
    expect(formatOverrideValue(5e-6)).toBe('5e-6');
    expect(formatOverrideValue(new PyFloat(5))).toBe('5.0');
    expect(formatOverrideValue(Infinity)).toBe('inf');
    expect(formatOverrideValue(true)).toBe('true');
    expect(formatOverrideValue(null)).toBe('null');
    expect(formatOverrideValue('yes')).toBe('yes');
    expect(formatOverrideValue('true')).toBe("'true'");
    expect(formatOverrideValue('42')).toBe("'42'");
    expect(formatOverrideValue('sglang[rollout]:d4')).toBe("'sglang[rollout]:d4'");
    expect(formatOverrideValue(['a', 1])).toBe('[a,1]');
    expect(formatOverrideValue({ K: 'v w' })).toBe('{K:v w}');
    expect(hydraQuote("it's\\")).toBe("'it\\'s\\\\'");
  });
  it('round-trips any string through Hydra parsing (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            "'",
            '"',
            '\\',
            ',',
            '[',
            ']',
            '{',
            '}',
            '(',
            ')',
            '=',
            ':',
            '$',
            '#',
            'é',
            '1',
            '.',
            '-',
            '~',
            '\t',
          ),
        }),
        (s) => {
          const back = parseOverride(`k=${formatOverrideValue(s)}`).value!;
          expect(back).toEqual({ t: 'str', v: s });
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
  it('round-trips numbers with their type (property)', () => {
    fc.assert(
      fc.property(fc.double({ noDefaultInfinity: false }), (x) => {
        const back = parseOverride(`k=${formatTypedValue({ t: 'float', v: x })}`).value!;
        expect(back.t).toBe('float');
        if (back.t === 'float') expect(Object.is(back.v, x) || (x === 0 && back.v === 0)).toBe(true);
      }),
      { numRuns: 500, seed: 11 },
    );
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(parseOverride(`k=${formatOverrideValue(n)}`).value).toEqual({ t: 'int', v: n });
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});
