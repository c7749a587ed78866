// nan, inf and -inf are three different facts (trainer.md §6), and null (a cell that held no number)
// a fourth: the series store, its views, the current-step reads, the derived figures and the alert
// texts keep them apart, from a parsed table and from its JSON Lines read back alike.
import { describe, expect, it } from 'vitest';
import { eventFromJsonLine, eventToJsonLine, parseLogBytes, type StepEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, Series, deriveFigures, evaluateAlerts } from '../../src/metrics/index.js';
import { stepRecords } from '../trainer-log/helpers.js';
import { minuteOfDay, stepEvent } from '../harness/step-event.js';

const FOUR = [NaN, Infinity, -Infinity, null] as const;

function step(g: number, stats: Record<string, number | null>): StepEvent {
  return stepEvent(g, 50, minuteOfDay(g), stats);
}

describe('Series keeps nan, inf, -inf and null apart', () => {
  it('in its view, latest, recent and downsampled last; min and max are over finite values only', () => {
    const s = new Series(8);
    [NaN, Infinity, -Infinity, null, 0.5].forEach((v, i) => s.push(i + 1, v));
    expect(s.view()).toEqual({ steps: [1, 2, 3, 4, 5], values: [NaN, Infinity, -Infinity, null, 0.5] });
    expect(s.recent(5).values).toEqual([NaN, Infinity, -Infinity, null, 0.5]);
    expect(s.downsample(5)).toEqual({
      steps: [1, 2, 3, 4, 5],
      min: [null, null, null, null, 0.5],
      max: [null, null, null, null, 0.5],
      last: [NaN, Infinity, -Infinity, null, 0.5],
    });
    const latest: (number | null)[] = [];
    const t = new Series(8);
    for (const v of FOUR) {
      t.push(latest.length + 1, v);
      latest.push(t.latest());
    }
    expect(latest).toEqual([NaN, Infinity, -Infinity, null]);
  });

  it('through compaction and a rewind (a resume re-logs a step)', () => {
    const s = new Series(4);
    for (let g = 1; g <= 12; g++) s.push(g, FOUR[g % 4]);
    // 12 steps in at most 4 buckets of 4: each bucket's last value is step 4k's, which was nan.
    expect(s.view().values.every((v) => Number.isNaN(v))).toBe(true);
    s.push(12, null);
    expect(s.latest()).toBeNull();
    s.push(13, -Infinity);
    expect(s.latest()).toBe(-Infinity);
    expect(s.recent(2).values).toEqual([null, -Infinity]);
  });
});

describe('MetricsStore on parsed steps', () => {
  const log =
    stepRecords('20260601-10:00:00.000', 1, [
      ['a', 'nan'],
      ['b', 'inf'],
      ['c', '-inf'],
      ['d', 'N/A'],
      ['e', '1.0000e+00'],
    ]) + '\n';
  const events = parseLogBytes(Buffer.from(log));

  function storeOf(evs: readonly (typeof events)[number][]): MetricsStore {
    const s = new MetricsStore();
    for (const e of evs) s.ingest(e);
    return s;
  }

  it('current, latest and series give the value as printed: NaN, Infinity, -Infinity, null, 1', () => {
    const s = storeOf(events);
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => s.current(k))).toEqual([NaN, Infinity, -Infinity, null, 1]);
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => s.latest(k))).toEqual([NaN, Infinity, -Infinity, null, 1]);
    expect(s.series('c').values).toEqual([-Infinity]);
    expect(s.current('missing')).toBeUndefined();
  });

  it('the same from the JSON Lines read back (parse --json | a script | the store)', () => {
    const back = events.map((e) => eventFromJsonLine(eventToJsonLine(e)));
    const s = storeOf(back);
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => s.current(k))).toEqual([NaN, Infinity, -Infinity, null, 1]);
  });
});

describe('derived figures keep them apart', () => {
  const figures = (stats: Record<string, number | null>) => {
    const s = new MetricsStore();
    s.ingest(step(1, stats));
    return deriveFigures(s);
  };

  it('train tokens/s: NaN from a nan input, inf from inf tokens, null when unknown', () => {
    expect(figures({ 'ppo_actor/n_tokens': NaN, 'timeperf/train_step': 10 }).trainTokensPerS).toBeNaN();
    expect(figures({ 'ppo_actor/n_tokens': 1000, 'timeperf/train_step': NaN }).trainTokensPerS).toBeNaN();
    expect(figures({ 'ppo_actor/n_tokens': Infinity, 'timeperf/train_step': 10 }).trainTokensPerS).toBe(Infinity);
    expect(figures({ 'ppo_actor/n_tokens': -Infinity, 'timeperf/train_step': 10 }).trainTokensPerS).toBe(-Infinity);
    // 1000 tokens in inf seconds is no rate of 0.
    expect(figures({ 'ppo_actor/n_tokens': 1000, 'timeperf/train_step': Infinity }).trainTokensPerS).toBeNaN();
    expect(figures({ 'ppo_actor/n_tokens': null, 'timeperf/train_step': 10 }).trainTokensPerS).toBeNull();
    expect(figures({ 'timeperf/train_step': 10 }).trainTokensPerS).toBeNull();
    expect(figures({ 'ppo_actor/n_tokens': 1000, 'timeperf/train_step': 10 }).trainTokensPerS).toBe(100);
  });

  it('the phase breakdown lists every timeperf/* phase, nan and inf too (after the finite ones)', () => {
    const f = figures({
      'timeperf/rollout': 30,
      'timeperf/teacher_logp': NaN,
      'timeperf/train_step': 10,
      'timeperf/actor_onload': Infinity,
      'timeperf/save': null,
    });
    expect(f.phases.map((p) => [p.phase, p.seconds, p.share])).toEqual([
      ['rollout', 30, 0.75],
      ['train_step', 10, 0.25],
      ['teacher_logp', NaN, NaN],
      ['actor_onload', Infinity, NaN],
    ]);
  });

  it('staleness: a nan max is nan, not over budget and not missing', () => {
    const s = new MetricsStore();
    s.ingest(step(1, { 'staleness/gap/offpolicy_max': NaN, 'staleness/gap/offpolicy_avg': Infinity }));
    expect(deriveFigures(s, { maxHeadOffpolicyness: 2 }).staleness).toEqual({
      max: NaN,
      avg: Infinity,
      budget: 2,
      over: false,
    });
  });
});

describe('alert texts say which one', () => {
  it.each([
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
    [null, '(no number)'],
  ])('grad_norm %s -> "= %s"', (v, text) => {
    const s = new MetricsStore();
    s.ingest(step(1, { 'ppo_actor/update/grad_norm': v }));
    const a = evaluateAlerts(s, []).find((x) => x.id === 'grad-norm-nonfinite');
    expect(a?.detail).toBe(`ppo_actor/update/grad_norm = ${text}`);
  });
});
