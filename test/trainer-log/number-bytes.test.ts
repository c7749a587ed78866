// parseNumberBytes reads a table cell's bytes without making a string: it must give exactly what
// parseNumber gives for the same text (Object.is: -0, NaN and the last bit of every double), for
// the shapes tables print and for any text at all.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseNumber, parseNumberBytes } from '../../src/trainer-log/text.js';

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
const sign = fc.constantFrom('', '-', '+');
const exponent = fc.oneof(
  fc.constant(''),
  fc.tuple(fc.constantFrom('e', 'E'), sign, digits(0, 6)).map((p) => p.join('')),
);
const numeric = fc.tuple(sign, digits(0, 20), fc.constantFrom('', '.'), digits(0, 20), exponent).map((p) => p.join(''));
const printed = fc.double().map((v) => (Number.isFinite(v) ? v.toExponential(4) : String(v)));
const words = fc.constantFrom('nan', 'inf', '-inf', 'NaN', 'True', 'False', ' 1.0 ', '1 0', '', '-', 'e5', '.', '0x10');
const any = fc.string({ unit: 'binary-ascii' });

function same(text: string): void {
  const bytes = Buffer.from(`##${text}##`, 'latin1');
  const got = parseNumberBytes(bytes, 2, bytes.length - 2);
  const want = parseNumber(text, 0, text.length);
  expect(Object.is(got, want), `${JSON.stringify(text)}: ${got} vs ${want}`).toBe(true);
}

describe('parseNumberBytes', () => {
  it('equals parseNumber on numbers as tables print them, numeric shapes, words and any text', () => {
    fc.assert(
      fc.property(fc.oneof(printed, numeric, words, any), (t) => same(t)),
      { numRuns: 20_000 },
    );
  });

  it('keeps -0 and the values right at the fast path bounds', () => {
    for (const t of ['-0.0000e+00', '1.2345e-18', '1.2345e+18', '123456789012345', '1234567890123456', '9.9999e+22'])
      same(t);
  });
});
