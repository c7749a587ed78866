// Upstream AReaL logs the samples' policy-version lag as `ppo_actor/update/version_stats/
// sample_staleness_theta_*` and has no webgym `staleness/gap/*` (trainer.md §9.6): the staleness
// figure, the staleness rule and the health monitor's post-resume check read either. Steps parsed
// from tables written like AReaL's tabulate_stats.
import { describe, expect, it } from 'vitest';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, deriveFigures, evaluateAlerts } from '../../src/metrics/index.js';
import { stepRecords } from '../trainer-log/helpers.js';

const THETA = 'ppo_actor/update/version_stats/sample_staleness_theta_';

function upstreamSteps(maxLag: string): TrainerEvent[] {
  const stats: [string, string][] = [
    ['rollout/reward', '4.0000e-01'],
    ['ppo_actor/update/grad_norm', '3.0000e-01'],
    ['ppo_actor/update/update_successful', '1.0000e+00'],
    [`${THETA}avg`, '1.5000e+00'],
    [`${THETA}max`, maxLag],
    [`${THETA}min`, '0.0000e+00'],
    ['rollout/accepted', '1.2800e+02'],
  ];
  const log = [1, 2, 3].map((g) => stepRecords(`20260413-10:0${g}:00.000`, g, stats)).join('\n') + '\n';
  return parseLogBytes(Buffer.from(log));
}

describe("staleness from upstream AReaL's version_stats keys", () => {
  it('the figure reads the lag to θ when the log has no gap keys', () => {
    const store = new MetricsStore();
    for (const e of upstreamSteps('3.0000e+00')) store.ingest(e);
    expect(deriveFigures(store, { maxHeadOffpolicyness: 2 }).staleness).toEqual({
      max: 3,
      avg: 1.5,
      budget: 2,
      over: true,
    });
  });

  it('the staleness rule fires on it, naming the key it read; not when within budget', () => {
    const alert = (maxLag: string) => {
      const evs = upstreamSteps(maxLag);
      const store = new MetricsStore();
      for (const e of evs) store.ingest(e);
      return evaluateAlerts(store, evs, { maxHeadOffpolicyness: 2 }).find((a) => a.id === 'staleness-over-budget');
    };
    expect(alert('3.0000e+00')?.detail).toMatch(new RegExp(`^${THETA}max = 3 > rollout.max_head_offpolicyness = 2`));
    expect(alert('2.0000e+00')).toBeUndefined();
  });
});
