// The dashboard's panels, one record each (as k9s's view registrar): its id, its minimum height,
// its share of spare rows, which panel survives first when space is short, the series it reads,
// and its lines. The layout (layout.ts), the dashboard (screens/dashboard.ts) and, through the
// ids and keys in session/panel-series.ts, the backfill's key list all derive from it: a new panel
// is one record here and its keys there. Pure.
import { bucketMean } from '../chart.js';
import type { Line } from '../lines.js';
import { alertsLines } from './alerts.js';
import { gpuLines } from './gpu.js';
import { logPaneLines } from './log.js';
import { rewardLines } from './reward.js';
import { STALENESS_KEYS, stalenessLines, stalenessPropsFrom } from './staleness.js';
import { throughputLines, throughputPhasesFrom } from './throughput.js';
import { PANEL_IDS, PANEL_SERIES, type PanelId } from '../../session/panel-series.js';
import { STEP_TIME_SERIES, type RunView } from '../../session/types.js';
import { indexPoints, panelOverlay } from './baseline-overlay.js';
import { SMOOTHING_WEIGHTS } from '../../metrics/ema.js';
import type { DashboardUi } from '../screens/dashboard.js';

export type { PanelId } from '../../session/panel-series.js';

export interface PanelRecord {
  id: PanelId;
  /** Rows below which it is hidden (or its row group is). */
  minHeight: number;
  /** Its share of the rows left once every shown panel has its minimum. */
  weight: number;
  /** 0 survives first when space is short. */
  priority: number;
  /** The series it reads (session/panel-series.ts): their history is backfilled at attach. */
  series: readonly string[];
  lines(run: RunView, ui: DashboardUi, width: number, height: number, colors: boolean): Line[];
}

const points = (width: number) => Math.max(2, width - 8);
const smoothingOf = (ui: DashboardUi) => SMOOTHING_WEIGHTS[ui.smoothing ?? 0] ?? 0;
const axisOf = (ui: DashboardUi) => ui.timeAxis ?? 'steps';

const RECORDS: Record<PanelId, Omit<PanelRecord, 'id' | 'series'>> = {
  reward: {
    minHeight: 7,
    weight: 3,
    priority: 0,
    lines(run, ui, width, height, colors) {
      const s = run.series;
      const n = points(width);
      const rewardPoints = s.downsample('rollout/reward', n);
      const reward = rewardPoints.values;
      const overlay = panelOverlay(
        run,
        {
          key: 'rollout/reward',
          name: 'reward',
          own: () => rewardPoints,
          smoothing: smoothingOf(ui),
          axis: axisOf(ui),
        },
        width,
        colors,
      );
      const hasEval = s.latest('test_rollout/trajectory/reward') !== null;
      return rewardLines(
        {
          reward,
          stepsPerPoint: reward.length ? s.stepCount / reward.length : 1,
          latest: s.latest('rollout/reward'),
          cursor: ui.rewardStep ?? null,
          steps: s.stepCount,
          difficulty: ui.showDifficulty
            ? {
                easy: s.downsample('rollout/easy/reward', n).values,
                medium: s.downsample('rollout/medium/reward', n).values,
                hard: s.downsample('rollout/hard/reward', n).values,
              }
            : null,
          evalReward: hasEval ? s.downsample('test_rollout/trajectory/reward', n).values : null,
          latestEval: s.latest('test_rollout/trajectory/reward'),
          overlay,
        },
        width,
        height,
        colors,
      );
    },
  },
  staleness: {
    minHeight: 7,
    weight: 2,
    priority: 3,
    lines(run, ui, width, height, colors) {
      const props = stalenessPropsFrom(run.series, run.offpolicyBudget, points(width));
      // The overlay draws the off-policy gap's average of both runs (the budget as a reference).
      const overlay =
        props.seriesOf === 'theta'
          ? null
          : panelOverlay(
              run,
              {
                key: 'staleness/gap/offpolicy_avg',
                name: 'staleness',
                own: () => run.series.downsample(STALENESS_KEYS.gapAvg, points(width)),
                smoothing: smoothingOf(ui),
                axis: axisOf(ui),
                reference: run.offpolicyBudget,
                min: 0,
              },
              width,
              colors,
            );
      return stalenessLines({ ...props, overlay }, width, height, colors);
    },
  },
  throughput: {
    minHeight: 8,
    weight: 2,
    priority: 4,
    lines(run, ui, width, height, colors) {
      const f = run.figures;
      const n = points(width);
      // The figures' step times have no steps of their own: drawn by their index.
      const series = f.stepTimes ? null : run.series.downsample(STEP_TIME_SERIES, n);
      const stepTimes = series ? series.values : bucketMean(f.stepTimes ?? [], n);
      const smoothing = smoothingOf(ui);
      const overlay = panelOverlay(
        run,
        {
          key: STEP_TIME_SERIES,
          name: 'step time',
          own: () => series ?? indexPoints(stepTimes),
          smoothing,
          axis: axisOf(ui),
          min: 0,
        },
        width,
        colors,
      );
      return throughputLines(
        {
          stepTimes,
          stepTimeS: f.stepTimeS,
          episodesPerS: f.episodesPerS,
          trainTokensPerS: f.trainTokensPerS,
          rolloutWaitS: f.rolloutWaitS,
          phases: throughputPhasesFrom(run.series, f.phases),
          overlay,
        },
        width,
        height,
        colors,
      );
    },
  },
  gpu: {
    minHeight: 4,
    weight: 2,
    priority: 5,
    lines: (run, _ui, width, height) => gpuLines({ nodes: run.gpus, memory: run.memory }, width, height),
  },
  alerts: {
    minHeight: 4,
    weight: 1,
    priority: 1,
    // Zoomed, each alert is shown whole (wrapped), not cut to a line.
    lines: (run, ui, width, height) => alertsLines(run.alerts, width, height, run.alertHistory, ui.zoom === 'alerts'),
  },
  log: {
    minHeight: 5,
    weight: 2,
    priority: 2,
    lines: (run, ui, width, height) => logPaneLines(run, ui, width, height),
  },
};

/** Every panel, in layout order. */
export const PANELS: readonly PanelRecord[] = PANEL_IDS.map((id) => ({ id, series: PANEL_SERIES[id], ...RECORDS[id] }));

const BY_ID = new Map(PANELS.map((p) => [p.id, p]));

export function panel(id: PanelId): PanelRecord {
  return BY_ID.get(id)!;
}
