// QA as a demanding user: boundaries of the derived figures and alert rules that disagreed with
// trainer.md §5–7 or with what a researcher concludes from the numbers.
import { describe, expect, it } from 'vitest';
import type { StepEvent, TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, Series, STEP_TIME_KEY, deriveFigures, evaluateAlerts } from '../../src/metrics/index.js';
import { minuteOfDay, stepEvent } from '../harness/step-event.js';

const HEALTHY = {
  'rollout/reward': 0.4,
  'ppo_actor/update/grad_norm': 0.3,
  'ppo_actor/update/update_successful': 1,
  'staleness/gap/offpolicy_max': 2,
  'ppo_actor/update/importance_weight/avg': 1.01,
  'ppo_actor/update/behave_imp_weight/avg': 0.99,
  'rollout/omniboxes_failed': 0.01,
  'ppo_actor/n_tokens': 1000,
  'timeperf/train_step': 10,
};

/** Step g logged at minute `minute` (default 10 per step). */
function step(g: number, over: Record<string, number | null> = {}, minute = g * 10): StepEvent {
  return stepEvent(g, 50, minuteOfDay(minute), { ...HEALTHY, ...over });
}
const at = (minute: number) =>
  Date.parse(
    `2026-01-01T${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00.000Z`,
  );

function storeOf(events: TrainerEvent[]): MetricsStore {
  const s = new MetricsStore();
  for (const e of events) s.ingest(e);
  return s;
}
const ids = (a: { id: string }[]) => a.map((x) => x.id);

describe('importance-weight drift boundary (trainer.md §6: both should stay close to 1.0)', () => {
  it('exactly 10% away from 1 on either side is not "more than 10%"', () => {
    for (const w of [1.1, 0.9]) {
      const s = storeOf([
        step(1, { 'ppo_actor/update/importance_weight/avg': w, 'ppo_actor/update/behave_imp_weight/avg': w }),
      ]);
      expect(ids(evaluateAlerts(s, [])), `w=${w}`).toEqual([]);
    }
  });

  it('just past 10% fires, once per key', () => {
    const s = storeOf([
      step(1, { 'ppo_actor/update/importance_weight/avg': 1.1001, 'ppo_actor/update/behave_imp_weight/avg': 0.8999 }),
    ]);
    expect(ids(evaluateAlerts(s, []))).toEqual([
      'drift:ppo_actor/update/importance_weight/avg',
      'drift:ppo_actor/update/behave_imp_weight/avg',
    ]);
  });
});

describe('step time when step numbers go back', () => {
  it('a step that goes back without a resume record yields no step time (the gap spans a restart)', () => {
    // e.g. the Recover line was lost or the follower attached between records: steps 1..4, then 3 again 2 h later.
    const s = storeOf([step(1), step(2), step(3), step(4), step(3, {}, 160), step(4, {}, 170)]);
    const f = deriveFigures(s, { consumerBatchSize: 128 });
    expect(s.series(STEP_TIME_KEY).values.every((v) => v === 10 * 60)).toBe(true);
    expect(f.meanStepTimeS).toBe(600);
    expect(f.etaS).toBe((50 - 4) * 600);
  });
});

describe('stall rule after a restart', () => {
  const before = [step(1), step(2), step(3), step(4)];
  const resume: TrainerEvent = { type: 'resume', time: '2026-01-01T03:00:00.000', resumeStep: 4 } as TrainerEvent;

  it('a run that just resumed is not "stalled since" its pre-crash step', () => {
    const events = [...before, resume];
    const s = storeOf(events);
    // One minute after the resume record, 2 h 20 min after step 4.
    expect(ids(evaluateAlerts(s, events, { now: at(181) }))).not.toContain('stall');
  });

  it('it is, once 3 median step times have passed since the resume with no step', () => {
    const events = [...before, resume];
    const s = storeOf(events);
    const a = evaluateAlerts(s, events, { now: at(180 + 31) });
    expect(ids(a)).toContain('stall');
  });

  it('a fresh start record in the same log anchors the stall too', () => {
    const start = { type: 'start', time: '2026-01-01T03:00:00.000' } as TrainerEvent;
    const events = [...before, start];
    expect(ids(evaluateAlerts(storeOf(events), events, { now: at(181) }))).not.toContain('stall');
  });
});

