// The RL-health early warnings as alerts on the one alert path (RunAlerts, as the watch feeds it):
// each fires at the step its threshold is crossed, with the rule stated, goes into the alert
// history, and says nothing where the log lacks its keys or the config's cap is not known. The
// rules-only store `follow` keeps (RULE_SERIES_KEYS) answers as the cockpit's full store does.
import { describe, expect, it } from 'vitest';
import { RunAlerts } from '../../src/health/index.js';
import { MetricsStore, RULE_SERIES_KEYS } from '../../src/metrics/index.js';
import { rlAlerts } from '../../src/metrics/rl-alerts.js';
import { parseAll, stepRecords } from '../trainer-log/helpers.js';

const e = (x: number) => x.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');

/** A log of steps 1..n as StatsLogger prints them, a minute apart. */
function log(steps: Record<string, number>[]): string {
  return (
    steps
      .map((st, i) =>
        stepRecords(
          `20260525-12:${String(i).padStart(2, '0')}:00.000`,
          i + 1,
          Object.entries(st).map(([k, v]) => [k, e(v)]),
        ),
      )
      .join('\n') + '\n'
  );
}

function run(steps: Record<string, number>[], cap: number | null | undefined, rulesOnly = false): RunAlerts {
  const store = new MetricsStore(rulesOnly ? { seriesKeys: RULE_SERIES_KEYS } : {});
  const ra = new RunAlerts(store, cap === undefined ? {} : { behavImpWeightCap: cap });
  for (const ev of parseAll(log(steps))) ra.ingest(ev, 0);
  return ra;
}

const rlIds = (ra: RunAlerts) => ra.active.map((a) => a.id).filter((id) => id.startsWith('rl/'));

// Near the reference run: behaviour weights in [0.5, 3], then the 14.65 spike at step 14.
const spike = Array.from({ length: 16 }, (_, i) => ({
  'ppo_actor/update/behave_imp_weight/max': i === 13 ? 14.65 : 2.5,
  'rollout/reward': 0.4,
}));

describe('early-warning alerts', () => {
  it('a behaviour weight spike with no cap fires at its step, states the rule, and clears after it', () => {
    const ra = run(spike.slice(0, 14), null);
    const [a] = ra.active.filter((x) => x.id === 'rl/behave-weight-spike');
    expect(a).toMatchObject({
      severity: 'warning',
      step: 14,
      title: 'Early warning: behaviour importance weight max 14.65 with no cap',
      detail:
        'ppo_actor/update/behave_imp_weight/max: behaviour importance weight max 14.65 with no cap ' +
        '(rule: max > 5 with actor.behav_imp_weight_cap unset)',
    });
    expect(a.advice).toMatch(/^A spike like this .* set actor\.behav_imp_weight_cap/);
    const later = run(spike, null);
    expect(rlIds(later)).toEqual([]);
    const h = later.history.entries().find((x) => x.alert.id === 'rl/behave-weight-spike');
    expect(h).toMatchObject({ firstStep: 14, active: false });
  });

  it('no spike alert with a cap set, nor when the cap is not known (no config)', () => {
    expect(rlIds(run(spike.slice(0, 14), 5))).toEqual([]);
    expect(rlIds(run(spike.slice(0, 14), undefined))).toEqual([]);
  });

  it('entropy collapse and failures growing while reward holds, in the full and the rules-only store', () => {
    const steps = Array.from({ length: 20 }, (_, i) => ({
      'ppo_actor/update/entropy/avg': i < 15 ? 0.6 : 0.2,
      'rollout/failure/num_steps': i < 10 ? 10 : 14,
      'rollout/reward': 0.4,
    }));
    for (const rulesOnly of [false, true]) {
      const ra = run(steps, 5, rulesOnly);
      expect(rlIds(ra)).toEqual(['rl/entropy-collapse', 'rl/failure-length']);
      const entries = ra.history.entries().filter((x) => x.alert.id.startsWith('rl/'));
      // Both need 20 points: they fire at step 20, not before.
      expect(entries.map((x) => [x.alert.id, x.firstStep])).toEqual([
        ['rl/entropy-collapse', 20],
        ['rl/failure-length', 20],
      ]);
    }
    expect(run(steps, 5).active.find((a) => a.id === 'rl/entropy-collapse')?.detail).toBe(
      'ppo_actor/update/entropy/avg: entropy collapse: 0.2 over the last 5 steps, 0.6 over the first 10 ' +
        "(rule: mean of the last 5 points < 0.5 × the first 10's, over ≥ 20 points)",
    );
  });

  it('never fire on a log without their keys, nor where only some of a rule’s keys are logged', () => {
    const bare = Array.from({ length: 30 }, () => ({ 'rollout/reward': 0.4 }));
    expect(rlIds(run(bare, null))).toEqual([]);
    // Failures grow, but reward is not in the log: whether success holds is not known.
    const noReward = Array.from({ length: 20 }, (_, i) => ({ 'rollout/failure/num_steps': i < 10 ? 10 : 14 }));
    expect(rlIds(run(noReward, null))).toEqual([]);
  });
});

describe('the trend warnings past the first 256 steps', () => {
  const step = (g: number, entropy: number) => ({
    type: 'step' as const,
    epoch: 1,
    epochs: 1,
    step: g,
    stepsPerEpoch: 600,
    globalStep: g,
    totalSteps: 600,
    time: '2026-05-25T12:00:00.000',
    stats: { 'ppo_actor/update/entropy/avg': entropy, 'rollout/reward': 0.4 },
  });

  it('are asked every 8th step, by step number, and their answer stands in between (not cleared)', () => {
    const store = new MetricsStore();
    const seen: { step: number; on: boolean }[] = [];
    for (let g = 1; g <= 600; g++) {
      // Entropy collapses from step 400 on.
      store.ingest(step(g, g < 400 ? 1 : 0.01));
      const on = rlAlerts(store, null).some((a) => a.id === 'rl/entropy-collapse');
      seen.push({ step: g, on });
    }
    const first = seen.find((s) => s.on)!;
    expect(first.step % 8).toBe(0);
    expect(first.step).toBeGreaterThan(400);
    // Once on, on at every step after (an in-between step does not clear it).
    expect(seen.filter((s) => s.step >= first.step).every((s) => s.on)).toBe(true);
    // The same store replayed gives the same first step (the answer does not depend on timing).
    const again = new MetricsStore();
    let firstAgain = 0;
    for (let g = 1; g <= 600 && !firstAgain; g++) {
      again.ingest(step(g, g < 400 ? 1 : 0.01));
      if (rlAlerts(again, null).some((a) => a.id === 'rl/entropy-collapse')) firstAgain = g;
    }
    expect(firstAgain).toBe(first.step);
  });
});
