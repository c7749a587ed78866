// Throughput panel: step time, where it goes (timeperf/* shares), episodes/s, train tokens/s, rollout wait.
import { drawChart } from '../chart.js';
import { bar, cell, formatDuration, formatNumber, formatPercent, formatShortDuration } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import { chartColors } from '../theme.js';

export const TIMEPERF_KEYS = [
  'timeperf/rollout',
  'timeperf/recompute_logp',
  'timeperf/train_step',
  'timeperf/update_weights',
  'timeperf/eval',
  'timeperf/save',
] as const;

export interface ThroughputProps {
  stepTimes: number[];
  stepTimeS: number | null;
  episodesPerS: number | null;
  trainTokensPerS: number | null;
  rolloutWaitS: number | null;
  /** Latest seconds per timeperf key (missing keys omitted). */
  phases: { key: string; seconds: number }[];
}

export function throughputLines(p: ThroughputProps, width: number, height: number, colors: boolean): Line[] {
  const total = p.phases.reduce((s, x) => s + (Number.isFinite(x.seconds) ? x.seconds : 0), 0);
  const figures: Line = [
    { t: 'step ', c: 'accent' },
    { t: formatDuration(p.stepTimeS) },
    { t: `  ep/s ${formatNumber(p.episodesPerS, 3)}  tok/s ${formatNumber(p.trainTokensPerS, 3)}  wait ${formatDuration(p.rolloutWaitS)}` },
  ];
  const nameW = 15;
  const barW = Math.max(4, Math.min(30, width - nameW - 14));
  const shares: Line[] = p.phases.map((x) => {
    const share = total > 0 ? x.seconds / total : 0;
    return [
      { t: cell(x.key.replace('timeperf/', ''), nameW) },
      { t: bar(share, barW), c: 'accent' },
      { t: ` ${cell(formatPercent(share), 4, 'right')} ${formatShortDuration(x.seconds)}` },
    ];
  });
  const fixed = 2 + shares.length;
  const chartH = height - fixed;
  const chart = chartH >= 3 ? drawChart([{ values: p.stepTimes, color: chartColors.main }], { width, height: chartH, colors, min: 0 }) : [];
  return [titleLine('Throughput', width), figures, ...shares, ...chart];
}