describe('series rewind across a merged bucket', () => {
  it('a replaced step leaves neither its value nor its spike in the chart', () => {
    const s = new Series(4);
    for (let i = 1; i <= 8; i++) s.push(i, i === 6 ? 1000 : i);
    // Buckets now span 2 steps: [1-2] [3-4] [5-6] [7-8]. Resume at 6: 6, 7, 8 logged again.
    s.push(6, 6);
    expect(s.downsample(100).max.some((v) => v === 1000)).toBe(false);
    expect(s.view().values).not.toContain(1000);
    expect(s.latest()).toBe(6);
  });
});

describe('figures of the latest step are of the latest step', () => {
  it('a train time that is a denormal gives no train tokens/s, not Infinity (found by the derive fuzz)', () => {
    const s = storeOf([step(1, { 'ppo_actor/n_tokens': 8.881784197001252e-16, 'timeperf/train_step': 5e-324 })]);
    expect(deriveFigures(s).trainTokensPerS).toBeNull();
  });

  it('train tokens/s is not built from an older step when the latest lacks the keys', () => {
    const { 'ppo_actor/n_tokens': _n, ...rest } = step(2).stats;
    const two = { ...step(2), stats: rest };
    const s = storeOf([step(1), two]);
    expect(deriveFigures(s).trainTokensPerS).toBeNull();
    s.ingest(step(2, { 'ppo_actor/n_tokens': null, 'timeperf/train_step': 10 }));
    expect(deriveFigures(s).trainTokensPerS).toBeNull();
    const noKeys = { ...step(3) };
    noKeys.stats = { 'rollout/reward': 0.4 };
    s.ingest(noKeys);
    expect(deriveFigures(s).trainTokensPerS).toBeNull();
    s.ingest(step(4, { 'ppo_actor/n_tokens': 5000, 'timeperf/train_step': 0 }));
    expect(deriveFigures(s).trainTokensPerS).toBeNull();
    s.ingest(step(5, { 'ppo_actor/n_tokens': 0, 'timeperf/train_step': 4 }));
    expect(deriveFigures(s).trainTokensPerS).toBe(0);
    s.ingest(step(6, { 'ppo_actor/n_tokens': 5000, 'timeperf/train_step': 4 }));
    expect(deriveFigures(s).trainTokensPerS).toBe(1250);
  });

  it('a non-finite grad norm from an older step does not stay alerted when the latest step has none', () => {
    const s = storeOf([step(1, { 'ppo_actor/update/grad_norm': null })]);
    expect(ids(evaluateAlerts(s, []))).toEqual(['grad-norm-nonfinite']);
    const { 'ppo_actor/update/grad_norm': _g, ...rest } = step(2).stats;
    const next = { ...step(2), stats: rest };
    s.ingest(next);
    expect(ids(evaluateAlerts(s, []))).toEqual([]);
  });
});

describe('the step time survives a full key table', () => {
  it("is kept when the stats keys reach the store's key cap", () => {
    const s = new MetricsStore({ maxKeys: 4 });
    s.ingest(step(1));
    s.ingest(step(2));
    expect(s.latest(STEP_TIME_KEY)).toBe(600);
    expect(deriveFigures(s).stepTimeS).toBe(600);
  });
});

