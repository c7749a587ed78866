// Exact line tables of the panels that show stats values: nan, inf and -inf are said as such
// (never a gap, never 0), the staleness panel shows the version_stats keys the log has, the
// throughput breakdown every timeperf/* phase the log has, the GPU panel the Memory-Usage records
// by source. The last tests go from a trainer log through the parser, the run's records (the
// session's store adapter) and the dashboard to the zoomed panel's text.
import { describe, expect, it } from 'vitest';
import { lineText, type Line } from '../../src/ui/lines.js';
import { stalenessLines, stalenessPropsFrom } from '../../src/ui/panels/staleness.js';
import { throughputLines, throughputPhasesFrom } from '../../src/ui/panels/throughput.js';
import { gpuLines } from '../../src/ui/panels/gpu.js';
import { rewardLines } from '../../src/ui/panels/reward.js';
import { dashboardBody, type DashboardUi } from '../../src/ui/screens/dashboard.js';
import type { RunViewContext } from '../../src/session/run-records.js';
import { recordsWithRules } from './records-with-rules.js';
import { ArraySeries } from '../../src/session/array-series.js';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { rec, stepRecords } from '../trainer-log/helpers.js';

const text = (lines: Line[]) => lines.map(lineText);

describe('staleness panel', () => {
  const base = { avg: [], max: [], budget: 2, behaveCapRatio: NaN, awaitingTrain: -Infinity, inProgress: null };

  it('says nan, inf and -inf as such, and the version stats the log has', () => {
    const version = {
      theta: { avg: 1.25, max: Infinity, min: 0 },
      proximal: { avg: NaN, max: 1, min: 0 },
      vTheta: 41,
      vProximal: 40,
    };
    expect(text(stalenessLines({ ...base, latestAvg: NaN, latestMax: Infinity, version }, 60, 6, false))).toEqual([
      '─ Staleness ────────────────────────────────────────────────',
      'avg nan  max inf  budget 2',
      'cap-dropped nan  awaiting train -inf  in progress —',
      'lag to θ avg 1.25 max inf min 0',
      'to proximal avg nan max 1 min 0',
      'v_theta 41  v_proximal 40',
    ]);
  });

  it('puts the version stats on one line when they fit, and shows only the keys there are', () => {
    const version = { theta: { max: 3 }, vTheta: 7 };
    expect(text(stalenessLines({ ...base, latestAvg: 1, latestMax: 3, version }, 80, 4, false))).toEqual([
      '─ Staleness ────────────────────────────────────────────────────────────────────',
      'avg 1  max 3  budget 2',
      'cap-dropped nan  awaiting train -inf  in progress —',
      'lag to θ max 3  v_theta 7',
    ]);
  });

  it('a max of inf is over the budget (bad, bold); nan is not', () => {
    const over = stalenessLines({ ...base, latestAvg: 1, latestMax: Infinity }, 60, 3, false)[1] as {
      t: string;
      c?: string;
      bold?: boolean;
    }[];
    expect(over[3]).toEqual({ t: 'inf', c: 'bad', bold: true });
    const nan = stalenessLines({ ...base, latestAvg: 1, latestMax: NaN }, 60, 3, false)[1] as {
      t: string;
      c?: string;
      bold?: boolean;
    }[];
    expect(nan[3]).toEqual({ t: 'nan', c: undefined, bold: false });
  });

  it('reads the version_stats keys from the series; without the gap keys it charts the lag to θ', () => {
    const V = 'ppo_actor/update/version_stats/';
    const s = new ArraySeries({
      [`${V}sample_staleness_theta_avg`]: [1, 2],
      [`${V}sample_staleness_theta_max`]: [2, Infinity],
      [`${V}v_theta`]: [5, 6],
    });
    const p = stalenessPropsFrom(s, null, 10);
    expect(p).toMatchObject({
      seriesOf: 'theta',
      latestAvg: 2,
      latestMax: Infinity,
      version: { theta: { avg: 2, max: Infinity }, vTheta: 6 },
    });
    expect(p.version).not.toHaveProperty('proximal');
    expect(text(stalenessLines(p, 60, 3, false))[1]).toBe('lag to θ avg 2  max inf  budget —');
  });
});

