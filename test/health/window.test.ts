// RecentWindow keeps its samples sorted as they come: its median must be the reference's (its ring of the
// most recent `capacity` finite samples, sorted) after every push, whatever the samples; and the
// median of a short list, sorted by insertion, must be the stable sort's.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RecentWindow, median, sortedMedian } from '../../src/health/window.js';

const sample = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, 1, 1, 2, Number.NaN, Number.POSITIVE_INFINITY),
  fc.integer({ min: -5, max: 5 }),
);

/** The reference: the window as it was, its samples in a ring, sorted for every median. */
class ReferenceWindow {
  readonly buf: number[] = [];
  private next = 0;
  constructor(readonly capacity: number) {}
  push(v: number): void {
    if (!Number.isFinite(v)) return;
    if (this.buf.length < this.capacity) this.buf.push(v);
    else {
      this.buf[this.next] = v;
      this.next = (this.next + 1) % this.capacity;
    }
  }
  median(): number | null {
    return sortedMedian(this.buf);
  }
  clear(): void {
    this.buf.length = 0;
    this.next = 0;
  }
}

describe('RecentWindow', () => {
  it('has the median of the most recent finite samples after every push and clear', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.oneof(sample, fc.constant('clear' as const)), { maxLength: 120 }),
        (capacity, ops) => {
          const w = new RecentWindow(capacity);
          const ref = new ReferenceWindow(capacity);
          for (const op of ops) {
            if (op === 'clear') {
              w.clear();
              ref.clear();
            } else {
              w.push(op);
              ref.push(op);
            }
            expect(w.size).toBe(ref.buf.length);
            expect(Object.is(w.median(), ref.median())).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a zero median keeps the sign the reference gives it', () => {
    const w = new RecentWindow(3);
    for (const v of [0, 1, 0, -0]) w.push(v);
    // The ring holds [-0, 1, 0]: its stable sort [-0, 0, 1] has +0 in the middle.
    expect(Object.is(w.median(), 0)).toBe(true);
  });

  it("median (insertion sort for short lists) is the stable sort's median of any values", () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 80 }), (xs) => {
        expect(Object.is(median(xs), sortedMedian(xs))).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(Object.is(median([0, -0]), 0)).toBe(true);
    expect(Object.is(median([-0, 0, -0]), 0)).toBe(true);
    expect(Object.is(median([-0, -0, 0]), -0)).toBe(true);
  });
});
