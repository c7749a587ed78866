// Staleness panel: off-policy lag against its budget, the importance-weight cap's drop ratio and
// the queue between rollout and training.
import { drawChart } from '../chart.js';
import { formatNumber, formatPercent } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import { chartColors } from '../theme.js';

export interface StalenessProps {
  avg: number[];
  max: number[];
  budget: number | null;
  latestAvg: number | null;
  latestMax: number | null;
  behaveCapRatio: number | null;
  awaitingTrain: number | null;
  inProgress: number | null;
}

export function stalenessLines(p: StalenessProps, width: number, height: number, colors: boolean): Line[] {
  const over = p.budget !== null && p.latestMax !== null && p.latestMax > p.budget;
  const legend: Line = [
    { t: 'avg ', c: 'accent' },
    { t: formatNumber(p.latestAvg) },
    { t: '  max ', c: 'warn' },
    { t: formatNumber(p.latestMax), c: over ? 'bad' : undefined, bold: over },
    { t: `  budget ${p.budget ?? '—'}`, c: 'dim' },
  ];
  const queue: Line = [
    { t: `cap-dropped ${formatPercent(p.behaveCapRatio)}` },
    { t: `  awaiting train ${formatNumber(p.awaitingTrain)}  in progress ${formatNumber(p.inProgress)}` },
  ];
  const series = [
    { values: p.avg, color: chartColors.main },
    { values: p.max, color: chartColors.average },
  ];
  if (p.budget !== null && p.avg.length > 0) {
    series.push({ values: new Array(Math.max(p.avg.length, p.max.length)).fill(p.budget), color: chartColors.budget });
  }
  const chart = height > 3 ? drawChart(series, { width, height: height - 3, colors, min: 0 }) : [];
  return [titleLine('Staleness', width), legend, queue, ...chart];
}
