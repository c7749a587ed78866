// The eval rounds of a run: Wilson intervals, the best round, the running one, and the two eval
// rules (a round below the previous beyond both intervals; the eval thread crashed or silent for
// 3 × the median round time), on events parsed from the webgym-shaped fixture and on exact values.
import { describe, expect, it } from 'vitest';
import { EvalHistory, evalAlerts, evalRoundLine, wilson } from '../../src/metrics/eval-history.js';
import { MetricsStore } from '../../src/metrics/store.js';
import { RunAlerts } from '../../src/health/run-alerts.js';
import { isoTimeToMs, type EvalEvent, type TrainerEvent } from '../../src/trainer-log/index.js';
import { parseAll } from '../trainer-log/helpers.js';
import { evalLog } from '../trainer-log/eval-log.js';

const round = (r: number, reward: number, completed: number, time: string, timeS = 1800): EvalEvent => ({
  type: 'eval',
  round: r,
  modelStep: 10 * r,
  reward,
  completed,
  total: completed,
  failed: 0,
  numSteps: 7,
  timeS,
  time,
});

describe('wilson', () => {
  it('gives the 95 % score interval (known values), clamped to [0, 1], and none for n = 0', () => {
    const close = (i: { lo: number; hi: number } | null, lo: number, hi: number) => {
      expect(i).not.toBeNull();
      expect(i!.lo).toBeCloseTo(lo, 12);
      expect(i!.hi).toBeCloseTo(hi, 12);
    };
    close(wilson(0.5, 10), 0.236593090512564, 0.7634069094874361);
    close(wilson(0, 10), 0, 0.2775327998628892);
    close(wilson(1, 10), 0.7224672001371107, 1);
    close(wilson(0.4125, 78), 0.30987396717970056, 0.5233401495199335);
    expect(wilson(0.5, 0)).toBeNull();
    expect(wilson(Number.NaN, 10)).toBeNull();
  });
});

describe('EvalHistory on the fixture', () => {
  const events = parseAll(evalLog());
  const h = new EvalHistory();
  for (const e of events) h.ingest(e);

  it('keeps both rounds, the best (round 1: 46.4 %), no running round, and the crash after them', () => {
    expect(h.rounds.map((r) => [r.event.round, r.event.reward])).toEqual([
      [0, 0.4125],
      [1, 0.4638],
    ]);
    expect(h.best?.event.round).toBe(1);
    expect(h.running).toBeNull();
    expect(h.crash).toEqual({
      time: '2026-05-25T13:30:00.000',
      ms: isoTimeToMs('2026-05-25T13:30:00.000'),
      cause: 'TimeoutError: Timed out waiting for placement group',
    });
    expect(h.medianRoundS()).toBe((1529 + 2220) / 2);
  });

  it('fires the crash alert and, after 3 × the median round time without a round, the no-round alert', () => {
    const last = isoTimeToMs('2026-05-25T13:20:00.001');
    const limit = last + 3 * 1874.5 * 1000;
    expect(evalAlerts(h, limit).map((a) => a.id)).toEqual(['eval/thread-crashed']);
    const late = evalAlerts(h, limit + 1);
    expect(late.map((a) => a.id)).toEqual(['eval/thread-crashed', 'eval/no-round']);
    expect(late[1].detail).toBe(
      'the last round completed 1 h 34 min ago (46.4% [35.1%, 58.0%] of 69/74 at model step 1 (round 1)); ' +
        'the median round takes 31 min; no round has reported progress since',
    );
  });

  it('clears the crash at the next sign of life of the eval thread', () => {
    const g = new EvalHistory();
    for (const e of events) g.ingest(e);
    const progress = events.find((e) => e.type === 'eval-progress') as TrainerEvent;
    // A progress line logged before the crash (read late) does not end it; one after it does.
    g.ingest(progress);
    expect(evalAlerts(g, null).map((a) => a.id)).toEqual(['eval/thread-crashed']);
    g.ingest({ ...progress, time: '2026-05-25T13:35:00.000' } as TrainerEvent);
    expect(evalAlerts(g, null)).toEqual([]);
  });
});

describe('the regression rule', () => {
  it('fires when the latest interval lies wholly below the previous one, not when they overlap', () => {
    const h = new EvalHistory();
    h.ingest(round(0, 0.9, 50, '2026-05-25T12:00:00.000'));
    h.ingest(round(1, 0.5, 50, '2026-05-25T12:30:00.000'));
    // [78.6%, 95.7%] against [36.6%, 63.4%]: apart.
    const [a] = evalAlerts(h, null);
    expect(a.id).toBe('eval/regression');
    expect(a.detail).toBe(
      '50.0% [36.6%, 63.4%] of 50/50 at model step 10 (round 1), against 90.0% [78.6%, 95.7%] of 50/50 at model step 0 ' +
        '(round 0): the intervals do not overlap',
    );
    h.ingest(round(2, 0.45, 50, '2026-05-25T13:00:00.000'));
    expect(evalAlerts(h, null)).toEqual([]);
    expect(h.best?.event.round).toBe(0);
  });
});

describe('RunAlerts', () => {
  it('has the eval thread crash as the eval alert only, not as an error of the run', () => {
    const ra = new RunAlerts(new MetricsStore());
    for (const e of parseAll(evalLog())) ra.ingest(e, 0);
    expect(ra.active.map((a) => a.id)).toEqual(['eval/thread-crashed']);
  });
});

describe('evalRoundLine', () => {
  it("is follow's line for a completed round", () => {
    const e = parseAll(evalLog()).find((x) => x.type === 'eval' && x.round === 1) as EvalEvent;
    expect(evalRoundLine(e)).toBe(
      'eval round 1 done: 46.4% [35.1%, 58.0%] of 69/74 at model step 1 (round 1), 5 failed, 37 min',
    );
  });
});
