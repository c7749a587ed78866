import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, type StepEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, Series, STEP_TIME_KEY, deriveFigures } from '../../src/metrics/index.js';
import { SHARED } from '../harness/fixtures.js';
import { stepEvent } from '../harness/step-event.js';

const DIR = `${SHARED}fixtures/areal-logs/run-a/`;

function step(g: number, stats: Record<string, number | null>, time = '2026-01-01T00:00:00.000'): StepEvent {
  return stepEvent(g, 100, time, stats);
}

describe('Series', () => {
  it('keeps every point until the cap, then merges pairs keeping min and max', () => {
    const s = new Series(8);
    for (let i = 1; i <= 8; i++) s.push(i, i === 5 ? 100 : i);
    expect(s.view().steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    s.push(9, 9);
    expect(s.length).toBe(5);
    const d = s.downsample(100);
    expect(d.max).toContain(100);
    expect(d.steps[d.steps.length - 1]).toBe(9);
    for (let i = 10; i <= 10_000; i++) s.push(i, i % 7 === 0 ? -1 : 1);
    expect(s.length).toBeLessThanOrEqual(8);
    const all = s.downsample(1);
    expect(all.min[0]).toBe(-1);
    expect(all.max[0]).toBe(100);
    expect(s.latest()).toBe(1);
  });

  it('replaces the values from a repeated step on (resume from an older checkpoint)', () => {
    const s = new Series(16);
    for (let i = 1; i <= 8; i++) s.push(i, i);
    s.push(7, 70);
    s.push(8, 80);
    expect(s.view()).toEqual({ steps: [1, 2, 3, 4, 5, 6, 7, 8], values: [1, 2, 3, 4, 5, 6, 70, 80] });
    expect(s.recent(3)).toEqual({ steps: [6, 7, 8], values: [6, 70, 80] });
  });

  it('stores a cell that held no number as null and leaves it out of min/max', () => {
    const s = new Series(4);
    s.push(1, null);
    s.push(2, 3);
    expect(s.view().values).toEqual([null, 3]);
    expect(s.downsample(1).min).toEqual([3]);
    expect(s.latest()).toBe(3);
  });
});

describe('MetricsStore on run-a', () => {
  const store = new MetricsStore();
  for (const e of parseLogBytes(readFileSync(DIR + 'main.log'))) store.ingest(e);

  it('has every stats key as a series indexed by step', () => {
    expect(store.stepCount).toBe(12);
    expect(store.keys()).toHaveLength(161); // 160 stats + step time
    expect(store.series('rollout/reward').steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(store.resumes).toBe(1);
    expect(store.finished).toBe(true);
  });

  it('measures step time between consecutive records, not across the restart', () => {
    const st = store.series(STEP_TIME_KEY);
    // step 1 has no predecessor, step 7 follows the restart
    expect(st.steps).toEqual([2, 3, 4, 5, 6, 8, 9, 10, 11, 12]);
    expect(st.values[0]).toBeCloseTo(
      (Date.UTC(2026, 4, 25, 12, 31, 19, 769) - Date.UTC(2026, 4, 25, 12, 19, 55, 952)) / 1000,
      6,
    );
  });

  it('derives throughput, phases and ETA', () => {
    const f = deriveFigures(store, { consumerBatchSize: 128, maxHeadOffpolicyness: 2 });
    expect(f.globalStep).toBe(12);
    expect(f.totalSteps).toBe(160);
    expect(f.stepTimeS).toBeCloseTo(653.317, 3);
    expect(f.episodesPerS).toBeCloseTo(128 / 653.317, 6);
    const last = store.lastStepEvent!;
    expect(f.trainTokensPerS).toBeCloseTo(last.stats['ppo_actor/n_tokens']! / last.stats['timeperf/train_step']!, 6);
    expect(f.phases.length).toBeGreaterThan(0);
    expect(f.phases.reduce((a, p) => a + p.share, 0)).toBeLessThanOrEqual(1.000001);
    expect(f.etaS).toBeCloseTo(148 * f.meanStepTimeS!, 6);
    expect(f.etaAt).toMatch(/^2026-\d\d-\d\dT/);
    expect(f.staleness?.budget).toBe(2);
  });
});

describe('MetricsStore memory', () => {
  it('stays bounded after 1,000,000 steps of 200 keys', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `group${i % 7}/metric_${i}`);
    // A fast-mode object (JSON.parse) reused for every step: the test measures the store, not V8's
    // dictionary objects.
    const stats = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k) => [k, 0])))) as Record<
      string,
      number | null
    >;
    const store = new MetricsStore();
    const ev = step(0, stats);
    const feed = (from: number, to: number) => {
      for (let g = from; g < to; g++) {
        for (let k = 0; k < keys.length; k++) stats[keys[k]] = (g * 31 + k) % 1000;
        ev.globalStep = g;
        store.ingest(ev);
      }
    };
    feed(1, 20_000);
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    feed(20_000, 1_000_001);
    globalThis.gc?.();
    const after = process.memoryUsage().heapUsed;
    expect(store.stepCount).toBe(1_000_000);
    expect(store.series(keys[0]).steps.length).toBeLessThanOrEqual(1024);
    // 200 series of fixed-size columns: growth after the cap must be noise, not per-step data
    // (1e6 steps x 200 values x 8 bytes would be 1.6 GB).
    expect(after - before).toBeLessThan(128 * 1024 * 1024);
  }, 600_000);
});

describe('MetricsStore and repeated steps', () => {
  it('keeps the latest value of a step logged again after a resume', () => {
    const store = new MetricsStore();
    for (const g of [1, 2, 3, 4]) store.ingest(step(g, { 'rollout/reward': g }));
    store.ingest({ type: 'resume', resumeStep: 3, time: '2026-01-01T00:00:00.000' });
    store.ingest(step(3, { 'rollout/reward': 30 }));
    store.ingest(step(4, { 'rollout/reward': 40 }));
    store.ingest(step(5, { 'rollout/reward': 50 }));
    expect(store.series('rollout/reward')).toEqual({ steps: [1, 2, 3, 4, 5], values: [1, 2, 30, 40, 50] });
    expect(store.stepCount).toBe(7);
    expect(store.resumes).toBe(1);
  });
});
