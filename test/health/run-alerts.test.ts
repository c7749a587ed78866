// RunAlerts: every rule over a run's records, with the history on the log's clock. Errors clear once
// the run restarted and stepped; one hang gives one alert, whoever judges it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isHangAlert, naiveMs, RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';

const RUN_A = parseLogBytes(
  readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url)),
);
const WALL = 1e12; // our clock: says nothing about the log's
const MIN = 60_000;

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 23);
const display = (isoTime: string) => Date.parse(isoTime);
const T0 = Date.UTC(2026, 4, 25, 3, 0, 0);

function step(g: number, ms: number, stats: Record<string, number | null> = { 'rollout/reward': 0.5 }): TrainerEvent {
  return {
    type: 'step',
    epoch: 1,
    epochs: 1,
    step: g,
    stepsPerEpoch: 100,
    globalStep: g,
    totalSteps: 100,
    time: iso(ms),
    stats,
  };
}
const error = (message: string, ms: number): TrainerEvent => ({
  type: 'error',
  message,
  detail: 'Traceback (most recent call last):',
  kind: 'other',
  time: iso(ms),
});
const resume = (resumeStep: number, ms: number): TrainerEvent => ({ type: 'resume', resumeStep, time: iso(ms) });

function feed(events: readonly TrainerEvent[]): RunAlerts {
  const r = new RunAlerts(new MetricsStore());
  for (const e of events) r.ingest(e, WALL);
  return r;
}

describe('error alerts after a resume', () => {
  it('an error record that arrives after a later look (closed late) is dated at its own time', () => {
    const r = feed([step(1, T0), step(2, T0 + 2 * MIN)]);
    // A live look 30 s after step 2 arrived; then the error record of T0+2m10s, closed only now.
    r.evaluate(WALL + 30_000);
    r.ingest(error('Training step failed', T0 + 2 * MIN + 10_000), WALL + 31_000);
    const e = r.history.entries().find((x) => x.alert.id === 'error:0')!;
    expect(e.firstSeenAt).toBe(display(iso(T0 + 2 * MIN + 10_000)));
    expect(e.active).toBe(true);
  });

  it('an error stands through the resume record and clears at the first step after it; the history keeps it fired/cleared', () => {
    const ev: TrainerEvent[] = [step(1, T0), step(2, T0 + 2 * MIN), error('Training step failed', T0 + 3 * MIN)];
    const r = feed(ev);
    expect(r.active.map((a) => a.id)).toEqual(['error:0']);
    r.ingest(resume(3, T0 + 10 * MIN), WALL);
    expect(r.active.map((a) => a.id)).toEqual(['error:0']);
    r.ingest(step(3, T0 + 12 * MIN), WALL);
    expect(r.active).toEqual([]);
    const e = r.history.entries().find((x) => x.alert.id === 'error:0')!;
    expect(e).toMatchObject({
      active: false,
      fired: 1,
      firstSeenAt: display(iso(T0 + 3 * MIN)),
      clearedAt: display(iso(T0 + 12 * MIN)),
    });
  });

  it('an error after the last restart stays (a failure during recovery), the one before it clears', () => {
    const r = feed([
      step(1, T0),
      step(2, T0 + 2 * MIN),
      error('first crash', T0 + 3 * MIN),
      resume(3, T0 + 10 * MIN),
      error('recovery failed', T0 + 11 * MIN),
      step(3, T0 + 12 * MIN),
    ]);
    expect(r.active.map((a) => a.title)).toEqual(['Error: recovery failed']);
    // ... until the new attempt has stepped past it twice: it did not stop the trainer (see
    // nonfatal-error.test.ts); the history keeps both errors as fired/cleared.
    r.ingest(step(4, T0 + 14 * MIN), WALL);
    expect(r.active).toEqual([]);
    expect(
      r.history
        .entries()
        .filter((e) => e.alert.id.startsWith('error:'))
        .map((e) => [e.alert.title, e.active])
        .sort(),
    ).toEqual([
      ['Error: first crash', false],
      ['Error: recovery failed', false],
    ]);
  });

  it('a fresh start record counts as a restart too', () => {
    const r = feed([
      step(1, T0),
      error('crash', T0 + MIN),
      { type: 'start', time: iso(T0 + 5 * MIN) },
      step(1, T0 + 7 * MIN),
    ]);
    expect(r.active).toEqual([]);
  });

  it('run-a: the NCCL crash is active from the error record to step 7, after the resume', () => {
    const r = new RunAlerts(new MetricsStore());
    const activeAt: string[] = [];
    for (const e of RUN_A) {
      r.ingest(e, WALL);
      if (r.active.some((a) => a.id.startsWith('error:')))
        activeAt.push(e.type === 'step' ? `step ${e.globalStep}` : e.type);
    }
    // From the error through the resume and the new attempt's first records, to step 7 exclusive.
    expect(activeAt[0]).toBe('error');
    expect(activeAt).toContain('resume');
    expect(activeAt.filter((x) => x.startsWith('step'))).toEqual([]);
    const step7 = RUN_A.findIndex((e) => e.type === 'step' && e.globalStep === 7);
    expect(activeAt).toHaveLength(step7 - RUN_A.findIndex((e) => e.type === 'error'));
  });
});

