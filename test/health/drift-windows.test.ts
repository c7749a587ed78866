// DriftTracker keeps its first window's median while it stands and filters its recent window only
// when a step replays: on any sequence of steps (repeats and replays after a resume included) its
// alerts must be those of the reference, the windows as they were, both medians sorted at every step.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DRIFT_FACTOR, DRIFT_FLOOR_S, DRIFT_WINDOW, DriftTracker } from '../../src/health/drift.js';
import { sortedMedian } from '../../src/health/window.js';
import { formatDuration } from '../../src/health/time.js';

interface Sample {
  step: number;
  value: number;
}

/** The reference windows and their (early, late) medians where the rule would compare them. */
class ReferenceDrift {
  private readonly keys = new Map<string, { first: Sample[]; recent: Sample[] }>();
  ingestStep(step: number, stats: Record<string, number | null>): void {
    for (const key in stats) {
      const value = stats[key];
      if (!key.startsWith('timeperf/') || value === null || !Number.isFinite(value)) continue;
      let w = this.keys.get(key);
      if (!w) this.keys.set(key, (w = { first: [], recent: [] }));
      const f = w.first.find((s) => s.step === step);
      if (f) f.value = value;
      else if (w.first.length < DRIFT_WINDOW && (w.first.length === 0 || step > w.first[w.first.length - 1].step))
        w.first.push({ step, value });
      w.recent = w.recent.filter((s) => s.step < step);
      w.recent.push({ step, value });
      if (w.recent.length > DRIFT_WINDOW) w.recent.shift();
    }
  }
  drifting(): { id: string; step: number; detail: string }[] {
    const out: { id: string; step: number; detail: string }[] = [];
    for (const [key, w] of this.keys) {
      if (w.first.length < DRIFT_WINDOW || w.recent.length < DRIFT_WINDOW) continue;
      if (w.recent[0].step <= w.first[w.first.length - 1].step) continue;
      const early = sortedMedian(w.first.map((s) => s.value))!;
      const late = sortedMedian(w.recent.map((s) => s.value))!;
      if (!(late >= DRIFT_FACTOR * early) || late - early < DRIFT_FLOOR_S) continue;
      const ratio = early > 0 ? `${(late / early).toFixed(1)}×` : 'from 0';
      out.push({
        id: `health/drift/${key.slice('timeperf/'.length)}`,
        step: w.recent[w.recent.length - 1].step,
        detail: `${key}: median ${formatDuration(late)} over the last ${DRIFT_WINDOW} steps vs ${formatDuration(early)} over the first ${DRIFT_WINDOW} (${ratio})`,
      });
    }
    return out;
  }
}

// Steps mostly advance, sometimes repeat or go back (a resume from an older checkpoint).
const stepMove = fc.oneof({ weight: 30, arbitrary: fc.constant(1) }, fc.integer({ min: -25, max: 2 }));
// Phase times that cross the drift's factor and floor often, a few that are no number.
const value = fc.oneof(
  fc.constantFrom(5, 8, 20, 30, 60, 200),
  fc.double({ min: 0, max: 200, noNaN: true }),
  fc.constantFrom(0, Number.NaN, null),
);

describe('DriftTracker', () => {
  it("fires the reference windows' alerts after every step", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(stepMove, value, value), { minLength: 20, maxLength: 160 }), (moves) => {
        const t = new DriftTracker();
        const ref = new ReferenceDrift();
        let step = 0;
        for (const [move, a, b] of moves) {
          step = Math.max(1, step + move);
          const stats = { 'timeperf/update_weights': a, 'timeperf/rollout': b, 'other/x': a };
          t.ingestStep({ globalStep: step, stats });
          ref.ingestStep(step, stats);
          expect(t.alerts().map((x) => ({ id: x.id, step: x.step, detail: x.detail }))).toEqual(ref.drifting());
        }
      }),
      { numRuns: 400 },
    );
  });

  it('warns of a phase that doubles, and stops when a replay brings the slow steps back down', () => {
    const t = new DriftTracker();
    for (let s = 1; s <= 40; s++)
      t.ingestStep({ globalStep: s, stats: { 'timeperf/update_weights': s <= 20 ? 20 : 60 } });
    expect(t.alerts().map((a) => a.id)).toEqual(['health/drift/update_weights']);
    for (let s = 21; s <= 40; s++) t.ingestStep({ globalStep: s, stats: { 'timeperf/update_weights': 20 } });
    expect(t.alerts()).toEqual([]);
  });

  it("a replay of the first steps changes the first window's median", () => {
    const t = new DriftTracker();
    const key = 'timeperf/update_weights';
    // The rules ask for the alerts after every step, so the first window's median is known early.
    const step = (s: number, v: number) => {
      t.ingestStep({ globalStep: s, stats: { [key]: v } });
      return t.alerts();
    };
    for (let s = 1; s <= 45; s++) step(s, s <= 10 ? 5 : s <= 20 ? 30 : 45);
    for (let s = 1; s <= 45; s++) step(s, s <= 20 ? 30 : 65);
    expect(t.alerts().map((a) => a.detail)).toEqual([
      `${key}: median 65 s over the last 20 steps vs 30 s over the first 20 (2.2×)`,
    ]);
  });
});
