// The RL health figures and early-warning rules, on a store fed parsed steps: a key the log never
// printed is "not in this run's log" (never 0); the three rules fire on the shapes the reference
// config's comments describe, and stay silent otherwise.
import { describe, expect, it } from 'vitest';
import { MetricsStore } from '../../src/metrics/store.js';
import { NOT_IN_LOG, rlHealthGroups, rlWarnings, type StatSource } from '../../src/metrics/rl-health.js';
import { parseAll, stepRecords } from '../trainer-log/helpers.js';

const e = (x: number) => x.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');

function storeOf(steps: Record<string, number>[]): MetricsStore {
  const store = new MetricsStore();
  const log = steps
    .map((st, i) =>
      stepRecords(
        `20260525-12:${String(i).padStart(2, '0')}:00.000`,
        i + 1,
        Object.entries(st).map(([k, v]) => [k, e(v)]),
      ),
    )
    .join('\n');
  for (const ev of parseAll(log + '\n')) store.ingest(ev);
  return store;
}

const source = (store: MetricsStore): StatSource => ({
  has: (k) => store.has(k),
  latest: (k) => store.latest(k),
  keys: () => store.keys(),
  history: (k) => store.downsample(k, 64).last,
});

describe('RL health figures', () => {
  it("say a key the log never printed is not in this run's log, and show the ones it did", () => {
    const store = storeOf([
      { 'rollout/reward': 0.25, 'rollout/action_click_rate': 0.5, 'rollout/action_type_rate': 0.25 },
    ]);
    const groups = rlHealthGroups(
      source(store),
      { maxHeadOffpolicyness: 2 },
      { episodeTimeouts: 3, promptOverflows: 0 },
    );
    const byLabel = new Map(groups.flatMap((g) => g.figures.map((f) => [f.label, f])));
    expect(byLabel.get('reward (success rate)')?.text).toBe('0.25');
    expect(byLabel.get('action mix')?.text).toBe('click 0.5 · type 0.25');
    expect(byLabel.get('entropy')).toMatchObject({ text: NOT_IN_LOG, source: 'ppo_actor/update/entropy/avg' });
    expect(byLabel.get('reward by tier')?.text).toBe(NOT_IN_LOG);
    expect(byLabel.get('episode timeouts')?.text).toBe('3');
    expect(groups.map((g) => g.question)).toEqual([
      'Is it learning?',
      'What do trajectories look like?',
      'Is the policy drifting?',
      'How stale are the samples?',
      'Is the environment failing?',
    ]);
  });

  it('mark staleness over the budget and a behaviour weight over its cap', () => {
    const store = storeOf([{ 'staleness/gap/offpolicy_max': 3, 'ppo_actor/update/behave_imp_weight/max': 6 }]);
    const figs = rlHealthGroups(
      source(store),
      { maxHeadOffpolicyness: 2, behavImpWeightCap: 5 },
      { episodeTimeouts: 0, promptOverflows: 0 },
    ).flatMap((g) => g.figures);
    expect(figs.find((f) => f.label === 'staleness max')).toMatchObject({ text: '3 (budget 2)', warn: true });
    expect(figs.find((f) => f.label === 'behaviour weight max')).toMatchObject({ text: '6 (cap 5)', warn: true });
  });
});

describe('early-warning rules', () => {
  it('a behaviour weight spike above 5 with no cap set; none with a cap, none when the cap is not known', () => {
    const s = source(storeOf([{ 'ppo_actor/update/behave_imp_weight/max': 14.65 }]));
    expect(rlWarnings(s, { behavImpWeightCap: null }).map((w) => w.title)).toEqual([
      'behaviour importance weight max 14.65 with no cap',
    ]);
    expect(rlWarnings(s, { behavImpWeightCap: 5 })).toEqual([]);
    expect(rlWarnings(s, {})).toEqual([]);
  });

  it('entropy collapse: the last 5 steps under half the first 10', () => {
    const steps = Array.from({ length: 20 }, (_, i) => ({ 'ppo_actor/update/entropy/avg': i < 15 ? 0.6 : 0.2 }));
    expect(rlWarnings(source(storeOf(steps)), {}).map((w) => w.id)).toEqual(['rl/entropy-collapse']);
    const steady = Array.from({ length: 20 }, () => ({ 'ppo_actor/update/entropy/avg': 0.6 }));
    expect(rlWarnings(source(storeOf(steady)), {})).toEqual([]);
  });

  it('failure trajectories 30% longer while reward holds; not when reward fell too', () => {
    const steps = (reward: number) =>
      Array.from({ length: 20 }, (_, i) => ({
        'rollout/failure/num_steps': i < 10 ? 10 : 14,
        'rollout/reward': i < 10 ? 0.4 : reward,
      }));
    expect(rlWarnings(source(storeOf(steps(0.4))), {}).map((w) => w.title)).toEqual([
      'failed trajectories grew from 10 to 14 steps while reward held (0.4 → 0.4)',
    ]);
    expect(rlWarnings(source(storeOf(steps(0.2))), {})).toEqual([]);
  });
});