describe('rule boundaries (trainer.md §5 trouble signatures)', () => {
  it('reward exactly 0: 2 steps say nothing, 3 fire, a resumed step that replaces a 0 clears it', () => {
    const evs = [step(1), step(2, { 'rollout/reward': 0 }), step(3, { 'rollout/reward': 0 })];
    const s = storeOf(evs);
    expect(ids(evaluateAlerts(s, []))).toEqual([]);
    s.ingest(step(4, { 'rollout/reward': 0 }));
    expect(ids(evaluateAlerts(s, []))).toEqual(['reward-zero']);
    s.ingest({ type: 'resume', time: '2026-01-01T01:00:00.000', resumeStep: 4 } as TrainerEvent);
    s.ingest(step(4, { 'rollout/reward': 0.2 }, 70));
    expect(ids(evaluateAlerts(s, []))).toEqual([]);
    s.ingest(step(5, { 'rollout/reward': 0 }, 80));
    expect(ids(evaluateAlerts(s, []))).toEqual([]);
  });

  it('nan reward is not 0', () => {
    const s = storeOf([1, 2, 3].map((g) => step(g, { 'rollout/reward': null })));
    expect(ids(evaluateAlerts(s, []))).toEqual([]);
  });

  it('omniboxes_failed exactly 5% does not fire; above does', () => {
    expect(ids(evaluateAlerts(storeOf([step(1, { 'rollout/omniboxes_failed': 0.05 })]), []))).toEqual([]);
    expect(ids(evaluateAlerts(storeOf([step(1, { 'rollout/omniboxes_failed': 0.0501 })]), []))).toEqual([
      'omniboxes-failed',
    ]);
  });

  it('staleness: budget 0 fires on any lag, unknown budget never, equal to the budget not', () => {
    const s = storeOf([step(1, { 'staleness/gap/offpolicy_max': 1 })]);
    expect(ids(evaluateAlerts(s, [], { maxHeadOffpolicyness: 0 }))).toEqual(['staleness-over-budget']);
    expect(ids(evaluateAlerts(s, [], {}))).toEqual([]);
    expect(ids(evaluateAlerts(s, [], { maxHeadOffpolicyness: 1 }))).toEqual([]);
    expect(deriveFigures(s, { maxHeadOffpolicyness: 0 }).staleness).toMatchObject({ budget: 0, over: true });
    expect(deriveFigures(s, {}).staleness).toMatchObject({ budget: null, over: false });
  });

  it('stall: exactly 3 median step times is not a stall, more is', () => {
    const s = storeOf([step(1), step(2), step(3)]);
    expect(ids(evaluateAlerts(s, [], { now: at(30 + 30) }))).toEqual([]);
    expect(ids(evaluateAlerts(s, [], { now: at(30 + 31) }))).toEqual(['stall']);
  });

  it('update_successful below 1 warns; 1 and nan do not', () => {
    expect(ids(evaluateAlerts(storeOf([step(1, { 'ppo_actor/update/update_successful': 0.5 })]), []))).toEqual([
      'update-unsuccessful',
    ]);
    expect(ids(evaluateAlerts(storeOf([step(1, { 'ppo_actor/update/update_successful': null })]), []))).toEqual([]);
  });
});

describe('phase shares', () => {
  it('phases summing to more than the step are shares of their sum; missing phases are absent', () => {
    const s = storeOf([
      step(1, { 'timeperf/rollout': 300, 'timeperf/train_step': 100 }),
      step(2, { 'timeperf/rollout': 500, 'timeperf/train_step': 200 }),
    ]);
    const f = deriveFigures(s);
    expect(f.stepTimeS).toBe(600);
    expect(f.phases.map((p) => p.phase)).toEqual(['rollout', 'train_step']);
    expect(f.phases.reduce((a, p) => a + p.share, 0)).toBeCloseTo(1, 12);
    const s2 = storeOf([step(1), step(2, { 'timeperf/rollout': 300, 'timeperf/train_step': 60 })]);
    const f2 = deriveFigures(s2);
    expect(f2.phases.find((p) => p.phase === 'rollout')!.share).toBe(0.5);
  });
});

describe('a step record missing between two others', () => {
  it('the gap is shared by the steps it spans (time per step, not per record)', () => {
    const s = storeOf([step(1), step(2), step(4)]);
    expect(s.series(STEP_TIME_KEY)).toEqual({ steps: [2, 4], values: [600, 600] });
    const f = deriveFigures(s, { consumerBatchSize: 120 });
    expect(f.stepTimeS).toBe(600);
    expect(f.episodesPerS).toBe(0.2);
  });
});