describe('one hang, one alert', () => {
  /** Observes every minute for `minutes` after the last record; returns the hang alerts' ids seen. */
  function watch(r: RunAlerts, minutes: number): { perTick: number[]; ids: Set<string> } {
    const perTick: number[] = [];
    const ids = new Set<string>();
    for (let m = 0; m <= minutes; m++) {
      const hangs = r.evaluate(WALL + m * MIN).filter(isHangAlert);
      perTick.push(hangs.length);
      for (const h of hangs) ids.add(h.id);
    }
    return { perTick, ids };
  }

  it('run-a hung after step 6: the phase stall owns it (it knows the phase), from 3x the median step on; never two', () => {
    const cut = RUN_A.findIndex((e) => e.type === 'error');
    const r = feed(RUN_A.slice(0, cut));
    const { perTick, ids } = watch(r, 180);
    expect(Math.max(...perTick)).toBe(1);
    expect([...ids]).toEqual(['health/stall/rollout_wait']);
    // It fires at the whole-step threshold, not only after the phase's 10 min floor.
    const median = r.health.medianStepSeconds()!;
    const firstMin = perTick.indexOf(1);
    expect(firstMin).toBeLessThanOrEqual(Math.ceil((3 * median) / 60) + 1);
    expect(r.history.entries().filter((e) => isHangAlert(e.alert))).toHaveLength(1);
    expect(r.active.find(isHangAlert)!.detail).toMatch(/^(no step for \d+ (s|min|h)|rollout_wait has run)/);
  });

  it('a hang before any phase has a history: the whole-step rule speaks, alone', () => {
    // Step records only: no phase durations, the health rules cannot judge.
    const r = feed([1, 2, 3, 4].map((g) => step(g, T0 + g * 2 * MIN)));
    expect(r.health.judgesStall()).toBe(false);
    const { perTick, ids } = watch(r, 60);
    expect(Math.max(...perTick)).toBe(1);
    expect([...ids]).toEqual(['stall']);
  });

  it('a hang right after a resume: the resume guard owns it (naming the phase); the phase stall and the step rule defer', () => {
    const cut = RUN_A.findIndex((e) => e.type === 'resume');
    const r = feed(RUN_A.slice(0, cut + 1));
    const { perTick, ids } = watch(r, 180);
    expect(Math.max(...perTick)).toBe(1);
    expect([...ids]).toEqual(['health/resume/no-progress']);
    expect(r.active.find(isHangAlert)!.detail).toMatch(/waiting for the rollout batch \(rollout_wait\) for 3 h/);
  });

  it('the crash that ends a hang: the error stands alone (no stall after a failure)', () => {
    const cut = RUN_A.findIndex((e) => e.type === 'error');
    const r = feed(RUN_A.slice(0, cut + 1));
    const { perTick } = watch(r, 180);
    expect(Math.max(...perTick)).toBe(0);
    expect(r.active.map((a) => a.id)).toEqual(['error:0']);
  });

  it("a backfilled night: the 2 h hang before run-a's crash is one history entry, from 3x the median to the error record", () => {
    const r = feed(RUN_A);
    const hangs = r.history.entries().filter((e) => isHangAlert(e.alert));
    expect(hangs).toHaveLength(1);
    const errorTime = RUN_A.find((e) => e.type === 'error')!.time!;
    expect(hangs[0].clearedAt).toBe(display(errorTime));
    // The crash ended it: the trainer never got past the hang (not "cleared").
    expect(hangs[0].endedWithRun).toBe(true);
    const step6 = RUN_A.find((e) => e.type === 'step' && e.globalStep === 6)!.time!;
    // The median step time as it was during the hang (the records before the crash).
    const before = feed(
      RUN_A.slice(
        0,
        RUN_A.findIndex((e) => e.type === 'error'),
      ),
    );
    // The first second at which the health rules call it a hang (3x the rollout_wait median or
    // 3x the median step, whichever comes first), scanned second by second.
    let crossing = naiveMs(step6)!;
    while (!before.health.evaluate({ now: crossing, utcOffsetMinutes: 0 }).some(isHangAlert)) crossing += 1000;
    expect(crossing - naiveMs(step6)!).toBeLessThan(3 * before.health.medianStepSeconds()! * 1000 + 1000);
    // Dated to the second where the threshold was crossed, not when the error record came.
    expect(Math.abs(hangs[0].firstSeenAt - display(iso(crossing)))).toBeLessThanOrEqual(1000);
  });
});
