// The dashboard of one run as lines: header, panels laid out by dashboardLayout, a footer.
// Pure; the App memoises it on the session version, the size and the view options.
import { hintLine, type Binding } from '../bindings.js';
import { dashboardLayout, type PanelId } from '../layout.js';
import { frame, hstack, type Line } from '../lines.js';
import { headerLines } from '../panels/header.js';
import { panel } from '../panels/registry.js';
import { isHangAlert } from '../../health/run-alerts.js';
import type { RunView } from '../../session/types.js';
import type { TimeAxis } from '../../metrics/run-steps.js';
import { keyOf } from '../key-names.js';

export interface DashboardUi {
  zoom: PanelId | null;
  showDifficulty: boolean;
  /** The Reward panel's cursor (a step), or null. */
  rewardStep?: number | null;
  logAll: boolean;
  logSearch: string;
  logScroll: number;
  logView: 'trainer' | 'events';
  trainerProblemsOnly: boolean;
  logWrap?: boolean;
  /** Index into SMOOTHING_WEIGHTS (`s` cycles it; 0: off). */
  smoothing?: number;
  /** A pinned baseline's time axis (`t`; default: global steps). */
  timeAxis?: TimeAxis;
}

/** The header (2 lines): changes with the clock, so it is drawn apart from the panels. */
export function dashboardHeader(run: RunView | null, now: number, width?: number): Line[] {
  return run
    ? headerLines({
        runId: run.summary.id,
        target: run.summary.target,
        connection: run.connection,
        connectionAt: run.connectionAt,
        runState: run.summary.state,
        figures: run.figures,
        now,
        width,
        pollingStopped: run.pollingStopped,
        followProblem: run.followProblem !== undefined,
        ...(run.silentSince !== undefined ? { silentSince: run.silentSince } : {}),
        ...(run.history ? { history: run.history } : {}),
        rayBringUp: run.rayBringUp,
        hung: run.alerts.some(isHangAlert),
        ...(run.wandb?.url ? { wandbUrl: run.wandb.url } : {}),
      })
    : [[{ t: 'No run selected: open one from Runs (1) or start one from Config (3).', c: 'dim' }], ''];
}

/** Which panels did not fit, and what to do about it, said whole even at 60 columns. */
function hiddenNote(hidden: PanelId[], width: number): string {
  const zoom = keyOf('zoom');
  const long = `hidden: ${hidden.join(', ')} (${zoom}: zoom one panel, or enlarge)`;
  const short = `hidden: ${hidden.join(', ')} (${zoom}: zoom)`;
  const h = keyOf('alert-history');
  // The alert history key too, when it fits whole.
  const tries = [
    `${long} · ${h} alert history`,
    `${long} · ${h} history`,
    `${short} · ${h} alert history`,
    `${short} · ${h} history`,
    long,
    short,
  ];
  return tries.find((t) => t.length <= width) ?? short;
}

/** The footer's key hints, from the binding table: as many as fit whole, in its order. */
function footerHints(run: RunView, ui: DashboardUi, width: number): string {
  const keep = (b: Binding) => b.command !== 'log-view' || run.trainerLines !== undefined;
  // w says what it will do: wrap the lines, or cut them again.
  return hintLine('dashboard', width, keep, (b) =>
    b.command === 'log-wrap' && ui.logWrap ? 'cut long lines' : undefined,
  );
}

/** Panels and footer for `height` rows (the header's 2 rows not included). */
export function dashboardBody(
  run: RunView | null,
  width: number,
  height: number,
  colors: boolean,
  ui: DashboardUi,
): Line[] {
  if (!run || height <= 0) return frame([], width, height);
  const layout = dashboardLayout(width, Math.max(0, height - 1), ui.zoom);
  const out: Line[] = [];
  for (const row of layout.rows) {
    const parts = row.cols.map((c) => ({
      lines: frame(panel(c.id).lines(run, ui, c.width, row.height, colors), c.width, row.height),
      width: c.width,
    }));
    out.push(...hstack(parts, row.height));
  }
  out.push(
    ui.zoom
      ? [{ t: `zoomed on ${ui.zoom} (${keyOf('zoom')}: next panel)`, c: 'dim' }]
      : layout.hidden.length
        ? [{ t: hiddenNote(layout.hidden, width), c: 'dim' }]
        : [{ t: footerHints(run, ui, width), c: 'dim' }],
  );
  return frame(out, width, height);
}
