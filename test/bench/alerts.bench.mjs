// The alert history rebuilt from a backfill: every record is observed twice (before it, at its time;
// after it), so attaching to a long run costs alert evaluations per record. Prints (asserts nothing):
// records/s through RunAlerts vs the bare store + health monitor, for 10,000 steps of 6 records with
// 200 stats keys, a few hangs and errors; the history's size and what its cap dropped.
import { RunAlerts, HealthMonitor } from '../../dist/health/index.js';
import { MetricsStore } from '../../dist/metrics/index.js';

const STEPS = 10_000;
const KEYS = 200;
const names = Array.from({ length: KEYS }, (_, k) =>
  k < 4
    ? ['rollout/reward', 'ppo_actor/update/grad_norm', 'ppo_actor/update/update_successful', 'timeperf/rollout'][k]
    : `key/${k}`,
);
const iso = (ms) => new Date(ms).toISOString().slice(0, 23);

function records() {
  const out = [];
  let t = Date.UTC(2026, 0, 1);
  for (let g = 1; g <= STEPS; g++) {
    const hang = g % 1000 === 500 ? 3 * 3600_000 : 0;
    out.push({ type: 'batch', waitS: 500, totalS: 510, episodes: 128, time: iso((t += 500_000 + hang)) });
    for (const phase of ['recompute logp', 'compute advantages', 'ppo update'])
      out.push({
        type: 'memory',
        phase,
        allocatedGB: 18,
        reservedGB: 60,
        usedGB: 64,
        totalGB: 79,
        time: iso((t += 20_000)),
      });
    const stats = {};
    for (let k = 0; k < KEYS; k++)
      stats[names[k]] = k === 0 ? (g % 97 < 4 ? 0 : 0.5) : k === 2 ? 1 : Math.sin(g + k) + 1.5;
    out.push({
      type: 'step',
      epoch: 1,
      epochs: 1,
      step: g,
      stepsPerEpoch: STEPS,
      globalStep: g,
      totalSteps: STEPS,
      time: iso((t += 40_000)),
      stats,
    });
    if (g % 2000 === 0) {
      out.push({
        type: 'error',
        message: 'Training step failed',
        detail: '',
        kind: 'nccl-timeout',
        time: iso((t += 60_000)),
      });
      out.push({ type: 'resume', resumeStep: g + 1, time: iso((t += 600_000)) });
    }
  }
  return out;
}

const events = records();
let t0 = performance.now();
const store = new MetricsStore();
const health = new HealthMonitor();
for (const e of events) {
  store.ingest(e);
  health.ingest(e);
}
const bare = performance.now() - t0;
t0 = performance.now();
const alerts = new RunAlerts(new MetricsStore());
for (const e of events) alerts.ingest(e, 0);
const withAlerts = performance.now() - t0;
const entries = alerts.history.entries();
console.log(
  `backfill ${events.length} records (${STEPS} steps x ${KEYS} keys): store+health ${bare.toFixed(0)} ms, with the alert history rebuilt record by record ${withAlerts.toFixed(0)} ms (${(((withAlerts - bare) / events.length) * 1000).toFixed(1)} us per record more)`,
);
console.log(
  `history: ${entries.length} entries (${entries.filter((e) => !e.active).length} cleared), ${alerts.history.dropped} dropped by the cap`,
);

// A live frame: one evaluation at the current wall time (the cockpit re-derives at least every 5 s).
const K = 20_000;
t0 = performance.now();
for (let i = 0; i < K; i++) alerts.evaluate(i * 10);
console.log(
  `live evaluation (every rule, observed into the history): ${(((performance.now() - t0) / K) * 1000).toFixed(1)} us per call`,
);
