// asciichart, made safe for a dashboard: asciichart itself breaks on NaN (Math.min poisons the
// range), draws a flat series as one row, and makes a line as long as the data. This wrapper
// buckets long series to the width, bridges gaps, gives flat series a visible band and returns
// exactly `height` lines, none wider than `width`.
import asciichart from 'asciichart';
import { bucketMean, toNum } from '../metrics/bucket-mean.js';

export { bucketMean };

export interface ChartSeries {
  values: ArrayLike<number | null>;
  /** An asciichart colour escape; ignored when colours are off. */
  color?: string;
}

export interface ChartOptions {
  width: number;
  height: number;
  colors?: boolean;
  /** Fixed bounds (e.g. a staleness budget that must stay visible). */
  min?: number;
  max?: number;
}

/** Trailing moving average over `window` finite values (NaN where none yet). */
export function movingAverage(values: ArrayLike<number | null>, window: number): number[] {
  const out = new Array<number>(values.length);
  const ring: number[] = [];
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const v = toNum(values[i]);
    if (Number.isFinite(v)) {
      ring.push(v);
      sum += v;
      if (ring.length > window) sum -= ring.shift()!;
    }
    out[i] = ring.length ? sum / ring.length : NaN;
  }
  return out;
}

/** Leading gaps take the first finite value, later gaps carry the last one forward. */
function bridge(values: number[]): number[] | null {
  const first = values.find((v) => Number.isFinite(v));
  if (first === undefined) return null;
  let last = first;
  return values.map((v) => (Number.isFinite(v) ? (last = v) : last));
}

export function labelFormatter(min: number, max: number): (x: number) => string {
  const span = Math.abs(max - min);
  const mag = Math.max(Math.abs(min), Math.abs(max));
  if (mag >= 1e5 || (mag > 0 && mag < 1e-3)) return (x) => x.toExponential(1);
  const decimals = span >= 100 ? 0 : span >= 10 ? 1 : span >= 1 ? 2 : span >= 0.1 ? 3 : 4;
  return (x) => x.toFixed(decimals);
}

/** asciichart colours every character on its own (`C x RESET C y RESET`); a terminal UI pays per
 *  escape, so runs of one colour become one `C xy RESET`. */
export function mergeColorRuns(line: string): string {
  if (!line.includes('\x1b')) return line;
  let out = '';
  let active: string | null = null;
  const re = /\x1b\[([0-9;]*)m/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let pendingReset = false;
  while ((m = re.exec(line))) {
    const text = line.slice(last, m.index);
    if (text) {
      if (pendingReset) {
        out += '\x1b[0m';
        active = null;
        pendingReset = false;
      }
      out += text;
    }
    last = re.lastIndex;
    const code = m[1];
    if (code === '0' || code === '') {
      if (active !== null) pendingReset = true;
    } else if (pendingReset && code === active) {
      pendingReset = false; // same colour continues: drop "reset + colour"
    } else {
      if (pendingReset) out += '\x1b[0m';
      pendingReset = false;
      out += m[0];
      active = code;
    }
  }
  const tail = line.slice(last);
  if (pendingReset && tail) {
    out += '\x1b[0m';
    active = null;
    pendingReset = false;
  }
  out += tail;
  if (pendingReset || active !== null) out += '\x1b[0m';
  return out;
}

/**
 * Draw up to a few series in a `width`×`height` box. Returns exactly `height` lines (padded);
 * `["(no data)"]`-style placeholder when nothing is finite.
 */
export function drawChart(series: ChartSeries[], opts: ChartOptions): string[] {
  const height = Math.max(1, Math.floor(opts.height));
  const width = Math.max(1, Math.floor(opts.width));
  const blank = (msg: string) => [msg.slice(0, width), ...Array.from({ length: height - 1 }, () => '')];
  if (height < 2 || width < 12) return blank(height < 2 ? '' : '(too small)');

  // Bounds first (label width depends on them), over the raw finite values.
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    for (let i = 0; i < s.values.length; i++) {
      const v = toNum(s.values[i]);
      if (Number.isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  if (!Number.isFinite(lo)) return blank('(no data yet)');
  if (opts.min !== undefined && Number.isFinite(opts.min)) lo = Math.min(lo, opts.min);
  if (opts.max !== undefined && Number.isFinite(opts.max)) hi = Math.max(hi, opts.max);
  if (hi - lo < 1e-12) {
    // A flat series: give it a band so it draws as a line in the middle, not a single row.
    const pad = Math.abs(hi) > 1e-9 ? Math.abs(hi) * 0.05 : 1;
    lo -= pad;
    hi += pad;
  }
  const format = labelFormatter(lo, hi);
  const labelWidth = Math.max(format(lo).length, format(hi).length, format((lo + hi) / 2).length);
  // asciichart puts the whole label into ONE cell at index offset-len: with offset 2 a line is
  // exactly label + axis + points, which is what the width budget below assumes.
  const offset = 2;
  const points = width - Math.max(2, labelWidth) - 2;
  if (points < 2) return blank('(too narrow)');

  const prepared: number[][] = [];
  const colors: (string | undefined)[] = [];
  for (const s of series) {
    const b = bridge(bucketMean(s.values, points));
    if (!b) continue;
    prepared.push(b);
    colors.push(opts.colors ? s.color : undefined);
  }
  const plot = asciichart.plot(prepared, {
    height: height - 1,
    min: lo,
    max: hi,
    offset,
    colors,
    format: (x: number) => format(x).padStart(Math.max(2, labelWidth)),
  });
  const lines = plot.split('\n').slice(0, height).map(mergeColorRuns);
  while (lines.length < height) lines.push('');
  return lines;
}
