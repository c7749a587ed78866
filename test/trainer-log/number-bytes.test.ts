// The one number reader (parseNumberBytes; parseNumber is it over a string) against what it
// promises: Python's float() of the printed text, which for decimal text is the correctly rounded
// double JavaScript's Number() also gives, plus float()'s words (nan, inf, infinity, any case and
// sign) and the booleans a table may print; null for anything else. Object.is: -0, NaN and the
// last bit of every double count.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseNumber, parseNumberBytes } from '../../src/trainer-log/text.js';

const WORDS: Record<string, number> = { nan: NaN, '+nan': NaN, '-nan': NaN, inf: Infinity, '+inf': Infinity };
Object.assign(WORDS, { infinity: Infinity, '+infinity': Infinity, '-inf': -Infinity, '-infinity': -Infinity });
Object.assign(WORDS, { true: 1, false: 0 });

/** What the reader promises for a text: spaces around it do not count. */
function promised(text: string): number | null {
  const t = text.replace(/^ +| +$/g, '');
  const word = WORDS[t.toLowerCase()];
  if (word !== undefined && Object.hasOwn(WORDS, t.toLowerCase())) return word;
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?$/.test(t)) return null; // an exponent without digits
  const v = Number(t);
  return Number.isNaN(v) || t.trim() === '' ? null : v;
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
const sign = fc.constantFrom('', '-', '+');
const exponent = fc.oneof(
  fc.constant(''),
  fc.tuple(fc.constantFrom('e', 'E'), sign, digits(0, 6)).map((p) => p.join('')),
);
const numeric = fc
  .tuple(fc.constantFrom('', ' '), sign, digits(0, 20), fc.constantFrom('', '.'), digits(0, 20), exponent)
  .map((p) => p.join(''));
const printed = fc.double().map((v) => (Number.isFinite(v) ? v.toExponential(4) : String(v)));
const words = fc.constantFrom(...Object.keys(WORDS), 'NaN', 'INF', 'True', ' 1.0 ', '1 0', '', '-', 'e5', '.', '0x10');
const any = fc.string({ unit: 'binary-ascii' });

function check(text: string): void {
  const bytes = Buffer.from(`##${text}##`, 'latin1');
  const got = parseNumberBytes(bytes, 2, bytes.length - 2);
  const want = promised(text);
  expect(Object.is(got, want), `${JSON.stringify(text)}: ${got} vs ${want}`).toBe(true);
  expect(Object.is(parseNumber(text, 0, text.length), want)).toBe(true);
}

describe('parseNumberBytes / parseNumber', () => {
  it("give float()'s value for numbers as tables print them, numeric shapes, words and any text", () => {
    fc.assert(
      fc.property(fc.oneof(printed, numeric, words, any), (t) => check(t)),
      { numRuns: 20_000 },
    );
  });

  it('keep -0 and the values right at the fast path bounds, and read text above latin1 as no digit', () => {
    for (const t of ['-0.0000e+00', '1.2345e-18', '1.2345e+18', '123456789012345', '1234567890123456', '9.9999e+22'])
      check(t);
    expect(parseNumber('1\u0100', 0, 2)).toBeNull();
    expect(parseNumber('x2.5x', 1, 4)).toBe(2.5);
  });
});
