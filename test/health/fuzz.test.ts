// Whatever the event stream (out of order, repeated, missing times, resumes anywhere), the rules
// never throw and every alert is well-formed.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HealthMonitor } from '../../src/health/index.js';
import type { HealthEvent } from '../../src/health/index.js';

const T0 = Date.UTC(2026, 4, 25);
const time = fc.integer({ min: 0, max: 3 * 86400 }).map((s) => new Date(T0 + s * 1000).toISOString().slice(0, 23));
const num = fc.oneof(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.constant(null));

const event: fc.Arbitrary<HealthEvent> = fc.oneof(
  fc.record({ type: fc.constant('batch' as const), waitS: fc.nat(), totalS: fc.nat(), episodes: fc.nat(), time }),
  fc.record({
    type: fc.constant('memory' as const),
    phase: fc.constantFrom('recompute logp', 'ref logp', 'compute advantages', 'ppo update', 'after onload model'),
    allocatedGB: fc.nat(),
    reservedGB: fc.nat(),
    usedGB: fc.nat(),
    totalGB: fc.nat(),
    time,
  }),
  fc.record({
    type: fc.constant('step' as const),
    epoch: fc.nat(),
    epochs: fc.nat(),
    step: fc.nat(),
    stepsPerEpoch: fc.nat(),
    globalStep: fc.integer({ min: 1, max: 200 }),
    totalSteps: fc.nat(),
    time,
    stats: fc.record({ 'timeperf/update_weights': num, 'timeperf/rollout': num, 'staleness/gap/offpolicy_max': num }),
  }),
  fc.record({ type: fc.constant('resume' as const), resumeStep: fc.integer({ min: 1, max: 200 }), time }),
  fc.record({ type: fc.constant('start' as const), time }),
  fc.record({ type: fc.constant('save' as const), time, what: fc.constant('checkpoints'), step: fc.nat() }),
  fc.record({ type: fc.constant('finished' as const), time }),
  fc.record({
    type: fc.constant('error' as const),
    message: fc.string(),
    detail: fc.string(),
    kind: fc.constant('other' as const),
    time: fc.oneof(time, fc.constant(null)),
  }),
  fc.record({
    type: fc.constant('warning' as const),
    message: fc.string(),
    kind: fc.constant('other' as const),
    time: fc.constant(null),
  }),
);

describe('health rules on arbitrary streams', () => {
  it('never throw and give well-formed alerts', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 300 }),
        time,
        fc.option(fc.nat(10)),
        fc.option(fc.integer({ min: 1, max: 7200 })),
        time,
        (events, now, budget, freq, end) => {
          const m = new HealthMonitor();
          m.ingestAll(events);
          const alerts = m.evaluate({
            now,
            ...(budget !== null ? { maxHeadOffpolicyness: budget } : {}),
            ...(freq !== null ? { recoverFreqSecs: freq } : {}),
            slurmEndTime: end,
          });
          for (const a of alerts) {
            expect(a.id).toMatch(/^health\/(stall|resume|slurm|drift)\//);
            expect(['error', 'warning', 'info']).toContain(a.severity);
            expect(a.title.length).toBeGreaterThan(0);
            expect(a.detail).not.toMatch(/NaN|undefined|Infinity/);
          }
          expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
