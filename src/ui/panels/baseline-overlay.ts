// What the Reward, Staleness and Throughput panels draw when a baseline is pinned or smoothing is
// on (`s`): a legend line (Δ at the latest common step, both runs named by their line) and the
// chart of both runs by global step (overlay-chart.ts). Pure.
import { fit, fitMiddle } from '../format.js';
import type { Line } from '../lines.js';
import { overlayChart, type StepPoints } from '../overlay-chart.js';
import type { RunView } from '../../session/types.js';
import type { TimeAxis } from '../../metrics/run-steps.js';
import { keyOf } from '../key-names.js';

/** How the legend and `?` name a time axis. */
export function axisName(axis: TimeAxis): string {
  return axis === 'hours' ? 'training hours' : axis === 'samples' ? 'samples consumed' : 'global steps';
}

/** A panel's chart and the line above it, when an overlay replaces its own chart. */
export interface PanelOverlay {
  legend: Line;
  chart(width: number, height: number): string[];
}

export interface OverlayRequest {
  /** The stats key both runs are drawn by, and how the Δ names it (`reward`). */
  key: string;
  name: string;
  /** The open run's points when no baseline is pinned (smoothing alone): its chart's points. */
  own: () => StepPoints;
  smoothing: number;
  /** What a pinned baseline is drawn by (default: global steps); the Δ stays at a common step. */
  axis?: TimeAxis;
  reference?: number | null;
  min?: number;
}

const sgr = (code: string, text: string, colors: boolean) => (colors ? `\x1b[${code}m${text}\x1b[0m` : text);

/** The signed difference as a person reads it: +0.031, −2.50, +412; tiny ones in exponent form. */
export function signedDelta(d: number): string {
  const m = Math.abs(d);
  const text =
    m === 0 ? '0' : m < 1e-3 ? m.toExponential(1) : m < 10 ? m.toFixed(3) : m < 1000 ? m.toFixed(1) : m.toFixed(0);
  return `${d >= 0 ? '+' : '−'}${text}`;
}

/** Charts drawn per overlay pair (the session keeps the pair while neither run has a new step):
 *  a redraw for another reason (a log line, a GPU poll) costs what it cost without a baseline. */
const drawn = new WeakMap<object, Map<string, string[]>>();

function cachedChart(pair: object | undefined, key: string, draw: () => string[]): string[] {
  if (!pair) return draw();
  let m = drawn.get(pair);
  if (!m) drawn.set(pair, (m = new Map()));
  let lines = m.get(key);
  if (!lines) m.set(key, (lines = draw()));
  return lines;
}

/** Null when there is nothing to overlay (no baseline and no smoothing): the panel draws as before. */
export function panelOverlay(run: RunView, r: OverlayRequest, width: number, colors: boolean): PanelOverlay | null {
  const base = run.baseline;
  if (!base && r.smoothing <= 0) return null;
  const pair = base?.series[r.key];
  const axis = pair && r.axis && r.axis !== 'steps' ? r.axis : 'steps';
  const drawnBy = axis === 'steps' ? pair : pair!.axes[axis];
  const a = drawnBy ? drawnBy.a : r.own();
  const b: StepPoints = drawnBy ? drawnBy.b : { steps: [], values: [] };
  // The axis is named when it is not the steps: `x: training hours`.
  const ema = (r.smoothing > 0 ? `  ema ${r.smoothing}` : '') + (axis === 'steps' ? '' : `  x: ${axisName(axis)}`);
  let legend: string;
  if (base) {
    const c = pair?.latest ?? null;
    const delta = c
      ? `Δ ${r.name} ${signedDelta(c.delta)} at step ${c.step}`
      : base.note
        ? `baseline: ${base.note}`
        : `Δ ${r.name}: no common step yet`;
    // Both runs named by their line's colour (with NO_COLOR, by its glyph); names cut to fit (a
    // local log file's path in its middle: its file name tells it apart).
    const room = Math.max(8, Math.floor((width - delta.length - ema.length - 10) / 2));
    const aMark = sgr('36', colors ? '──' : '──', colors);
    const bMark = sgr('35', colors ? '──' : '••', colors);
    legend = `${delta}  ${aMark} ${fit(run.summary.id, room)}  ${bMark} ${base.label.startsWith('/') ? fitMiddle(base.label, room) : fit(base.label, room)}${ema}`;
  } else legend = `ema ${r.smoothing} (${keyOf('smoothing')}: next)  raw line ${colors ? 'faint' : '·'}`;
  return {
    legend,
    chart: (w, h) =>
      cachedChart(pair, `${w}x${h} ${axis} ${r.smoothing} ${colors} ${r.reference} ${r.min}`, () =>
        overlayChart(
          {
            a,
            b,
            smoothing: r.smoothing,
            ...(r.reference !== undefined ? { reference: r.reference } : {}),
            ...(r.min !== undefined ? { min: r.min } : {}),
          },
          w,
          h,
          colors,
        ),
      ),
  };
}

/** Points 1..n for a series without steps (the chart's own buckets). */
export function indexPoints(values: readonly (number | null)[]): StepPoints {
  return { steps: values.map((_, i) => i + 1), values };
}