describe('throughput panel', () => {
  const figures = { stepTimes: [], stepTimeS: 700, episodesPerS: 0.18 };

  it('every timeperf phase the log has, newer ones too; nan and -inf said in place of a share', () => {
    const phases = [
      { key: 'timeperf/rollout', seconds: 300 },
      { key: 'timeperf/train_step', seconds: 100 },
      { key: 'timeperf/rollout_pause', seconds: 50 },
      { key: 'timeperf/teacher_logp', seconds: 50 },
      { key: 'timeperf/actor_onload', seconds: NaN },
      { key: 'timeperf/eval', seconds: -Infinity },
    ];
    expect(
      text(throughputLines({ ...figures, trainTokensPerS: NaN, rolloutWaitS: Infinity, phases }, 60, 8, false)),
    ).toEqual([
      '─ Throughput ───────────────────────────────────────────────',
      'step 11 min 40 s  ep/s 0.18  tok/s nan  wait inf',
      'rollout        ██████████████████░░░░░░░░░░░░  60% 5m00s',
      'train_step     ██████░░░░░░░░░░░░░░░░░░░░░░░░  20% 1m40s',
      'rollout_pause  ███░░░░░░░░░░░░░░░░░░░░░░░░░░░  10% 50s',
      'teacher_logp   ███░░░░░░░░░░░░░░░░░░░░░░░░░░░  10% 50s',
      'actor_onload   ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░      nan',
      'eval           ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░      -inf',
    ]);
  });

  it('phases that do not fit are counted, not dropped unsaid', () => {
    const phases = ['rollout', 'train_step', 'rollout_pause', 'teacher_logp'].map((k, i) => ({
      key: `timeperf/${k}`,
      seconds: 100 - i,
    }));
    expect(
      text(throughputLines({ ...figures, trainTokensPerS: 1, rolloutWaitS: 3, phases }, 60, 5, false)).slice(2),
    ).toEqual([
      'rollout        ████████░░░░░░░░░░░░░░░░░░░░░░  25% 1m40s',
      'train_step     ████████░░░░░░░░░░░░░░░░░░░░░░  25% 1m39s',
      '… 2 more phases (z: zoom)',
    ]);
  });

  it('without the latest step, the phases are every timeperf/* key of the series (nan kept, no-number left out)', () => {
    const s = new ArraySeries({
      'timeperf/rollout': [1, 2],
      'timeperf/actor_offload': [3, NaN],
      'timeperf/save': [null, null],
      'rollout/reward': [1, 1],
    });
    expect(throughputPhasesFrom(s)).toEqual([
      { key: 'timeperf/rollout', seconds: 2 },
      { key: 'timeperf/actor_offload', seconds: NaN },
    ]);
    expect(throughputPhasesFrom(s, [{ key: 'timeperf/x', seconds: 1 }])).toEqual([{ key: 'timeperf/x', seconds: 1 }]);
  });
});

describe('reward legend', () => {
  it('the latest reward as logged: nan, -inf; eval inf', () => {
    const base = { stepsPerPoint: 1, difficulty: null, evalReward: null, latestEval: null };
    expect(text(rewardLines({ ...base, reward: [0.1, NaN], latest: NaN }, 50, 2, false))[1]).toBe(
      'reward nan  avg10 0.1  (d: by difficulty)',
    );
    expect(
      text(
        rewardLines(
          { ...base, reward: [0.1, -Infinity], latest: -Infinity, evalReward: [0.1], latestEval: Infinity },
          60,
          2,
          false,
        ),
      )[1],
    ).toBe('reward -inf  avg10 0.1  eval inf  (d: by difficulty)');
  });
});

describe('GPU panel: the trainer memory records by source', () => {
  it('the controller first, then each worker in the order it first logged, its phases under it', () => {
    const memory = [
      { phase: 'ppo update', allocatedGB: 18.42, reservedGB: 61.07, usedGB: 64.9, totalGB: 79.11 },
      { source: 'actor', phase: 'after onload model', allocatedGB: 15, reservedGB: 16, usedGB: 17, totalGB: 79.11 },
      {
        source: 'rollout',
        phase: 'after model creation/loading',
        allocatedGB: 30,
        reservedGB: NaN,
        usedGB: 70.5,
        totalGB: 79.11,
      },
      {
        source: 'actor',
        phase: 'before model creation/loading',
        allocatedGB: 0,
        reservedGB: 0,
        usedGB: 1.5,
        totalGB: 79.11,
      },
    ];
    expect(text(gpuLines({ nodes: [], memory }, 72, 10))).toEqual([
      '─ GPU memory ───────────────────────────────────────────────────────────',
      "no GPU data yet (nvidia-smi is polled on the run's nodes)",
      'trainer (DP head 0):',
      'ppo update               alloc 18.4  resv 61.1  used 64.9/79.1 GB',
      'actor:',
      'after onload model       alloc 15  resv 16  used 17/79.1 GB',
      'before model creation/l… alloc 0  resv 0  used 1.5/79.1 GB',
      'rollout:',
      'after model creation/lo… alloc 30  resv nan  used 70.5/79.1 GB',
    ]);
  });
});

