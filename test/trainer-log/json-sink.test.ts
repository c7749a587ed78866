// The hand-written JSON of the parser's small events equals JSON.stringify of the same objects,
// for any field values (odd numbers, unicode, lone surrogates, quotes, control characters).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonNum, smallEventJson } from '../../src/trainer-log/json.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';

// Numbers as logs print them (GB and seconds with 1-3 decimals), and any double at all.
const decimals = fc
  .tuple(fc.integer({ min: -2e9, max: 2e9 }), fc.constantFrom(1, 10, 100, 1000, 1e4, 1e7))
  .map(([n, s]) => n / s);
const num = fc.oneof(
  fc.double(),
  decimals,
  fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 5e-324, 1e-6, 9.99e-7, 999999.999, 1e6, 0.1 + 0.2),
  fc.integer(),
);
const isoTime = fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 23));
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u2028', '\ud800', 'a\nb\tc', '—'),
);
const time = fc.oneof(text, isoTime, fc.constant(null));

describe('smallEventJson', () => {
  it('writes memory, batch and warning events exactly as JSON.stringify does', () => {
    const event = fc.oneof(
      fc.record({
        type: fc.constant('memory'),
        phase: text,
        allocatedGB: num,
        reservedGB: num,
        usedGB: num,
        totalGB: num,
        time: fc.oneof(text, isoTime),
        source: text,
      }),
      fc.record({
        type: fc.constant('batch'),
        waitS: num,
        totalS: num,
        episodes: fc.oneof(num, fc.constant(null)),
        time: fc.oneof(text, isoTime),
        role: text,
      }),
      fc.record({ type: fc.constant('warning'), message: text, kind: text, time, source: text }),
    );
    fc.assert(
      fc.property(event, (e) => {
        expect(smallEventJson(e as TrainerEvent)).toBe(JSON.stringify(e));
      }),
      { numRuns: 2000 },
    );
  });

  it('jsonNum prints every number as JSON.stringify does (its fast path for few decimals included)', () => {
    fc.assert(
      fc.property(num, (v) => {
        expect(jsonNum(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 20000 },
    );
    for (const v of [18.09, 0.05, -0.5, 60.1, 79.11, 564.8, 0.001, 123456.789, 1.005, 0.1 + 0.2, 1e-7])
      expect(jsonNum(v)).toBe(String(v));
  });

  it('leaves other events (and a warning without source) to JSON.stringify', () => {
    expect(smallEventJson({ type: 'finished', time: 't' } as TrainerEvent)).toBeUndefined();
    expect(
      smallEventJson({ type: 'warning', message: 'm', kind: 'other', time: null } as TrainerEvent),
    ).toBeUndefined();
    expect(
      smallEventJson({
        type: 'warning',
        message: 'm',
        kind: 'other',
        time: null,
        source: 'main',
        detail: 'd',
      } as TrainerEvent),
    ).toBeUndefined();
  });
});
