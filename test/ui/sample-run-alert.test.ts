// The cockpit preview's demo alert is the real steady-staleness rule's own (src/metrics), not a
// copy of an old title ("Staleness above budget" before the rule said "in steady training").
import { describe, expect, it } from 'vitest';
import { evaluateAlerts, MetricsStore } from '../../src/metrics/index.js';
import { sampleRunView } from '../../src/session/sample-run.js';

describe('sampleRunView: the demo alert', () => {
  it("is the metrics rule's staleness alert: its id, title, detail and advice, at the demo's last step", () => {
    const store = new MetricsStore();
    store.ingest({
      type: 'step',
      epoch: 1,
      epochs: 1,
      step: 1,
      stepsPerEpoch: 1,
      globalStep: 1,
      totalSteps: 1,
      time: '2026-05-25T12:00:00.000',
      stats: { 'staleness/gap/offpolicy_max': 3 },
    });
    const rule = evaluateAlerts(store, [], { maxHeadOffpolicyness: 2 }).find((a) => a.id === 'staleness-over-budget')!;
    const [demo, ...rest] = sampleRunView({ steps: 50, now: 0 }).alerts;
    expect(rest).toEqual([]);
    expect(demo).toMatchObject({
      id: rule.id,
      severity: rule.severity,
      title: rule.title,
      detail: rule.detail,
      advice: rule.advice,
      step: 50,
    });
    expect(demo.title).toBe('Staleness above budget in steady training');
  });

  it('no steps, no alert', () => {
    expect(sampleRunView({ steps: 0, now: 0 }).alerts).toEqual([]);
  });
});
