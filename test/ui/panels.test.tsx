// Each panel with empty, normal and extreme data, drawn through Ink: frames stay inside their box
// and say the right things.
import { describe, expect, it } from 'vitest';
import { alertsLines } from '../../src/ui/panels/alerts.js';
import { gpuLines } from '../../src/ui/panels/gpu.js';
import { headerLines } from '../../src/ui/panels/header.js';
import { logLines } from '../../src/ui/panels/log.js';
import { rewardLines } from '../../src/ui/panels/reward.js';
import { stalenessLines } from '../../src/ui/panels/staleness.js';
import { throughputLines } from '../../src/ui/panels/throughput.js';
import type { Alert, DashboardFigures, GpuSnapshot, LogLine } from '../../src/session/types.js';
import { drawLines } from './draw-lines.js';

const draw = drawLines;

const SIZES: [number, number][] = [
  [40, 8],
  [60, 12],
  [118, 20],
];
const long = Array.from({ length: 10_000 }, (_, i) => 0.1 + 0.5 * (1 - Math.exp(-i / 2000)) + (i % 7) * 0.01);

describe('reward panel', () => {
  const base = { stepsPerPoint: 1, latest: null, difficulty: null, evalReward: null, latestEval: null };
  it('empty: says no data yet', () => {
    for (const [w, h] of SIZES)
      expect(draw(rewardLines({ ...base, reward: [] }, w, h, false), w, h)).toContain('no data yet');
  });
  it('normal: latest, moving average, and the difficulty and eval series on request', () => {
    const reward = [0.1, 0.2, 0.3, 0.25, 0.4];
    const f = draw(
      rewardLines(
        {
          ...base,
          reward,
          latest: 0.4,
          difficulty: { easy: [0.5, 0.6], medium: [0.3, 0.2], hard: [0, 0.1] },
          evalReward: [0.3, 0.35],
          latestEval: 0.35,
        },
        60,
        12,
        false,
      ),
      60,
      12,
    );
    expect(f).toContain('reward 0.4');
    expect(f).toContain('avg10 0.25');
    expect(f).toContain('eval 0.35');
    expect(f).toContain('easy medium hard');
  });
  it('extreme: 10,000 steps, NaN holes, huge values, all within the box', () => {
    for (const [w, h] of SIZES) {
      draw(rewardLines({ ...base, reward: long, stepsPerPoint: 1, latest: long.at(-1)! }, w, h, false), w, h);
      draw(rewardLines({ ...base, reward: [NaN, 1e12, NaN, -1e12], latest: -1e12 }, w, h, false), w, h);
    }
  });
});

describe('staleness panel', () => {
  const base = {
    budget: 2,
    latestAvg: null,
    latestMax: null,
    behaveCapRatio: null,
    awaitingTrain: null,
    inProgress: null,
  };
  it('empty', () => {
    expect(draw(stalenessLines({ ...base, avg: [], max: [] }, 60, 10, false), 60, 10)).toContain('budget 2');
  });
  it('normal: the budget is drawn as a line and figures are shown', () => {
    const f = draw(
      stalenessLines(
        {
          ...base,
          avg: [0.5, 1, 1.5],
          max: [1, 2, 2],
          latestAvg: 1.5,
          latestMax: 2,
          behaveCapRatio: 0.031,
          awaitingTrain: 12,
          inProgress: 300,
        },
        60,
        12,
        false,
      ),
      60,
      12,
    );
    expect(f).toContain('avg 1.5');
    expect(f).toContain('cap-dropped 3%');
    expect(f).toContain('awaiting train 12');
    expect(f).toMatch(/2\.0+┼?─+/);
  });
  it('extreme: over budget, flat and long', () => {
    for (const [w, h] of SIZES)
      draw(stalenessLines({ ...base, avg: long, max: long.map((v) => v * 10), latestMax: 40 }, w, h, false), w, h);
  });
});

