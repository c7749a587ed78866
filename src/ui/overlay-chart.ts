// Two runs in one chart, aligned by global step (the baseline overlay): each run's points go to
// the column of their step (so a run of 8 steps and one of 16 share one x axis, and the shorter
// one ends where it ends), the open run in the chart colour, the baseline in a second colour; with
// NO_COLOR the baseline is drawn with a second glyph (•). With smoothing on, TensorBoard's EMA is
// drawn over the raw lines, which stay visible, fainter (dim; · with NO_COLOR). Pure.
import asciichart from 'asciichart';
import { tensorboardEma } from '../metrics/ema.js';
import { labelFormatter } from './chart.js';

export interface StepPoints {
  steps: readonly number[];
  values: readonly (number | null)[];
}

export interface OverlayInput {
  /** The open run's points and the baseline's (either may be empty). */
  a: StepPoints;
  b: StepPoints;
  /** TensorBoard's smoothing weight (0: off). */
  smoothing: number;
  /** A flat reference drawn under the runs (a staleness budget), when known. */
  reference?: number | null;
  min?: number;
}

type Role = 'a' | 'b' | 'aRaw' | 'bRaw' | 'ref';
/** SGR codes per role: the open run cyan, the baseline magenta, raw lines dim, the reference red. */
const SGR: Record<Role, string> = { a: '36', b: '35', aRaw: '2;36', bRaw: '2;35', ref: '31' };
/** With NO_COLOR the glyph tells the lines apart (null: asciichart's own box drawing). */
const GLYPH: Record<Role, string | null> = { a: null, b: '•', aRaw: '·', bRaw: '·', ref: '-' };
/** Who wins a cell both draw: the smoothed (or raw, when off) lines over the raw ones. */
const PRIORITY: Role[] = ['a', 'b', 'aRaw', 'bRaw', 'ref'];

/** Each point's column by its step over [lo, hi]; per column the mean of its finite values;
 *  interior gaps interpolated; the columns after the run's last step left out (it ends there). */
export function stepColumns(p: StepPoints, lo: number, hi: number, points: number): number[] {
  const sum = new Array<number>(points).fill(0);
  const count = new Array<number>(points).fill(0);
  let last = -1;
  for (let i = 0; i < p.steps.length; i++) {
    const v = p.values[i];
    const col = hi > lo ? Math.round(((p.steps[i] - lo) / (hi - lo)) * (points - 1)) : 0;
    last = Math.max(last, col);
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    sum[col] += v;
    count[col]++;
  }
  const out = sum.slice(0, last + 1).map((s, k) => (count[k] ? s / count[k] : NaN));
  // Interior gaps (a bucketed series against a dense one, fewer steps than columns): a straight line.
  let prev = -1;
  for (let k = 0; k < out.length; k++) {
    if (Number.isNaN(out[k])) continue;
    for (let g = prev + 1; prev >= 0 && g < k; g++)
      out[g] = out[prev] + ((out[k] - out[prev]) * (g - prev)) / (k - prev);
    prev = k;
  }
  return out;
}

function smooth(p: StepPoints, w: number): StepPoints {
  return { steps: p.steps, values: tensorboardEma(p.values, w) };
}

