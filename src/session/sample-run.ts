// Synthetic run data shaped like the trainer's (same keys, plausible dynamics), for component
// tests, the benchmark and a cockpit preview without a target. Deterministic for a given seed.
import { ALERT_KEYS, evaluateAlerts, MetricsStore } from '../metrics/index.js';
import { ArraySeries } from './array-series.js';
import type { Alert, GpuSnapshot, LogLine, MemoryFigure, RunView } from './types.js';

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export const SAMPLE_KEYS = [
  'rollout/reward',
  'rollout/easy/reward',
  'rollout/medium/reward',
  'rollout/hard/reward',
  'rollout/num_steps',
  'staleness/gap/offpolicy_avg',
  'staleness/gap/offpolicy_max',
  'ppo_actor/behave_cap_ratio',
  'staleness/update/awaiting_train',
  'staleness/rollout/in_progress',
  'timeperf/rollout',
  'timeperf/recompute_logp',
  'timeperf/train_step',
  'timeperf/update_weights',
  'ppo_actor/n_tokens',
];

/** One step's stats: the named keys plus filler keys up to `keyCount`. */
export function sampleStats(
  step: number,
  keyCount = SAMPLE_KEYS.length,
  random = rng(step + 1),
): Record<string, number | null> {
  const progress = 1 - Math.exp(-step / 300);
  const noise = () => (random() - 0.5) * 0.1;
  const stats: Record<string, number | null> = {
    'rollout/reward': 0.15 + 0.45 * progress + noise(),
    'rollout/easy/reward': 0.3 + 0.5 * progress + noise(),
    'rollout/medium/reward': 0.12 + 0.4 * progress + noise(),
    'rollout/hard/reward': 0.02 + 0.2 * progress + noise(),
    'rollout/num_steps': 8 + random() * 4,
    'staleness/gap/offpolicy_avg': 0.8 + random() * 0.6,
    'staleness/gap/offpolicy_max': Math.round(1 + random() * 1.2),
    'ppo_actor/behave_cap_ratio': random() * 0.02,
    'staleness/update/awaiting_train': Math.round(random() * 64),
    'staleness/rollout/in_progress': Math.round(200 + random() * 100),
    'timeperf/rollout': 400 + random() * 300,
    'timeperf/recompute_logp': 20 + random() * 5,
    'timeperf/train_step': 90 + random() * 20,
    'timeperf/update_weights': 20 + random() * 5,
    'ppo_actor/n_tokens': 1.5e6 + random() * 2e5,
  };
  for (let k = SAMPLE_KEYS.length; k < keyCount; k++) stats[`extra/key_${k}`] = random();
  return stats;
}

/** The demo's alert: what the real steady-staleness rule (src/metrics) says for a step whose
 *  offpolicy_max is 3 over a budget of 2, so the preview never shows a title the cockpit no longer
 *  uses. */
function stalenessDemoAlert(step: number): Alert[] {
  const store = new MetricsStore({ capacity: 4 });
  store.ingest({
    type: 'step',
    epoch: 1,
    epochs: 10,
    step,
    stepsPerEpoch: 160,
    globalStep: step,
    totalSteps: 1600,
    time: '2026-05-25T12:19:55.952',
    stats: { [ALERT_KEYS.stalenessMax]: 3 },
  });
  return evaluateAlerts(store, [], { maxHeadOffpolicyness: 2 }).filter((a) => a.id === 'staleness-over-budget');
}

export interface SampleRunOptions {
  steps: number;
  keys?: number;
  nodes?: number;
  gpusPerNode?: number;
  now?: number;
  logLines?: number;
}

export function sampleRunView(o: SampleRunOptions): RunView {
  const now = o.now ?? Date.now();
  const series = new ArraySeries();
  const stepTimes: number[] = [];
  for (let s = 1; s <= o.steps; s++) {
    const st = sampleStats(s, o.keys);
    series.push(st);
    stepTimes.push((st['timeperf/rollout'] ?? 0) + (st['timeperf/train_step'] ?? 0) + 50);
  }
  const random = rng(7);
  const gpus: GpuSnapshot[] = Array.from({ length: o.nodes ?? 1 }, (_, n) => ({
    node: `node${n}`,
    gpus: Array.from({ length: o.gpusPerNode ?? 8 }, (_, i) => ({
      index: i,
      name: 'NVIDIA H100 80GB HBM3',
      usedMiB: Math.round(40000 + random() * 40000),
      totalMiB: 81559,
      utilPct: Math.round(random() * 100),
    })),
  }));
  const memory: MemoryFigure[] = [
    { phase: 'recompute logp', allocatedGB: 18.42, reservedGB: 61.07, usedGB: 64.9, totalGB: 79.11 },
    { phase: 'ppo update', allocatedGB: 30.1, reservedGB: 70.2, usedGB: 74.0, totalGB: 79.11 },
  ];
  const log: LogLine[] = Array.from({ length: o.logLines ?? 40 }, (_, i) => ({
    seq: i,
    level: i % 13 === 5 ? 'error' : i % 5 === 2 ? 'warning' : 'info',
    time: '2026-05-25T12:19:55.952',
    source: i % 3 === 0 ? 'rollout' : 'main',
    text:
      i % 5 === 2
        ? `[EPISODE_TIMEOUT] episode ${i} exceeded 600 s`
        : `Epoch 1/10 Step ${i + 1}/16 Train step ${i + 1}/160 done.`,
  }));
  const alerts: Alert[] = o.steps ? stalenessDemoAlert(o.steps) : [];
  const mean = stepTimes.length
    ? stepTimes.slice(-20).reduce((a, b) => a + b, 0) / Math.min(20, stepTimes.length)
    : null;
  const total = Math.max(o.steps, 1600);
  return {
    summary: {
      id: 'sample-run',
      target: 'local',
      experiment: 'qwen3vl8b-inst-grpo',
      trial: 'trial0',
      state: 'running',
      step: o.steps || null,
      totalSteps: total,
      reward: series.latest('rollout/reward'),
      lastStepAt: o.steps ? now - 4000 : null,
    },
    connection: { state: 'ready' },
    connectionAt: now,
    series,
    figures: {
      step: o.steps || null,
      totalSteps: total,
      epoch: o.steps ? Math.ceil(o.steps / 160) : null,
      epochs: 10,
      startedAt: now - o.steps * (mean ?? 0) * 1000,
      lastStepAt: o.steps ? now - 4000 : null,
      etaS: mean !== null ? (total - o.steps) * mean : null,
      stepTimeS: mean,
      episodesPerS: mean ? 128 / mean : null,
      trainTokensPerS:
        series.latest('ppo_actor/n_tokens') !== null && series.latest('timeperf/train_step')
          ? series.latest('ppo_actor/n_tokens')! / series.latest('timeperf/train_step')!
          : null,
      rolloutWaitS: series.latest('timeperf/rollout'),
      stepTimes,
    },
    alerts,
    memory,
    gpus,
    log,
    offpolicyBudget: 2,
  };
}
