// The alert rules are asked at every record, twice; RunAlerts asks the step rules (stepAlerts) again
// only when the store's rulesVersion moved (or the facts they are judged by), and the stall rule's
// median of step times is kept per version too. That holds only if nothing those rules read
// changes without the version: checked here record by record on every fixture log, each answer
// against the first one given at the same version.
import { describe, expect, it } from 'vitest';
import { MetricsStore, RULE_SERIES_KEYS } from '../../src/metrics/index.js';
import { stepAlerts } from '../../src/metrics/alerts.js';
import { median, recentStepTimes } from '../../src/metrics/derive.js';
import { fixtureLogs } from './fixture-logs.js';

const CONTEXTS = [
  { maxHeadOffpolicyness: 4, stalenessJudgedElsewhere: false },
  { maxHeadOffpolicyness: 0, stalenessJudgedElsewhere: false },
  { maxHeadOffpolicyness: 0, stalenessJudgedElsewhere: true },
  {},
];

describe("the store's rulesVersion", () => {
  const all = fixtureLogs();

  it.each(all.map(([name, events]) => [name, events] as const))(
    '%s: the same version, the same step rules and median step time',
    (_name, events) => {
      for (const store of [new MetricsStore({ capacity: 256 }), new MetricsStore({ seriesKeys: RULE_SERIES_KEYS })]) {
        const seen = new Map<number, unknown>();
        for (const e of events) {
          store.ingest(e);
          const answer = {
            rules: CONTEXTS.map((ctx) => stepAlerts(store, ctx)),
            median: median(recentStepTimes(store)),
          };
          expect(store.medianStepTime()).toBe(answer.median);
          if (seen.has(store.rulesVersion)) expect(answer).toEqual(seen.get(store.rulesVersion));
          else seen.set(store.rulesVersion, answer);
        }
        // Records that are not steps (memory, batch, warnings, errors) came between the versions.
        expect(seen.size).toBeLessThan(events.length);
      }
    },
  );

  it('the fixtures make the step rules speak (the comparison is not of silences)', () => {
    const ids = new Set<string>();
    for (const [, events] of all) {
      const store = new MetricsStore();
      for (const e of events) {
        store.ingest(e);
        for (const a of stepAlerts(store, CONTEXTS[1])) ids.add(a.id);
      }
    }
    expect(ids.size).toBeGreaterThanOrEqual(3);
  });
});
