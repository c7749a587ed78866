import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, isoTimeToMs, type StepEvent, type TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, evaluateAlerts } from '../../src/metrics/index.js';
import { RunAlerts } from '../../src/health/index.js';
import { SHARED } from '../harness/fixtures.js';
import { minuteOfDay, stepEvent } from '../harness/step-event.js';

const HEALTHY = {
  'rollout/reward': 0.4,
  'ppo_actor/update/grad_norm': 0.3,
  'ppo_actor/update/update_successful': 1,
  'staleness/gap/offpolicy_max': 2,
  'ppo_actor/update/importance_weight/avg': 1.01,
  'ppo_actor/update/behave_imp_weight/avg': 0.99,
  'rollout/omniboxes_failed': 0.01,
};

function step(g: number, over: Record<string, number | null> = {}, minute = g * 10): StepEvent {
  return stepEvent(g, 50, minuteOfDay(minute), { ...HEALTHY, ...over });
}

function run(events: TrainerEvent[], ctx = {}) {
  const store = new MetricsStore();
  for (const e of events) store.ingest(e);
  return evaluateAlerts(store, events, { maxHeadOffpolicyness: 2, ...ctx });
}

const ids = (a: { id: string }[]) => a.map((x) => x.id);

describe('alert rules', () => {
  it('says nothing about a healthy run', () => {
    expect(run([step(1), step(2), step(3)])).toEqual([]);
  });

  it('flags a non-finite grad norm and an unsuccessful update', () => {
    expect(
      ids(run([step(1), step(2, { 'ppo_actor/update/grad_norm': null, 'ppo_actor/update/update_successful': 0 })])),
    ).toEqual(['grad-norm-nonfinite', 'update-unsuccessful']);
  });

  it('points at SGLANG_VLM_CACHE_SIZE_MB after 3 steps of reward exactly 0, not 2', () => {
    expect(run([step(1), step(2, { 'rollout/reward': 0 }), step(3, { 'rollout/reward': 0 })])).toEqual([]);
    const a = run([
      step(1, { 'rollout/reward': 0 }),
      step(2, { 'rollout/reward': 0 }),
      step(3, { 'rollout/reward': 0 }),
    ]);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ id: 'reward-zero', severity: 'error', step: 3 });
    expect(a[0].advice).toContain('SGLANG_VLM_CACHE_SIZE_MB');
  });

  it('compares staleness with the budget from the config', () => {
    expect(ids(run([step(1, { 'staleness/gap/offpolicy_max': 3 })]))).toEqual(['staleness-over-budget']);
    expect(ids(run([step(1, { 'staleness/gap/offpolicy_max': 3 })], { maxHeadOffpolicyness: 4 }))).toEqual([]);
  });

  it('flags importance weights more than 10% from 1 and omniboxes failures above 5%', () => {
    const a = run([step(1, { 'ppo_actor/update/behave_imp_weight/avg': 1.12, 'rollout/omniboxes_failed': 0.06 })]);
    expect(ids(a)).toEqual(['drift:ppo_actor/update/behave_imp_weight/avg', 'omniboxes-failed']);
  });

  it('flags a stall after 3x the median step time, on the log clock or on arrival times', () => {
    const events = [step(1), step(2), step(3), step(4)];
    const last = isoTimeToMs(events[3].time);
    expect(ids(run(events, { now: last + 29 * 60_000 }))).toEqual([]);
    expect(ids(run(events, { now: last + 31 * 60_000 }))).toEqual(['stall']);
    // On arrival times, our clock far from the log's: RunAlerts maps ours onto the log's (logNow).
    const WALL = 1_000;
    const live = new RunAlerts(new MetricsStore(), { maxHeadOffpolicyness: 2 });
    for (const e of events) live.ingest(e, WALL);
    expect(ids(live.evaluate(WALL + 29 * 60_000))).toEqual([]);
    expect(ids(live.evaluate(WALL + 31 * 60_000))).toEqual(['stall']);
    expect(ids(run([...events, { type: 'finished', time: events[3].time }], { now: last + 99 * 60_000 }))).toEqual([]);
  });

  it('turns an error event into an error alert with advice, standing until the run resumed and stepped (run-a: the NCCL timeout)', () => {
    const events = parseLogBytes(readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`));
    const errorAt = events.findIndex((e) => e.type === 'error');
    const resumeAt = events.findIndex((e) => e.type === 'resume');
    const stepAfter = events.findIndex((e, i) => i > resumeAt && e.type === 'step');
    const errorsOf = (upTo: number) =>
      run(events.slice(0, upTo + 1), { consumerBatchSize: 128 }).filter((x) => x.id.startsWith('error:'));
    const a = errorsOf(errorAt);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ id: 'error:0', severity: 'error', time: '2026-05-25T15:12:05.214' });
    expect(a[0].title).toContain('nccl-timeout');
    expect(a[0].advice).toMatch(/NCCL/);
    // Resumed, no step yet: still standing. A step after the resume: cleared.
    expect(errorsOf(stepAfter - 1)).toHaveLength(1);
    expect(errorsOf(stepAfter)).toEqual([]);
    expect(errorsOf(events.length - 1)).toEqual([]);
  });
});