describe('throughput panel', () => {
  it('empty', () => {
    const f = draw(
      throughputLines(
        { stepTimes: [], stepTimeS: null, episodesPerS: null, trainTokensPerS: null, rolloutWaitS: null, phases: [] },
        60,
        10,
        false,
      ),
      60,
      10,
    );
    expect(f).toContain('step —');
  });
  it('normal: shares of timeperf add up and figures show', () => {
    const f = draw(
      throughputLines(
        {
          stepTimes: [700, 720, 690],
          stepTimeS: 700,
          episodesPerS: 0.18,
          trainTokensPerS: 15000,
          rolloutWaitS: 500,
          phases: [
            { key: 'timeperf/rollout', seconds: 75 },
            { key: 'timeperf/train_step', seconds: 25 },
          ],
        },
        70,
        12,
        false,
      ),
      70,
      12,
    );
    expect(f).toContain('75%');
    expect(f).toContain('25%');
    expect(f).toContain('ep/s 0.18');
    expect(f).toContain('11 min 40 s');
  });
  it('extreme: zero and NaN phase times', () => {
    draw(
      throughputLines(
        {
          stepTimes: long,
          stepTimeS: 0,
          episodesPerS: Infinity,
          trainTokensPerS: NaN,
          rolloutWaitS: 0,
          phases: [{ key: 'timeperf/save', seconds: 0 }],
        },
        40,
        8,
        false,
      ),
      40,
      8,
    );
  });
});

describe('gpu panel', () => {
  it('empty: says it is waiting for nvidia-smi', () => {
    expect(draw(gpuLines({ nodes: [], memory: [] }, 60, 6), 60, 6)).toContain('no GPU data yet');
  });
  it('normal: bars per GPU, a node error, trainer memory phases', () => {
    const nodes: GpuSnapshot[] = [
      {
        node: 'head',
        gpus: [
          { index: 0, usedMiB: 40960, totalMiB: 81920 },
          { index: 1, usedMiB: null, totalMiB: null },
        ],
      },
      { node: 'w1', gpus: [], error: 'ssh: connect to host w1 port 22: No route to host' },
    ];
    const f = draw(
      gpuLines(
        { nodes, memory: [{ phase: 'ppo update', allocatedGB: 30.1, reservedGB: 70.2, usedGB: 74, totalGB: 79.11 }] },
        80,
        10,
      ),
      80,
      10,
    );
    expect(f).toContain('40/80G');
    expect(f).toContain('n/a');
    expect(f).toContain('No route to host');
    expect(f).toContain('ppo update');
  });
  it('extreme: 8 nodes × 8 GPUs fit or say how much is hidden', () => {
    const nodes: GpuSnapshot[] = Array.from({ length: 8 }, (_, n) => ({
      node: `node${n}`,
      gpus: Array.from({ length: 8 }, (_, i) => ({ index: i, usedMiB: 80000, totalMiB: 81559 })),
    }));
    const f = draw(gpuLines({ nodes, memory: [] }, 60, 8), 60, 8);
    expect(f).toContain('… 2 more nodes (z: zoom)');
    const wide = draw(gpuLines({ nodes, memory: [] }, 200, 40), 200, 40);
    expect(wide.match(/node\d/g)).toHaveLength(8);
  });
});

describe('alerts panel', () => {
  it('empty', () => {
    expect(draw(alertsLines([], 50, 5), 50, 5)).toContain('no alerts');
  });
  it('newest first, with advice', () => {
    const alerts: Alert[] = [
      { id: 'a', severity: 'warning', title: 'Old one', detail: 'd1', advice: 'do x', step: 3 },
      { id: 'b', severity: 'error', title: 'New one', detail: 'grad_norm is nan', advice: 'lower the lr', step: 9 },
    ];
    const f = draw(alertsLines(alerts, 60, 10), 60, 10);
    expect(f.indexOf('New one')).toBeLessThan(f.indexOf('Old one'));
    expect(f).toContain('→ lower the lr');
  });
  it('extreme: many long alerts are cut to the box', () => {
    const many: Alert[] = Array.from({ length: 100 }, (_, i) => ({
      id: `${i}`,
      severity: 'info',
      title: 'x'.repeat(300),
      detail: 'y'.repeat(300),
      advice: 'z'.repeat(300),
      step: i,
    }));
    expect(draw(alertsLines(many, 40, 6), 40, 6)).toContain('more');
  });
});