/** Exactly `height` lines of at most `width` cells (a placeholder line when there is nothing). */
export function overlayChart(o: OverlayInput, width: number, height: number, colors: boolean): string[] {
  const blank = (msg: string) => [msg.slice(0, width), ...new Array<string>(Math.max(0, height - 1)).fill('')];
  if (height < 2 || width < 12) return blank(height < 2 ? '' : '(too small)');
  // Each run's steps are ascending (RunSteps, Series): the range is their ends.
  const ends = [o.a, o.b].filter((p) => p.steps.length).flatMap((p) => [p.steps[0], p.steps[p.steps.length - 1]]);
  if (ends.length === 0) return blank('(no data yet)');
  const lo = Math.min(...ends);
  const hi = Math.max(...ends);
  const lines: { role: Role; p: StepPoints }[] = [];
  if (o.smoothing > 0) {
    lines.push({ role: 'a', p: smooth(o.a, o.smoothing) }, { role: 'b', p: smooth(o.b, o.smoothing) });
    lines.push({ role: 'aRaw', p: o.a }, { role: 'bRaw', p: o.b });
  } else lines.push({ role: 'a', p: o.a }, { role: 'b', p: o.b });
  // Bounds over every finite value (raw included: the chart keeps spikes in view).
  const ref = o.reference ?? null;
  const finite = lines.flatMap(({ p }) =>
    p.values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)),
  );
  if (finite.length === 0) return blank('(no data yet)');
  if (o.min !== undefined) finite.push(o.min);
  if (ref !== null && Number.isFinite(ref)) finite.push(ref);
  let min = finite.reduce((x, y) => (y < x ? y : x));
  let max = finite.reduce((x, y) => (y > x ? y : x));
  if (max - min < 1e-12) {
    const pad = Math.abs(max) > 1e-9 ? Math.abs(max) * 0.05 : 1;
    min -= pad;
    max += pad;
  }
  const format = labelFormatter(min, max);
  const labelW = Math.max(2, format(min).length, format(max).length, format((min + max) / 2).length);
  const points = width - labelW - 2;
  if (points < 2) return blank('(too narrow)');
  const cols = lines.map(({ role, p }) => ({ role, values: stepColumns(p, lo, hi, points) }));
  if (ref !== null && Number.isFinite(ref)) cols.push({ role: 'ref', values: new Array<number>(points).fill(ref) });
  const opts = { height: height - 1, min, max, offset: 2, format: (x: number) => format(x).padStart(labelW) };
  const plots = cols
    .filter((c) => c.values.some((v) => Number.isFinite(v)))
    .map((c) => ({ role: c.role, rows: asciichart.plot([bridge(c.values)], opts).split('\n') }));
  return compose(plots, labelW + 1, height, colors);
}

/** Leading gaps take the first finite value (a run that starts later); the rest is interpolated. */
function bridge(values: number[]): number[] {
  const first = values.find((v) => Number.isFinite(v)) ?? 0;
  let last = first;
  return values.map((v) => (Number.isFinite(v) ? (last = v) : last));
}

/** The plots cell by cell: the label column from the first, each cell from the first role in
 *  PRIORITY that draws there, in its colour (or glyph). */
function compose(plots: { role: Role; rows: string[] }[], prefix: number, height: number, colors: boolean): string[] {
  const ordered = [...plots].sort((x, y) => PRIORITY.indexOf(x.role) - PRIORITY.indexOf(y.role));
  const out: string[] = [];
  for (let r = 0; r < height; r++) {
    const rows = ordered.map((p) => [...(p.rows[r] ?? '')]);
    const base = rows[0] ?? [];
    let line = base.slice(0, prefix - 1).join('');
    // The axis marks where a line starts (┼) whoever drew it.
    line += rows.some((x) => x[prefix - 1] === '┼') ? '┼' : (base[prefix - 1] ?? '');
    const n = Math.max(...rows.map((x) => x.length));
    let active: string | null = null;
    for (let c = prefix; c < n; c++) {
      const k = rows.findIndex((x) => x[c] !== undefined && x[c] !== ' ');
      const role = k < 0 ? null : ordered[k].role;
      const ch = k < 0 ? ' ' : colors ? rows[k][c] : (GLYPH[role!] ?? rows[k][c]);
      const code = colors && role ? SGR[role] : null;
      if (code !== active) {
        if (active !== null) line += '\x1b[0m';
        if (code !== null) line += `\x1b[${code}m`;
        active = code;
      }
      line += ch;
    }
    if (active !== null) line += '\x1b[0m';
    out.push(line);
  }
  return out;
}