describe('from the log to the zoomed panel', () => {
  const T = '20260601-10:00:00.000';
  const V = 'ppo_actor/update/version_stats/';
  const MEM = (phase: string, a: string) =>
    `Memory-Usage ${phase}: memory allocated (GB): ${a}, memory reserved (GB): 16.00, device memory used/total (GB): 17.00/79.11`;
  const log = [
    rec(T, 'IOStruct', 'INFO', MEM('ppo update', '18.00')),
    stepRecords(T, 1, [
      ['rollout/reward', 'nan'],
      ['staleness/gap/offpolicy_avg', '1.5000e+00'],
      ['staleness/gap/offpolicy_max', 'inf'],
      [`${V}sample_staleness_theta_avg`, '1.0000e+00'],
      [`${V}sample_staleness_theta_max`, '2.0000e+00'],
      [`${V}sample_staleness_theta_min`, '0.0000e+00'],
      [`${V}v_theta`, '4.1000e+01'],
      [`${V}v_proximal`, '-inf'],
      ['timeperf/rollout', '3.0000e+02'],
      ['timeperf/train_step', '1.0000e+02'],
      ['timeperf/teacher_logp', 'nan'],
      ['timeperf/actor_onload', '5.0000e+01'],
    ]),
    '',
  ].join('\n');
  const ui: DashboardUi = {
    zoom: null,
    showDifficulty: false,
    logAll: false,
    logSearch: '',
    logScroll: 0,
    logView: 'events',
    trainerProblemsOnly: false,
  };
  const ctx: RunViewContext = {
    summary: { id: 'r', target: 't', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
    connection: { state: 'ready' },
    connectionAt: 0,
    gpus: [],
    trainerLines: { lines: [], startsMidLog: false, dropped: 0 },
    pollingStoppedS: null,
  };
  const records = recordsWithRules({
    clock: () => Date.parse('2026-06-01T10:00:05Z'),
    facts: { maxHeadOffpolicyness: 2 },
  });
  for (const e of parseLogBytes(Buffer.from(log))) records.ingest(e as TrainerEvent);
  // A worker's record (merged.log's [actor] prefix): the parser gives it its source.
  records.ingest({
    type: 'memory',
    phase: 'after onload model',
    allocatedGB: 15,
    reservedGB: 16,
    usedGB: 17,
    totalGB: 79.11,
    time: '2026-06-01T10:00:00.000',
    source: 'actor',
  });
  const run = records.view(ctx);
  const zoomed = (zoom: DashboardUi['zoom'], rows: number) =>
    text(dashboardBody(run, 60, 12, false, { ...ui, zoom }))
      .slice(0, rows)
      .map((l) => l.trimEnd());

  it('staleness: the gap keys (inf over budget), the version stats as logged', () => {
    expect(zoomed('staleness', 4)).toEqual([
      '─ Staleness ────────────────────────────────────────────────',
      'avg 1.5  max inf  budget 2',
      'cap-dropped —  awaiting train —  in progress —',
      'lag to θ avg 1 max 2 min 0  v_theta 41  v_proximal -inf',
    ]);
  });

  it("throughput: the latest step's phases, teacher_logp nan", () => {
    expect(zoomed('throughput', 6)).toEqual([
      '─ Throughput ───────────────────────────────────────────────',
      // No step time yet (one step); the wait is timeperf/rollout's, there being no batch record.
      'step —  ep/s —  tok/s —  wait 5 min 00 s',
      'rollout        ████████████████████░░░░░░░░░░  67% 5m00s',
      'train_step     ███████░░░░░░░░░░░░░░░░░░░░░░░  22% 1m40s',
      'actor_onload   ███░░░░░░░░░░░░░░░░░░░░░░░░░░░  11% 50s',
      'teacher_logp   ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░      nan',
    ]);
  });

  it('reward: nan, not a gap', () => {
    expect(zoomed('reward', 2)[1]).toBe('reward nan  avg10 —  (d: by difficulty)');
  });

  it('GPU memory: the controller and the worker, each under its source', () => {
    expect(zoomed('gpu', 6)).toEqual([
      '─ GPU memory ───────────────────────────────────────────────',
      "no GPU data yet (nvidia-smi is polled on the run's nodes)",
      'trainer (DP head 0):',
      'ppo update               alloc 18  resv 16  used 17/79.1 GB',
      'actor:',
      'after onload model       alloc 15  resv 16  used 17/79.1 GB',
    ]);
  });
});
