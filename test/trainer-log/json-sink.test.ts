// The hand-written JSON of the parser's small events equals JSON.stringify of the same objects,
// for any field values (odd numbers, unicode, lone surrogates, quotes, control characters).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { smallEventJson } from '../../src/trainer-log/json.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';

const num = fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 5e-324), fc.integer());
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u2028', '\ud800', 'a\nb\tc', '—'));
const time = fc.oneof(text, fc.constant(null));

describe('smallEventJson', () => {
  it('writes memory, batch and warning events exactly as JSON.stringify does', () => {
    const event = fc.oneof(
      fc.record({ type: fc.constant('memory'), phase: text, allocatedGB: num, reservedGB: num, usedGB: num, totalGB: num, time: text }),
      fc.record({ type: fc.constant('batch'), waitS: num, totalS: num, episodes: num, time: text }),
      fc.record({ type: fc.constant('warning'), message: text, kind: text, time, source: text }),
    );
    fc.assert(
      fc.property(event, (e) => {
        expect(smallEventJson(e as TrainerEvent)).toBe(JSON.stringify(e));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves other events (and a warning without source) to JSON.stringify', () => {
    expect(smallEventJson({ type: 'finished', time: 't' } as TrainerEvent)).toBeUndefined();
    expect(smallEventJson({ type: 'warning', message: 'm', kind: 'other', time: null } as TrainerEvent)).toBeUndefined();
  });
});
