// The Series against a plain model (step -> value; a step at or before the last replaces it and
// everything after it), under random runs with resumes, with and without merged buckets.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Series } from '../../src/metrics/index.js';

type Op = { back: number; value: number | null };
const op = fc.record({
  back: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
  value: fc.oneof(
    { weight: 9, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
});

function play(ops: Op[], capacity: number) {
  const s = new Series(capacity);
  const model = new Map<number, number | null>();
  let next = 1;
  for (const o of ops) {
    const step = Math.max(1, next - o.back);
    for (const k of [...model.keys()]) if (k >= step) model.delete(k);
    model.set(step, o.value);
    s.push(step, o.value);
    next = step + 1;
  }
  return { s, model };
}

describe('Series vs a model', () => {
  it('without merging: view equals the model, steps increasing', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const { s, model } = play(ops, 1024);
        const steps = [...model.keys()].sort((a, b) => a - b);
        expect(s.view()).toEqual({ steps, values: steps.map((k) => model.get(k)) });
      }),
      { numRuns: 200 },
    );
  });

  it('with merging: every point shown is the model value at its step; min/max never outside the model; latest is the last push', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 400 }), (ops) => {
        const { s, model } = play(ops, 8);
        const v = s.view();
        for (let i = 0; i < v.steps.length; i++) {
          expect(model.has(v.steps[i])).toBe(true);
          expect(v.values[i]).toBe(model.get(v.steps[i]));
          if (i > 0) expect(v.steps[i]).toBeGreaterThan(v.steps[i - 1]);
        }
        const finite = [...model.values()].filter((x): x is number => x !== null);
        const d = s.downsample(3);
        for (const m of [...d.min, ...d.max]) {
          if (m === null) continue;
          expect(m).toBeGreaterThanOrEqual(Math.min(...finite));
          expect(m).toBeLessThanOrEqual(Math.max(...finite));
        }
        const last = ops[ops.length - 1].value;
        expect(s.latest()).toBe(last);
        expect(s.length).toBeLessThanOrEqual(8);
      }),
      { numRuns: 300 },
    );
  });

  it('with merging and no resume: the overall min and max survive', () => {
    fc.assert(
      fc.property(
        fc.array(
          op.map((o) => ({ ...o, back: 0 })),
          { minLength: 1, maxLength: 400 },
        ),
        (ops) => {
          const { s, model } = play(ops, 8);
          const finite = [...model.values()].filter((x): x is number => x !== null);
          const d = s.downsample(1);
          expect(d.min[0]).toBe(finite.length ? Math.min(...finite) : null);
          expect(d.max[0]).toBe(finite.length ? Math.max(...finite) : null);
        },
      ),
      { numRuns: 200 },
    );
  });
});
