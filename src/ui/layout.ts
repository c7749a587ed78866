// Where dashboard panels go for a given body size. Pure: the only place that decides heights, so
// "never taller than the terminal" is a property of one function (and its test).

export type PanelId = 'reward' | 'staleness' | 'throughput' | 'gpu' | 'alerts' | 'log';
export const PANEL_ORDER: PanelId[] = ['reward', 'staleness', 'throughput', 'gpu', 'alerts', 'log'];

export interface LayoutRow {
  height: number;
  cols: { id: PanelId; width: number }[];
}

export interface DashboardLayout {
  rows: LayoutRow[];
  hidden: PanelId[];
}

const MIN_HEIGHT: Record<PanelId, number> = { reward: 7, staleness: 7, throughput: 8, gpu: 4, alerts: 4, log: 5 };
const WEIGHT: Record<PanelId, number> = { reward: 3, staleness: 2, throughput: 2, gpu: 2, alerts: 1, log: 2 };
/** Which panels survive first when space is short. */
const PRIORITY: PanelId[] = ['reward', 'alerts', 'log', 'staleness', 'throughput', 'gpu'];

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

  // Groups of panels that share a row: pairs when wide, single panels otherwise.
  const groups: PanelId[][] =
    width >= WIDE_MIN_WIDTH
      ? [
          ['reward', 'staleness'],
          ['throughput', 'gpu'],
          ['alerts', 'log'],
        ]
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
