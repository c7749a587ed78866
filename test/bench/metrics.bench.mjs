// Metrics store at the brief's bound: 1,000,000 train steps x 200 keys (with a resume that repeats
// 50 steps every 100,000), then the cockpit's reads. Prints (asserts nothing): ingest rate, heap
// after (bounded: capacity buckets per key), downsample / deriveFigures / evaluateAlerts latency.
import { MetricsStore, deriveFigures, evaluateAlerts } from '../../dist/metrics/index.js';

const STEPS = 1_000_000;
const KEYS = 200;
const names = Array.from({ length: KEYS }, (_, k) =>
  k < 7
    ? [
        'rollout/reward',
        'ppo_actor/update/grad_norm',
        'ppo_actor/update/update_successful',
        'staleness/gap/offpolicy_max',
        'ppo_actor/n_tokens',
        'timeperf/train_step',
        'timeperf/rollout',
      ][k]
    : `key/${k}`,
);
const iso = (ms) => new Date(ms).toISOString().slice(0, 23);
const store = new MetricsStore();
let t = Date.UTC(2026, 0, 1);
const mem = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const heap0 = mem();
const t0 = performance.now();
let pushed = 0;
const stats = {};
for (let g = 1; g <= STEPS; g++) {
  t += 600_000;
  for (let k = 0; k < KEYS; k++) stats[names[k]] = k === 2 ? 1 : Math.sin(g * 0.001 + k) + 1.5;
  store.ingest({
    type: 'step',
    epoch: 1,
    epochs: 1,
    step: g,
    stepsPerEpoch: STEPS,
    globalStep: g,
    totalSteps: STEPS + 1000,
    time: iso(t),
    stats,
  });
  pushed++;
  if (g % 100_000 === 0 && g < STEPS) {
    store.ingest({ type: 'resume', time: iso((t += 3_600_000)), resumeStep: g - 50 });
    for (let r = g - 49; r <= g; r++) {
      t += 600_000;
      store.ingest({
        type: 'step',
        epoch: 1,
        epochs: 1,
        step: r,
        stepsPerEpoch: STEPS,
        globalStep: r,
        totalSteps: STEPS + 1000,
        time: iso(t),
        stats,
      });
      pushed++;
    }
  }
}
const s = (performance.now() - t0) / 1000;
global.gc?.();
const heapMB = (mem() - heap0) / 1e6;
console.log(
  `ingest ${pushed} steps x ${KEYS} keys: ${s.toFixed(1)} s = ${(pushed / s / 1000).toFixed(0)}k steps/s (${((pushed * KEYS) / s / 1e6).toFixed(1)}M values/s); heap+buffers +${heapMB.toFixed(1)} MB; keys ${store.keys().length}`,
);

let t1 = performance.now();
for (let i = 0; i < 200; i++) store.downsample(names[i % KEYS], 120);
console.log(`downsample to 120 points: ${(((performance.now() - t1) / 200) * 1000).toFixed(0)} us per key`);
t1 = performance.now();
let f;
for (let i = 0; i < 1000; i++) f = deriveFigures(store, { consumerBatchSize: 128, maxHeadOffpolicyness: 2 });
console.log(
  `deriveFigures: ${(((performance.now() - t1) / 1000) * 1000).toFixed(0)} us (mean step ${f.meanStepTimeS} s, eta ${f.etaS} s)`,
);
t1 = performance.now();
for (let i = 0; i < 1000; i++) evaluateAlerts(store, [], { now: t + 60_000 });
console.log(`evaluateAlerts: ${(((performance.now() - t1) / 1000) * 1000).toFixed(0)} us`);
