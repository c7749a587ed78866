// The dashboard of one run as lines: header, panels laid out by dashboardLayout, a footer.
// Pure; the App memoises it on the session version, the size and the view options.
import { hintLine, type Binding } from '../bindings.js';
import { bucketMean } from '../chart.js';
import { dashboardLayout, type PanelId } from '../layout.js';
import { frame, hstack, type Line } from '../lines.js';
import { alertsLines } from '../panels/alerts.js';
import { gpuLines } from '../panels/gpu.js';
import { headerLines } from '../panels/header.js';
import { logPaneLines } from '../panels/log.js';
import { rewardLines } from '../panels/reward.js';
import { stalenessLines, stalenessPropsFrom } from '../panels/staleness.js';
import { throughputLines, throughputPhasesFrom } from '../panels/throughput.js';
import { isHangAlert } from '../../health/run-alerts.js';
import { STEP_TIME_SERIES, type RunView } from '../../session/types.js';
import { indexPoints, panelOverlay } from '../panels/baseline-overlay.js';
import { SMOOTHING_WEIGHTS } from '../../metrics/ema.js';
import type { TimeAxis } from '../../metrics/run-steps.js';

export interface DashboardUi {
  zoom: PanelId | null;
  showDifficulty: boolean;
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

function panelLines(
  id: PanelId,
  run: RunView,
  ui: DashboardUi,
  width: number,
  height: number,
  colors: boolean,
): Line[] {
  const s = run.series;
  const points = Math.max(2, width - 8);
  const smoothing = SMOOTHING_WEIGHTS[ui.smoothing ?? 0] ?? 0;
  const axis = ui.timeAxis ?? 'steps';
  switch (id) {
    case 'reward': {
      const reward = s.downsample('rollout/reward', points);
      const overlay = panelOverlay(
        run,
        { key: 'rollout/reward', name: 'reward', own: () => indexPoints(reward), smoothing, axis },
        width,
        colors,
      );
      const hasEval = s.latest('test_rollout/trajectory/reward') !== null;
      return rewardLines(
        {
          reward,
          stepsPerPoint: reward.length ? s.stepCount / reward.length : 1,
          latest: s.latest('rollout/reward'),
          difficulty: ui.showDifficulty
            ? {
                easy: s.downsample('rollout/easy/reward', points),
                medium: s.downsample('rollout/medium/reward', points),
                hard: s.downsample('rollout/hard/reward', points),
              }
            : null,
          evalReward: hasEval ? s.downsample('test_rollout/trajectory/reward', points) : null,
          latestEval: s.latest('test_rollout/trajectory/reward'),
          overlay,
        },
        width,
        height,
        colors,
      );
    }
    case 'staleness': {
      const props = stalenessPropsFrom(s, run.offpolicyBudget, points);
      // The overlay draws the off-policy gap's average of both runs (the budget as a reference).
      const overlay =
        props.seriesOf === 'theta'
          ? null
          : panelOverlay(
              run,
              {
                key: 'staleness/gap/offpolicy_avg',
                name: 'staleness',
                own: () => indexPoints(props.avg),
                smoothing,
                axis,
                reference: run.offpolicyBudget,
                min: 0,
              },
              width,
              colors,
            );
      return stalenessLines({ ...props, overlay }, width, height, colors);
    }
    case 'throughput': {
      const f = run.figures;
      const phases = throughputPhasesFrom(s, f.phases);
      const stepTimes = f.stepTimes ? bucketMean(f.stepTimes, points) : s.downsample(STEP_TIME_SERIES, points);
      const overlay = panelOverlay(
        run,
        { key: STEP_TIME_SERIES, name: 'step time', own: () => indexPoints(stepTimes), smoothing, axis, min: 0 },
        width,
        colors,
      );
      return throughputLines(
        {
          stepTimes,
          stepTimeS: f.stepTimeS,
          episodesPerS: f.episodesPerS,
          trainTokensPerS: f.trainTokensPerS,
          rolloutWaitS: f.rolloutWaitS,
          phases,
          overlay,
        },
        width,
        height,
        colors,
      );
    }
    case 'gpu':
      return gpuLines({ nodes: run.gpus, memory: run.memory }, width, height);
    case 'alerts':
      // Zoomed, each alert is shown whole (wrapped), not cut to a line.
      return alertsLines(run.alerts, width, height, run.alertHistory, ui.zoom === 'alerts');
    case 'log':
      return logPaneLines(run, ui, width, height);
  }
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
      })
    : [[{ t: 'No run selected: open one from Runs (1) or start one from Config (3).', c: 'dim' }], ''];
}

/** Which panels did not fit, and what to do about it, said whole even at 60 columns. */
function hiddenNote(hidden: PanelId[], width: number): string {
  const long = `hidden: ${hidden.join(', ')} (z: zoom one panel, or enlarge)`;
  const short = `hidden: ${hidden.join(', ')} (z: zoom)`;
  // The alert history key too, when it fits whole.
  const tries = [
    `${long} · h alert history`,
    `${long} · h history`,
    `${short} · h alert history`,
    `${short} · h history`,
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
      lines: frame(panelLines(c.id, run, ui, c.width, row.height, colors), c.width, row.height),
      width: c.width,
    }));
    out.push(...hstack(parts, row.height));
  }
  out.push(
    ui.zoom
      ? [{ t: `zoomed on ${ui.zoom} (z: next panel)`, c: 'dim' }]
      : layout.hidden.length
        ? [{ t: hiddenNote(layout.hidden, width), c: 'dim' }]
        : [{ t: footerHints(run, ui, width), c: 'dim' }],
  );
  return frame(out, width, height);
}
