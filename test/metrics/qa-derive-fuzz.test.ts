// Random runs (crashes, resumes from older checkpoints, fresh starts, nan/missing keys) through the
// store and the derived figures: nothing a researcher reads may mix the downtime of a restart into a
// step time, and every figure is finite or null.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { StepEvent, TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, STEP_TIME_KEY, deriveFigures, evaluateAlerts } from '../../src/metrics/index.js';

type Act =
  | { kind: 'step'; dt: number; stats: Record<string, number | null> }
  | { kind: 'restart'; back: number; down: number; fresh: boolean };
const val = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: 0, max: 1000, noNaN: true }) },
  { weight: 1, arbitrary: fc.constant(null) },
);
const stats = fc.dictionary(
  fc.constantFrom(
    'timeperf/rollout',
    'timeperf/train_step',
    'timeperf/update_weights',
    'ppo_actor/n_tokens',
    'rollout/reward',
    'staleness/gap/offpolicy_max',
    'ppo_actor/update/grad_norm',
  ),
  val,
);
const act: fc.Arbitrary<Act> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ kind: fc.constant('step' as const), dt: fc.integer({ min: 1, max: 1200 }), stats }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('restart' as const),
      back: fc.integer({ min: 0, max: 5 }),
      down: fc.integer({ min: 3600, max: 86_400 }),
      fresh: fc.boolean(),
    }),
  },
);
const iso = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().slice(0, 23);

describe('derived figures under random resumes', () => {
  it('step times are same-process gaps between consecutive steps; figures finite or null', () => {
    fc.assert(
      fc.property(fc.array(act, { maxLength: 120 }), fc.integer({ min: 1, max: 512 }), (acts, batch) => {
        const store = new MetricsStore();
        const events: TrainerEvent[] = [];
        let t = 0;
        let next = 1;
        const allowed = new Set<string>();
        let prev: { step: number; t: number } | null = null;
        for (const a of acts) {
          if (a.kind === 'restart') {
            t += a.down;
            next = a.fresh ? 1 : Math.max(1, next - a.back);
            const e = (
              a.fresh ? { type: 'start', time: iso(t) } : { type: 'resume', time: iso(t), resumeStep: next }
            ) as TrainerEvent;
            events.push(e);
            store.ingest(e);
            prev = null;
            continue;
          }
          t += a.dt;
          const e: StepEvent = {
            type: 'step',
            epoch: 1,
            epochs: 1,
            step: next,
            stepsPerEpoch: 400,
            globalStep: next,
            totalSteps: 400,
            time: iso(t),
            stats: a.stats,
          };
          if (prev && next === prev.step + 1) allowed.add(`${next}:${t - prev.t}`);
          prev = { step: next, t };
          next++;
          events.push(e);
          store.ingest(e);
        }
        const st = store.series(STEP_TIME_KEY);
        for (let i = 0; i < st.steps.length; i++)
          expect(allowed.has(`${st.steps[i]}:${st.values[i]}`), `${st.steps[i]}:${st.values[i]}`).toBe(true);
        const f = deriveFigures(store, { consumerBatchSize: batch, maxHeadOffpolicyness: 2 });
        for (const x of [
          f.stepTimeS,
          f.meanStepTimeS,
          f.medianStepTimeS,
          f.episodesPerS,
          f.trainTokensPerS,
          f.etaS,
          f.progress,
        ]) {
          if (x !== null) expect(Number.isFinite(x) && x >= 0).toBe(true);
        }
        const share = f.phases.reduce((a, p) => a + p.share, 0);
        expect(share).toBeLessThanOrEqual(1 + 1e-9);
        if (f.meanStepTimeS !== null) expect(f.meanStepTimeS).toBeLessThanOrEqual(1200);
        const alerts = evaluateAlerts(store, events, { now: Date.UTC(2026, 0, 1) + t * 1000 + 1 });
        expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length);
      }),
      { numRuns: 300 },
    );
  });
});
