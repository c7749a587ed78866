// naiveTimeMs remembers the last time it read: whatever the order of the strings (repeats, near
// misses, non-times), each answer must be the one a fresh read gives.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { naiveTimeMs, readNaiveTimeMs } from '../../src/trainer-log/text.js';

const time = fc.oneof(
  fc.constantFrom(
    '2026-05-25T12:19:55.952',
    '2026-05-25T12:19:55.95',
    '2026-05-25 12:19:55',
    '2026-05-25T12:19',
    ' 2026-05-25T12:19:55.952 ',
    '2026-05-25T12:19:55.952Z',
    'not a time',
    '',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 23)),
  fc.string(),
);

describe('naiveTimeMs', () => {
  it('answers as a fresh read does, repeats and changes in any order', () => {
    fc.assert(
      fc.property(fc.array(time, { maxLength: 40 }), (xs) => {
        for (const s of xs) {
          const fresh = s ? readNaiveTimeMs(s) : null;
          expect(naiveTimeMs(s)).toBe(fresh);
          expect(naiveTimeMs(s)).toBe(fresh);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads a time, and no time as null', () => {
    expect(naiveTimeMs('2026-05-25T12:19:55.952')).toBe(Date.UTC(2026, 4, 25, 12, 19, 55, 952));
    expect(naiveTimeMs('2026-05-25T12:19:55.952Z')).toBeNull();
    expect(naiveTimeMs(null)).toBeNull();
  });
});
