// A series keeps its x axis: SeriesSource.downsample gives each point's global step with its value,
// from the cockpit's store (RunRecords) and from ArraySeries alike, so a run that starts at step
// 41 (a resume) or misses steps is drawn, and aligned with a baseline, at the steps it logged.
import { describe, expect, it } from 'vitest';
import { MetricsStore } from '../../src/metrics/index.js';
import { RunAlerts } from '../../src/health/index.js';
import { RunRecords } from '../../src/session/run-records.js';
import { ArraySeries } from '../../src/session/array-series.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';

const step = (g: number, reward: number): TrainerEvent => ({
  type: 'step',
  epoch: 1,
  epochs: 1,
  step: g,
  stepsPerEpoch: 100,
  globalStep: g,
  totalSteps: 100,
  time: `2026-05-25T12:00:${String(g % 60).padStart(2, '0')}.000`,
  stats: { 'rollout/reward': reward },
});

describe('downsample keeps the steps', () => {
  it("the store's series: a resumed run's steps from 41, a gap at 44-45, each value at its step", () => {
    const store = new MetricsStore();
    const records = new RunRecords({ store, alerts: new RunAlerts(store), clock: () => 0 });
    for (const g of [41, 42, 43, 46, 47]) {
      const e = step(g, g / 100);
      store.ingest(e);
      records.ingest(e);
    }
    const all = records.series.downsample('rollout/reward', 10);
    expect(all.steps).toEqual([41, 42, 43, 46, 47]);
    expect(all.values).toEqual([0.41, 0.42, 0.43, 0.46, 0.47]);
    // Fewer buckets than steps: each bucket at its last step, as the store keeps them.
    expect(records.series.downsample('rollout/reward', 2).steps).toEqual([42, 47]);
    expect(records.series.downsample('no/such/key', 4)).toEqual({ steps: [], values: [] });
  });

  it('ArraySeries: rows from its first step, bucket means at their last step, the steps move on as rows drop', () => {
    const s = new ArraySeries({ 'rollout/reward': [0.1, 0.2, null, 0.4, 0.5] }, 100, 10);
    expect(s.downsample('rollout/reward', 10)).toEqual({
      steps: [10, 11, 12, 13, 14],
      values: [0.1, 0.2, NaN, 0.4, 0.5],
    });
    const two = s.downsample('rollout/reward', 2);
    expect(two.steps).toEqual([11, 14]);
    expect(two.values[0]).toBeCloseTo(0.15);
    expect(two.values[1]).toBeCloseTo(0.45);
    const bounded = new ArraySeries({}, 3);
    for (let i = 1; i <= 5; i++) bounded.push({ x: i });
    expect(bounded.downsample('x', 8)).toEqual({ steps: [3, 4, 5], values: [3, 4, 5] });
  });
});
