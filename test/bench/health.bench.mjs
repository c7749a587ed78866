// Health rules: what they cost the cockpit. Prints (asserts nothing):
//  - HealthFeed (parser + save scanner + monitor) throughput on fixture run-a's stdout.log, repeated;
//  - HealthMonitor.ingest rate on synthetic step streams, and evaluate() latency on a 100k-step run;
//  - heap after 100k steps (bounded windows: should not grow with the run).
import { readFileSync } from 'node:fs';
import { HealthFeed, HealthMonitor } from '../../dist/health/index.js';

const FIX = new URL('../fixtures/shared/fixtures/areal-logs/run-a/stdout.log', import.meta.url).pathname;
const one = readFileSync(FIX);
const reps = 40;
const t0 = performance.now();
const feed = new HealthFeed();
for (let r = 0; r < reps; r++) for (let i = 0; i < one.length; i += 65536) feed.push(one.subarray(i, i + 65536));
feed.end();
const s = (performance.now() - t0) / 1000;
console.log(
  `HealthFeed on run-a stdout.log x${reps}: ${((one.length * reps) / 1e6).toFixed(1)} MB in ${s.toFixed(2)} s = ${((one.length * reps) / 1e6 / s).toFixed(1)} MB/s`,
);

const iso = (ms) => new Date(ms).toISOString().slice(0, 23);
const m = new HealthMonitor();
let t = Date.UTC(2026, 4, 25);
const N = 100_000;
const stats = {};
for (let k = 0; k < 8; k++) stats[`timeperf/phase_${k}`] = 10;
stats['staleness/gap/offpolicy_max'] = 1;
m.ingest({ type: 'start', time: iso(t) });
const t1 = performance.now();
for (let i = 1; i <= N; i++) {
  t += 600_000;
  m.ingest({ type: 'batch', waitS: 550, totalS: 554, episodes: 128, time: iso(t) });
  for (const p of ['recompute logp', 'compute advantages', 'ppo update']) {
    t += 20_000;
    m.ingest({ type: 'memory', phase: p, allocatedGB: 18, reservedGB: 60, usedGB: 64, totalGB: 79, time: iso(t) });
  }
  t += 20_000;
  m.ingest({
    type: 'step',
    epoch: 1,
    epochs: 1,
    step: i,
    stepsPerEpoch: N,
    globalStep: i,
    totalSteps: N,
    time: iso(t),
    stats,
  });
}
const ingestS = (performance.now() - t1) / 1000;
console.log(
  `HealthMonitor.ingest: ${N} steps (${N * 5} events) in ${ingestS.toFixed(2)} s = ${((N * 5) / ingestS / 1e6).toFixed(2)} M events/s`,
);
const t2 = performance.now();
const K = 1000;
for (let i = 0; i < K; i++) m.evaluate({ now: iso(t + i * 1000) });
console.log(
  `HealthMonitor.evaluate: ${(((performance.now() - t2) / K) * 1000).toFixed(0)} µs per call after ${N} steps`,
);
if (global.gc) global.gc();
console.log(`heap used after ${N} steps: ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`);
