// Reward panel: rollout/reward with a moving average, per-difficulty series on a key, eval when present.
import { drawChart, movingAverage } from '../chart.js';
import { formatNumber } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import { chartColors } from '../theme.js';
import type { PanelOverlay } from './baseline-overlay.js';
import { keyOf } from '../key-names.js';

export interface RewardProps {
  /** rollout/reward, already bucketed to about the chart width. */
  reward: number[];
  /** Steps per point of `reward` (1 when not bucketed): sizes the moving-average window. */
  stepsPerPoint: number;
  latest: number | null;
  /** Present when the user asked for per-difficulty series. */
  difficulty: { easy: number[]; medium: number[]; hard: number[] } | null;
  /** test_rollout/trajectory/reward when the run evaluates. */
  evalReward: number[] | null;
  latestEval: number | null;
  /** A pinned baseline or smoothing: its legend line and chart replace the chart (baseline-overlay.ts). */
  overlay?: PanelOverlay | null;
  /** The cursor: a step of the run (`[` `]`), or null; `steps`: the steps logged. */
  cursor?: number | null;
  steps?: number;
}

/** The cursor's step and the reward of the chart point holding it (a point is a bucket of steps),
 *  for the title's right end (the legend is cut first on a narrow panel). */
function cursorText(p: RewardProps): string {
  if (p.cursor == null) return '';
  const i = Math.min(p.reward.length - 1, Math.floor((p.cursor - 1) / Math.max(1, p.stepsPerPoint)));
  const v = i >= 0 ? formatNumber(p.reward[i]) : '—';
  const of = p.stepsPerPoint > 1.5 ? ` (point of ${Math.round(p.stepsPerPoint)} steps)` : '';
  return `◆ step ${p.cursor}: ${v}${of}, e episodes`;
}

export const REWARD_AVG_STEPS = 10;

export function rewardLines(p: RewardProps, width: number, height: number, colors: boolean): Line[] {
  const window = Math.max(1, Math.round(REWARD_AVG_STEPS / Math.max(1, p.stepsPerPoint)));
  const avg = movingAverage(p.reward, window);
  const lastAvg = avg.length ? avg[avg.length - 1] : null;
  const legend: Line = [
    { t: 'reward ', c: 'accent' },
    { t: formatNumber(p.latest) },
    { t: `  avg${REWARD_AVG_STEPS} `, c: 'warn' },
    { t: formatNumber(lastAvg !== null && Number.isFinite(lastAvg) ? lastAvg : null) },
    ...(p.evalReward ? [{ t: '  eval ', c: 'bad' as const }, { t: formatNumber(p.latestEval) }] : []),
    ...(p.difficulty
      ? [
          { t: '  easy', c: 'good' as const },
          { t: ' medium', c: 'title' as const },
          { t: ' hard', c: 'accent' as const },
        ]
      : [{ t: `  (${keyOf('difficulty')}: by difficulty)`, c: 'dim' as const }]),
  ];
  const series = [
    { values: p.reward, color: chartColors.main },
    { values: avg, color: chartColors.average },
  ];
  if (p.difficulty) {
    series.push({ values: p.difficulty.easy, color: chartColors.easy });
    series.push({ values: p.difficulty.medium, color: chartColors.medium });
    series.push({ values: p.difficulty.hard, color: chartColors.hard });
  }
  if (p.evalReward) series.push({ values: p.evalReward, color: chartColors.eval });
  if (p.overlay) {
    const chart = height > 3 ? p.overlay.chart(width, height - 3) : [];
    return [titleLine('Reward', width, cursorText(p)), legend, p.overlay.legend, ...chart];
  }
  const chart = height > 2 ? drawChart(series, { width, height: height - 2, colors }) : [];
  return [titleLine('Reward', width, cursorText(p)), legend, ...chart];
}
