// Where dashboard panels go for a given body size. Pure: the only place that decides heights, so
// "never taller than the terminal" is a property of one function (and its test). Each panel's
// minimum, weight and priority are its record in the panel registry (panels/registry.ts).
import { PANELS, type PanelId } from './panels/registry.js';

export type { PanelId } from './panels/registry.js';
export const PANEL_ORDER: PanelId[] = PANELS.map((p) => p.id);

export interface LayoutRow {
  height: number;
  cols: { id: PanelId; width: number }[];
}

export interface DashboardLayout {
  rows: LayoutRow[];
  hidden: PanelId[];
}

const MIN_HEIGHT = Object.fromEntries(PANELS.map((p) => [p.id, p.minHeight])) as Record<PanelId, number>;
const WEIGHT = Object.fromEntries(PANELS.map((p) => [p.id, p.weight])) as Record<PanelId, number>;
/** Which panels survive first when space is short. */
const PRIORITY: PanelId[] = [...PANELS].sort((a, b) => a.priority - b.priority).map((p) => p.id);

export const WIDE_MIN_WIDTH = 100;

function splitWidth(width: number): [number, number] {
  const left = Math.floor((width - 1) / 2);
  return [left, width - 1 - left];
}

/** Give each group its minimum, then share the rest by weight; the sum is exactly `total`. */
function distribute(mins: number[], weights: number[], total: number): number[] {
  const heights = [...mins];
  let spare = total - mins.reduce((a, b) => a + b, 0);
  const wsum = weights.reduce((a, b) => a + b, 0);
  const extra = weights.map((w) => Math.floor((spare * w) / wsum));
  extra.forEach((e, i) => (heights[i] += e));
  spare -= extra.reduce((a, b) => a + b, 0);
  for (let i = 0; spare > 0; i = (i + 1) % heights.length, spare--) heights[i]++;
  return heights;
}

export function dashboardLayout(width: number, height: number, zoom: PanelId | null): DashboardLayout {
  if (height <= 0) return { rows: [], hidden: [...PANEL_ORDER] };
  if (zoom) return { rows: [{ height, cols: [{ id: zoom, width }] }], hidden: PANEL_ORDER.filter((p) => p !== zoom) };

  // Groups of panels that share a row: pairs in layout order when wide, single panels otherwise.
  const groups: PanelId[][] =
    width >= WIDE_MIN_WIDTH
      ? PANEL_ORDER.flatMap((p, i) => (i % 2 === 0 ? [PANEL_ORDER.slice(i, i + 2)] : []))
      : PANEL_ORDER.map((p) => [p]);
  const groupMin = (g: PanelId[]) => Math.max(...g.map((p) => MIN_HEIGHT[p]));
  const groupRank = (g: PanelId[]) => Math.min(...g.map((p) => PRIORITY.indexOf(p)));

  // Keep groups by priority while their minimums fit.
  const kept = new Set<PanelId[]>();
  let used = 0;
  for (const g of [...groups].sort((a, b) => groupRank(a) - groupRank(b))) {
    if (used + groupMin(g) <= height) {
      kept.add(g);
      used += groupMin(g);
    }
  }
  const shown = groups.filter((g) => kept.has(g));
  if (shown.length === 0) return { rows: [], hidden: [...PANEL_ORDER] };
  const heights = distribute(
    shown.map(groupMin),
    shown.map((g) => Math.max(...g.map((p) => WEIGHT[p]))),
    height,
  );
  const rows: LayoutRow[] = shown.map((g, i) => {
    if (g.length === 1) return { height: heights[i], cols: [{ id: g[0], width }] };
    const [l, r] = splitWidth(width);
    return {
      height: heights[i],
      cols: [
        { id: g[0], width: l },
        { id: g[1], width: r },
      ],
    };
  });
  const hidden = PANEL_ORDER.filter((p) => !shown.some((g) => g.includes(p)));
  return { rows, hidden };
}