describe('log pane', () => {
  const lines: LogLine[] = [
    { seq: 1, level: 'info', time: '2026-05-25T12:00:01.000', text: 'Train step 1/10 done.' },
    { seq: 2, level: 'warning', time: '2026-05-25T12:00:02.000', source: 'rollout', text: '[EPISODE_TIMEOUT] ep 4' },
    { seq: 3, level: 'error', time: '2026-05-25T12:00:03.000', text: 'CUDA out of memory' },
  ];
  it('empty', () => {
    expect(draw(logLines({ lines: [], showAll: false, search: '', scroll: 0 }, 60, 4), 60, 4)).toContain(
      'no warnings or errors',
    );
  });
  it('warnings and errors by default, everything on request, search', () => {
    const def = draw(logLines({ lines, showAll: false, search: '', scroll: 0 }, 60, 6), 60, 6);
    expect(def).not.toContain('Train step');
    expect(def).toContain('[rollout] [EPISODE_TIMEOUT]');
    expect(def).toContain('CUDA out of memory');
    expect(draw(logLines({ lines, showAll: true, search: '', scroll: 0 }, 60, 6), 60, 6)).toContain('Train step');
    const found = draw(logLines({ lines, showAll: true, search: 'cuda', scroll: 0 }, 60, 6), 60, 6);
    expect(found).toContain('CUDA out of memory');
    expect(found).not.toContain('EPISODE');
    expect(draw(logLines({ lines, showAll: true, search: 'nothing', scroll: 0 }, 60, 6), 60, 6)).toContain(
      "no line matches 'nothing'",
    );
  });
  it('extreme: 5,000 long lines, scrolled', () => {
    const many: LogLine[] = Array.from({ length: 5000 }, (_, i) => ({
      seq: i,
      level: 'error',
      time: null,
      text: `line ${i} ` + 'x'.repeat(500),
    }));
    const f = draw(logLines({ lines: many, showAll: true, search: '', scroll: 10 }, 60, 5), 60, 5);
    expect(f).toContain('line 4989');
    expect(f).not.toContain('line 4999');
  });
});

describe('header', () => {
  const figures: DashboardFigures = {
    step: 120,
    totalSteps: 1600,
    epoch: 1,
    epochs: 10,
    startedAt: 0,
    lastStepAt: 3_600_000 - 4000,
    etaS: 1000,
    stepTimeS: 600,
    episodesPerS: null,
    trainTokensPerS: null,
    rolloutWaitS: null,
  };
  it('shows run, target, connection, state, step g/G, epoch, elapsed, ETA and age', () => {
    const lines = headerLines({
      runId: 'r1',
      target: 'gpu-head',
      connection: { state: 'ready' },
      connectionAt: 0,
      runState: 'running',
      figures,
      now: 3_600_000,
    });
    const f = draw(lines, 100, 2);
    expect(f).toContain('r1 on gpu-head │ connected │ running');
    expect(f).toContain('step 120/1600  epoch 1/10  elapsed 1 h 00 min  ETA 16 min  last step 4 s ago');
  });
  it('counts the reconnect down: "reconnecting in 4 s (attempt 3)"', () => {
    const c = { state: 'reconnecting' as const, attempt: 3, nextInMs: 5000, lastError: 'ECONNRESET' };
    const f = draw(
      headerLines({
        runId: 'r1',
        target: 't',
        connection: c,
        connectionAt: 1000,
        runState: 'running',
        figures,
        now: 2000,
      }),
      100,
      2,
    );
    expect(f).toContain('reconnecting in 4 s (attempt 3)');
  });
  it('empty run: dashes, no crash', () => {
    const empty: DashboardFigures = {
      step: null,
      totalSteps: null,
      epoch: null,
      epochs: null,
      startedAt: null,
      lastStepAt: null,
      etaS: null,
      stepTimeS: null,
      episodesPerS: null,
      trainTokensPerS: null,
      rolloutWaitS: null,
    };
    const f = draw(
      headerLines({
        runId: 'r',
        target: 't',
        connection: { state: 'connecting' },
        connectionAt: 0,
        runState: 'submitted',
        figures: empty,
        now: 0,
      }),
      60,
      2,
    );
    expect(f).toContain('step —');
    expect(f).toContain('connecting');
  });
});
