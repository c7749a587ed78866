// An error the trainer survives. An error record after which the SAME attempt keeps completing steps
// did not stop the trainer (a caught traceback, a worker that was replaced): after two
// (NONFATAL_ERROR_STEPS) new steps it is history (fired/cleared), not an active alert for days. One step
// is not enough: the step in flight when a worker died can still be logged. A step record written
// before the error (a worker's line piped through `sed` reaches merged.log after the main's later
// step) does not count. An error after which no step comes stays active until a restart and its step.
import { describe, expect, it } from 'vitest';
import { isHangAlert, RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';

const WALL = 1e12;
const MIN = 60_000;
const T0 = Date.UTC(2026, 4, 25, 3, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 23);
const display = (isoTime: string) => Date.parse(isoTime);

const step = (g: number, ms: number): TrainerEvent => ({
  type: 'step',
  epoch: 1,
  epochs: 1,
  step: g,
  stepsPerEpoch: 100,
  globalStep: g,
  totalSteps: 100,
  time: iso(ms),
  stats: { 'rollout/reward': 0.5 },
});
const error = (ms: number | null, source?: 'main' | 'actor'): TrainerEvent => ({
  type: 'error',
  message: 'Evaluation upload failed',
  detail: 'Traceback (most recent call last):',
  kind: 'other',
  time: ms === null ? null : iso(ms),
  ...(source ? { source } : {}),
});

function feed(events: readonly TrainerEvent[]): RunAlerts {
  const r = new RunAlerts(new MetricsStore());
  for (const e of events) r.ingest(e, WALL);
  return r;
}
const errorsOf = (r: RunAlerts) => r.active.filter((a) => a.id.startsWith('error:')).map((a) => a.id);

describe('a non-fatal error becomes history', () => {
  it('stays active through the step in flight, clears at the second new step of the same attempt, dated there', () => {
    const r = feed([step(1, T0), step(2, T0 + 10 * MIN), error(T0 + 15 * MIN)]);
    expect(errorsOf(r)).toEqual(['error:0']);
    r.ingest(step(3, T0 + 20 * MIN), WALL);
    expect(errorsOf(r)).toEqual(['error:0']);
    r.ingest(step(4, T0 + 30 * MIN), WALL);
    expect(errorsOf(r)).toEqual([]);
    const e = r.history.entries().find((x) => x.alert.id === 'error:0')!;
    expect(e).toMatchObject({
      active: false,
      fired: 1,
      firstSeenAt: display(iso(T0 + 15 * MIN)),
      clearedAt: display(iso(T0 + 30 * MIN)),
    });
  });

  it('a worker error survived the same way (any source)', () => {
    const r = feed([step(1, T0), error(T0 + 5 * MIN, 'actor'), step(2, T0 + 10 * MIN), step(3, T0 + 20 * MIN)]);
    expect(errorsOf(r)).toEqual([]);
  });

  it('a step record written before the error (read after it) does not count', () => {
    // The worker's error line of 03:15 reached the file after the main's step of 03:14.
    const r = feed([step(1, T0), error(T0 + 15 * MIN, 'actor'), step(2, T0 + 14 * MIN), step(3, T0 + 25 * MIN)]);
    expect(errorsOf(r)).toEqual(['error:0']);
    r.ingest(step(4, T0 + 35 * MIN), WALL);
    expect(errorsOf(r)).toEqual([]);
  });

  it('an error without a time counts every later step', () => {
    const r = feed([step(1, T0), error(null), step(2, T0 + 10 * MIN), step(3, T0 + 20 * MIN)]);
    expect(errorsOf(r)).toEqual([]);
  });

  it('the same failure again is one alert counting from its latest occurrence (issue #27: grouped)', () => {
    const r = feed([
      step(1, T0),
      error(T0 + 5 * MIN),
      step(2, T0 + 10 * MIN),
      error(T0 + 15 * MIN),
      step(3, T0 + 20 * MIN),
    ]);
    expect(errorsOf(r)).toEqual(['error:0']);
    expect(r.evaluate(WALL).find((a) => a.id === 'error:0')?.count).toBe(2);
    r.ingest(step(4, T0 + 30 * MIN), WALL);
    expect(errorsOf(r)).toEqual([]);
  });

  it('a fatal error (no step after it) stays active for hours, with no hang alert beside it, until the restart steps', () => {
    const r = feed([step(1, T0), step(2, T0 + 10 * MIN), step(3, T0 + 20 * MIN), error(T0 + 25 * MIN)]);
    for (let m = 0; m <= 300; m += 30) {
      const active = r.evaluate(WALL + m * MIN);
      expect(active.map((a) => a.id)).toEqual(['error:0']);
      expect(active.some(isHangAlert)).toBe(false);
    }
    r.ingest({ type: 'resume', resumeStep: 4, time: iso(T0 + 330 * MIN) }, WALL + 300 * MIN);
    expect(errorsOf(r)).toEqual(['error:0']);
    r.ingest(step(4, T0 + 340 * MIN), WALL + 310 * MIN);
    expect(errorsOf(r)).toEqual([]);
  });

  it('once an error is history, a later hang is reported again (the error no longer explains the wait)', () => {
    const r = feed([
      step(1, T0),
      step(2, T0 + 10 * MIN),
      error(T0 + 12 * MIN),
      step(3, T0 + 20 * MIN),
      step(4, T0 + 30 * MIN),
      step(5, T0 + 40 * MIN),
    ]);
    expect(errorsOf(r)).toEqual([]);
    expect(
      r
        .evaluate(WALL + 60 * MIN)
        .filter(isHangAlert)
        .map((a) => a.id),
    ).toEqual(['stall']);
  });
});
