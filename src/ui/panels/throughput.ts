// Throughput panel: step time, where it goes (the shares of every timeperf/* phase the log has:
// rollout, train_step, rollout_pause, teacher_logp, <role>_onload, …), episodes/s, train tokens/s,
// rollout wait. A phase logged as nan, inf or -inf is said so, never drawn as 0.
import { drawChart } from '../chart.js';
import { bar, cell, formatDuration, formatNumber, formatPercent, formatShortDuration } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { SeriesSource } from '../../session/types.js';
import { chartColors } from '../theme.js';
import type { PanelOverlay } from './baseline-overlay.js';
import { TIMEPERF_PREFIX } from '../../metrics/stat-keys.js';
import { keyOf } from '../key-names.js';
export { TIMEPERF_PREFIX };

export interface ThroughputProps {
  stepTimes: number[];
  stepTimeS: number | null;
  episodesPerS: number | null;
  trainTokensPerS: number | null;
  rolloutWaitS: number | null;
  /** Latest seconds per timeperf/* key, as logged (NaN, ±Infinity included; missing keys omitted). */
  phases: { key: string; seconds: number }[];
  /** A pinned baseline or smoothing: its legend line and chart (of the step time) replace the chart. */
  overlay?: PanelOverlay | null;
}

/** The timeperf/* phases: the latest step's own when the session knows them (`latestStep`, from
 *  its step record), else every timeperf/* key the series hold, at its latest value. */
export function throughputPhasesFrom(
  s: SeriesSource,
  latestStep?: readonly { key: string; seconds: number }[],
): { key: string; seconds: number }[] {
  if (latestStep) return [...latestStep];
  const out: { key: string; seconds: number }[] = [];
  for (const key of s.keys()) {
    if (!key.startsWith(TIMEPERF_PREFIX)) continue;
    const v = s.latest(key);
    if (v !== null) out.push({ key, seconds: v });
  }
  return out;
}

/** A duration, or nan/inf/-inf as logged ('—' only when unknown). */
function durationOrValue(v: number | null): string {
  return v !== null && !Number.isFinite(v) ? formatNumber(v) : formatDuration(v);
}

/** Seconds of a phase in a tight column: nan/inf/-inf as logged, a negative value as a number. */
function phaseSeconds(v: number): string {
  if (!Number.isFinite(v)) return formatNumber(v);
  return v < 0 ? `${formatNumber(v, 3)}s` : formatShortDuration(v);
}

export function throughputLines(p: ThroughputProps, width: number, height: number, colors: boolean): Line[] {
  const total = p.phases.reduce((s, x) => s + (Number.isFinite(x.seconds) && x.seconds > 0 ? x.seconds : 0), 0);
  const figures: Line = [
    { t: 'step ', c: 'accent' },
    { t: formatDuration(p.stepTimeS) },
    {
      t: `  ep/s ${formatNumber(p.episodesPerS, 3)}  tok/s ${formatNumber(p.trainTokensPerS, 3)}  wait ${durationOrValue(p.rolloutWaitS)}`,
    },
  ];
  const nameW = 15;
  const barW = Math.max(4, Math.min(30, width - nameW - 14));
  const shareLine = (x: { key: string; seconds: number }): Line => {
    const name = { t: cell(x.key.slice(x.key.startsWith(TIMEPERF_PREFIX) ? TIMEPERF_PREFIX.length : 0), nameW) };
    // A non-finite phase has no share: an empty bar, no percentage, its value said in its place.
    if (!Number.isFinite(x.seconds))
      return [name, { t: bar(0, barW), c: 'dim' }, { t: `      ${phaseSeconds(x.seconds)}`, c: 'warn' }];
    const share = total > 0 && x.seconds > 0 ? x.seconds / total : 0;
    return [
      name,
      { t: bar(share, barW), c: 'accent' },
      { t: ` ${cell(formatPercent(share), 4, 'right')} ${phaseSeconds(x.seconds)}` },
    ];
  };
  // The phases come first; the chart takes what is left (at least 3 rows, or none). Phases that do
  // not fit are counted, never dropped unsaid.
  // A baseline's Δ line keeps its row whatever the phases take.
  const room = Math.max(0, height - 2 - (p.overlay ? 1 : 0));
  const shown = p.phases.length <= room ? p.phases : p.phases.slice(0, Math.max(0, room - 1));
  const shares = shown.map(shareLine);
  if (shown.length < p.phases.length)
    shares.push([{ t: `… ${p.phases.length - shown.length} more phases (${keyOf('zoom')}: zoom)`, c: 'dim' }]);
  const chartH = height - 2 - shares.length - (p.overlay ? 1 : 0);
  if (p.overlay) {
    const chart = chartH >= 3 ? p.overlay.chart(width, chartH) : [];
    return [titleLine('Throughput', width), figures, ...shares, p.overlay.legend, ...chart];
  }
  const chart =
    chartH >= 3
      ? drawChart([{ values: p.stepTimes, color: chartColors.main }], { width, height: chartH, colors, min: 0 })
      : [];
  return [titleLine('Throughput', width), figures, ...shares, ...chart];
}
