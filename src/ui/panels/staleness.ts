// Staleness panel: off-policy lag against its budget, the importance-weight cap's drop ratio and
// the queue between rollout and training, and the decoupled loss's version stats where the log has
// them (trainer.md §6). Values as logged: nan, inf and -inf are said as such, never as a gap.
import { drawChart } from '../chart.js';
import { fit, formatNumber, formatPercent } from '../format.js';
import { titleLine, type Line, type Seg } from '../lines.js';
import type { SeriesSource } from '../../session/types.js';
import { chartColors } from '../theme.js';
import type { PanelOverlay } from './baseline-overlay.js';
import { VERSION_STATS_PREFIX } from '../../metrics/stat-keys.js';
export { VERSION_STATS_PREFIX };

/** avg/max/min of one `version_stats/sample_staleness_*` triple; a key the log lacks is absent. */
export interface LagStats {
  avg?: number | null;
  max?: number | null;
  min?: number | null;
}

/** `ppo_actor/update/version_stats/*`: how many versions the samples lag θ and the proximal
 *  policy, and the two versions. Absent fields: keys the log does not have. */
export interface VersionStats {
  theta?: LagStats;
  proximal?: LagStats;
  vTheta?: number | null;
  vProximal?: number | null;
}

export interface StalenessProps {
  avg: number[];
  max: number[];
  budget: number | null;
  latestAvg: number | null;
  latestMax: number | null;
  behaveCapRatio: number | null;
  awaitingTrain: number | null;
  inProgress: number | null;
  /** Absent (or empty): the log has no version_stats keys. */
  version?: VersionStats;
  /** Which keys the avg/max series are (default: staleness/gap/offpolicy_*). */
  seriesOf?: 'gap' | 'theta';
  /** A pinned baseline or smoothing: its legend line and chart (of the avg) replace the chart. */
  overlay?: PanelOverlay | null;
}

export const STALENESS_KEYS = {
  gapAvg: 'staleness/gap/offpolicy_avg',
  gapMax: 'staleness/gap/offpolicy_max',
  capRatio: 'ppo_actor/behave_cap_ratio',
  awaitingTrain: 'staleness/update/awaiting_train',
  inProgress: 'staleness/rollout/in_progress',
} as const;

const VERSION = VERSION_STATS_PREFIX;
const lagKey = (of: 'theta' | 'proximal', stat: 'avg' | 'max' | 'min') => `${VERSION}sample_staleness_${of}_${stat}`;

/** The panel's props from the run's series: the version stats the log has, and the off-policy gap
 *  series, or the samples' lag to θ when the log has no gap keys (newer AReaL). */
export function stalenessPropsFrom(s: SeriesSource, budget: number | null, points: number): StalenessProps {
  const keys = new Set(s.keys());
  const has = (k: string) => keys.has(k);
  const lag = (of: 'theta' | 'proximal'): LagStats | undefined => {
    const out: LagStats = {};
    for (const stat of ['avg', 'max', 'min'] as const)
      if (has(lagKey(of, stat))) out[stat] = s.latest(lagKey(of, stat));
    return Object.keys(out).length ? out : undefined;
  };
  const version: VersionStats = {};
  const theta = lag('theta');
  const proximal = lag('proximal');
  if (theta) version.theta = theta;
  if (proximal) version.proximal = proximal;
  if (has(`${VERSION}v_theta`)) version.vTheta = s.latest(`${VERSION}v_theta`);
  if (has(`${VERSION}v_proximal`)) version.vProximal = s.latest(`${VERSION}v_proximal`);
  const gap = has(STALENESS_KEYS.gapAvg) || has(STALENESS_KEYS.gapMax) || !theta;
  const avgKey = gap ? STALENESS_KEYS.gapAvg : lagKey('theta', 'avg');
  const maxKey = gap ? STALENESS_KEYS.gapMax : lagKey('theta', 'max');
  return {
    avg: s.downsample(avgKey, points).values,
    max: s.downsample(maxKey, points).values,
    budget,
    latestAvg: s.latest(avgKey),
    latestMax: s.latest(maxKey),
    behaveCapRatio: s.latest(STALENESS_KEYS.capRatio),
    awaitingTrain: s.latest(STALENESS_KEYS.awaitingTrain),
    inProgress: s.latest(STALENESS_KEYS.inProgress),
    ...(Object.keys(version).length ? { version } : {}),
    ...(gap ? {} : { seriesOf: 'theta' as const }),
  };
}

/** A share as a percentage, or nan/inf/-inf as logged ('—' only when unknown). */
function percentOrValue(v: number | null): string {
  return v !== null && !Number.isFinite(v) ? formatNumber(v) : formatPercent(v);
}

/** "to θ avg 1.2 max 3 min 0": the stats the log has, in that order. */
function lagText(name: string, l: LagStats): string {
  const parts = (['avg', 'max', 'min'] as const).filter((k) => k in l).map((k) => `${k} ${formatNumber(l[k])}`);
  return `${name} ${parts.join(' ')}`;
}

/** The version_stats lines: the samples' lag to θ and to the proximal policy, and the versions. */
function versionLines(v: VersionStats, width: number): Line[] {
  const lags = [
    v.theta ? lagText('lag to θ', v.theta) : '',
    v.proximal ? lagText('to proximal', v.proximal) : '',
  ].filter(Boolean);
  const versions = [
    ...('vTheta' in v ? [`v_theta ${formatNumber(v.vTheta)}`] : []),
    ...('vProximal' in v ? [`v_proximal ${formatNumber(v.vProximal)}`] : []),
  ].join('  ');
  const out: Line[] = [];
  const one = [lags.join('  '), versions].filter(Boolean).join('  ');
  if (one.length <= width) return one ? [[{ t: one }]] : [];
  for (const t of [...lags, versions]) if (t) out.push([{ t: fit(t, width) }]);
  return out;
}

export function stalenessLines(p: StalenessProps, width: number, height: number, colors: boolean): Line[] {
  const over = p.budget !== null && p.latestMax !== null && p.latestMax > p.budget;
  const legend: Seg[] = [
    { t: p.seriesOf === 'theta' ? 'lag to θ avg ' : 'avg ', c: 'accent' },
    { t: formatNumber(p.latestAvg) },
    { t: '  max ', c: 'warn' },
    { t: formatNumber(p.latestMax), c: over ? 'bad' : undefined, bold: over },
    { t: `  budget ${p.budget ?? '—'}`, c: 'dim' },
  ];
  const queue: Line = [
    { t: `cap-dropped ${percentOrValue(p.behaveCapRatio)}` },
    { t: `  awaiting train ${formatNumber(p.awaitingTrain)}  in progress ${formatNumber(p.inProgress)}` },
  ];
  const version = p.version ? versionLines(p.version, width) : [];
  const series = [
    { values: p.avg, color: chartColors.main },
    { values: p.max, color: chartColors.average },
  ];
  if (p.budget !== null && p.avg.length > 0) {
    series.push({ values: new Array(Math.max(p.avg.length, p.max.length)).fill(p.budget), color: chartColors.budget });
  }
  if (p.overlay) {
    const chartH = height - 4 - version.length;
    const chart = chartH >= 1 ? p.overlay.chart(width, chartH) : [];
    return [titleLine('Staleness', width), legend, queue, ...version, p.overlay.legend, ...chart];
  }
  const fixed = 3 + version.length;
  const chart = height - fixed >= 1 ? drawChart(series, { width, height: height - fixed, colors, min: 0 }) : [];
  return [titleLine('Staleness', width), legend, queue, ...version, ...chart];
}
