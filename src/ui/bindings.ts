// Every key the cockpit answers to, in ONE table (as lazygit's types.Binding): the key handler
// dispatches through it, and the `?` overlay, the footer and title hints and the status-line hints
// are generated from it, so a key's meaning is written once. Nothing is bound to Ctrl-b (tmux's
// prefix), Ctrl-j/k, or a lone Esc outside a dialog (tmux holds Esc for escape-time).
// The panels' ids, not layout.ts's order of them (the same: the registry lists PANEL_IDS in order):
// layout.ts reads the panel registry, whose hints read this table (key-names.ts).
import { PANEL_IDS as PANEL_ORDER } from '../session/panel-series.js';
import { SCREENS } from './keys.js';
import type { KeyContext, UiState } from './ui-state.js';
import { act, clamp, keyLabel, moveBy, MOVE_KEYS, same, type Binding, type Scope } from './binding-keys.js';
import { DIALOG_BINDINGS } from './bindings-dialogs.js';
import { TRAJECTORY_BINDINGS } from './bindings-trajectories.js';
import { trajAtStep } from './traj-nav.js';
import { SMOOTHING_WEIGHTS } from '../metrics/ema.js';
import { TIME_AXES } from '../metrics/run-steps.js';
import { axisName } from './panels/baseline-overlay.js';

export { keyLabel, keyName, moveBy, same, type Binding, type Result, type Scope } from './binding-keys.js';

const noConfig = (ctx: KeyContext) =>
  ctx.configRows.length ? null : 'no config loaded: start the cockpit with --config FILE (--demo opens its own)';
/** The override (1-based) `x` removes: the one selected in the overrides list, else the one that
 *  sets the selected key; null when neither. */
export function overrideIndex(ctx: KeyContext, s: UiState): number | null {
  const n = ctx.configRows.length;
  if (s.configCursor >= n && s.configCursor < n + (ctx.overrides?.length ?? 0)) return s.configCursor - n + 1;
  const m = /^override (\d+)/.exec(ctx.configRows[s.configCursor]?.origin ?? '');
  return m ? Number(m[1]) : null;
}
const noRun = (ctx: KeyContext, s: UiState) => (ctx.runIds[s.runsCursor] ? null : 'no run selected');
const leftoverReason = (id: string | undefined, ended: boolean | undefined) =>
  !id
    ? 'no run selected'
    : ended
      ? null
      : `o: run ${id} is still running; leftover processes are checked once it has ended`;

/** Open a screen; the Trajectories screen lists the open run's dumps (again) as it opens. */
const toScreen = (s: UiState, screen: UiState['screen']) =>
  same({ ...s, screen }, screen === 'trajectories' ? [act.listTrajectories()] : []);

export const BINDINGS: readonly Binding[] = [
  // Everywhere (outside dialogs).
  {
    keys: ['1', '2', '3', '4', '5', '6', '7'],
    scopes: ['global'],
    command: 'screen',
    description:
      "Runs, Dashboard, Config, Log, Eval, RL health, Trajectories screens (7 lists the open run's dumps again)",
    run: (s, _c, n) => toScreen(s, SCREENS[Number(n) - 1]),
  },
  {
    keys: ['tab', 'shift-tab'],
    scopes: ['global'],
    command: 'next-screen',
    description: 'next / previous screen',
    run: (s, _c, n) =>
      toScreen(s, SCREENS[(SCREENS.indexOf(s.screen) + (n === 'tab' ? 1 : SCREENS.length - 1)) % SCREENS.length]),
  },
  {
    keys: ['?'],
    scopes: ['global'],
    command: 'help',
    description: 'this help (↑ ↓ PgUp PgDn scroll it when it is longer than the screen; any other key closes it)',
    short: 'help',
    run: (s) => same({ ...s, help: true, helpScroll: 0 }),
  },
  {
    keys: ['q', 'ctrl-c'],
    scopes: ['global'],
    command: 'quit',
    description:
      'quit the cockpit (a run keeps running; --demo stops its own simulated run); asks first while a launch is in progress',
    run: (s, ctx) => (ctx.launchInProgress ? same({ ...s, confirm: { kind: 'quit' } }) : same(s, [{ kind: 'quit' }])),
  },
  {
    keys: ['ctrl-l'],
    scopes: ['global'],
    command: 'redraw',
    description: 'draw the whole screen again (after something else wrote to the terminal)',
    run: (s) => same(s, [{ kind: 'redraw' }]),
  },
  // Runs screen.
  {
    keys: MOVE_KEYS,
    scopes: ['runs'],
    command: 'runs-move',
    description: 'move the cursor (PgUp PgDn by a page)',
    run: (s, ctx, n) => same({ ...s, runsCursor: clamp(s.runsCursor + moveBy(n, ctx.page), 0, ctx.runIds.length - 1) }),
  },
  {
    keys: ['enter'],
    scopes: ['runs'],
    command: 'open-run',
    description: 'open the selected run on the dashboard',
    short: 'open',
    shown: true,
    disabledReason: noRun,
    run: (s, ctx) => same({ ...s, screen: 'dashboard' }, [act.selectRun(ctx.runIds[s.runsCursor])]),
  },
  {
    keys: ['n'],
    scopes: ['runs'],
    command: 'new-launch',
    description: 'new launch (opens Config)',
    short: 'new launch',
    shown: true,
    run: (s) => same({ ...s, screen: 'config' }),
  },
  {
    keys: ['s'],
    scopes: ['runs'],
    command: 'stop-run',
    description: 'stop the selected run (asks first)',
    short: 'stop',
    shown: true,
    disabledReason: noRun,
    run: (s, ctx) => same({ ...s, confirm: { kind: 'stop', runId: ctx.runIds[s.runsCursor] } }),
  },
  {
    keys: ['o'],
    scopes: ['runs'],
    command: 'leftovers',
    description: 'selected run ended: leftover processes (PID, command); y stops only the run-tagged ones',
    short: 'leftovers',
    shown: true,
    disabledReason: (ctx, s) => {
      const id = ctx.runIds[s.runsCursor];
      return leftoverReason(id, id ? ctx.endedRuns?.has(id) : false);
    },
    run: (s, ctx) => {
      const runId = ctx.runIds[s.runsCursor];
      return same({ ...s, confirm: { kind: 'leftovers', runId } }, [act.checkLeftovers(runId)]);
    },
  },
  {
    keys: ['b'],
    scopes: ['runs'],
    command: 'pin-baseline',
    description:
      'pin the selected run as the baseline: the dashboard draws it beside the open run (reward, staleness, throughput), aligned by step; b on it again unpins',
    short: 'baseline',
    disabledReason: noRun,
    run: (s, ctx) => same(s, [act.pinBaseline(ctx.runIds[s.runsCursor])]),
  },
  {
    keys: ['r'],
    scopes: ['runs'],
    command: 'refresh',
    description:
      "refresh the list; connect again to the targets that could not be reached; a target whose connection ended at a second factor logs in again (the server's prompt as a dialog)",
    short: 'refresh',
    shown: true,
    run: (s) => same(s, [act.refreshRuns()]),
  },
  // Dashboard and Log screens.
  {
    keys: MOVE_KEYS,
    scopes: ['dashboard', 'log'],
    command: 'log-scroll',
    description: 'scroll the log back / forward (PgUp PgDn by a page)',
    run: (s, ctx, n) => same({ ...s, logScroll: Math.max(0, s.logScroll - moveBy(n, ctx.page)) }),
  },
  {
    keys: ['G', 'end'],
    scopes: ['dashboard', 'log'],
    command: 'log-end',
    description: 'log: jump to the newest line (follow the tail again)',
    short: 'end',
    run: (s) => same({ ...s, logScroll: 0, logPin: null }),
  },
  {
    keys: ['z'],
    scopes: ['dashboard'],
    command: 'zoom',
    description: 'zoom: cycle one panel full screen, then back',
    short: 'zoom',
    shown: true,
    run: (s) => {
      const i = s.zoom === null ? 0 : (PANEL_ORDER as readonly string[]).indexOf(s.zoom) + 1;
      return same({ ...s, zoom: i < PANEL_ORDER.length ? PANEL_ORDER[i] : null });
    },
  },
  {
    keys: ['h'],
    scopes: ['dashboard', 'log'],
    command: 'alert-history',
    description:
      'alert history: every alert seen, active, cleared or ended with the run (first seen, how often it fired, when it stopped); j k ↑ ↓ PgUp PgDn scroll, Esc or q closes',
    short: 'alert history',
    shown: true,
    run: (s) => same({ ...s, history: true, historyScroll: 0 }),
  },
  {
    keys: ['[', ']'],
    scopes: ['dashboard'],
    command: 'reward-cursor',
    description: "the Reward panel's cursor: a step back / forward (it starts at the newest step)",
    short: 'reward cursor',
    disabledReason: (ctx) => ((ctx.runSteps ?? 0) > 0 ? null : '[ ]: no step logged yet'),
    run: (s, ctx, n) => {
      const last = ctx.runSteps ?? 0;
      const at = s.rewardStep === null ? last : s.rewardStep + (n === '[' ? -1 : 1);
      return same({ ...s, rewardStep: clamp(at, 1, last) });
    },
  },
  {
    keys: ['e'],
    scopes: ['dashboard'],
    command: 'reward-episodes',
    description:
      "episodes of the Reward cursor's step (the newest without a cursor): the Trajectories screen (7) at the policy version that step trained with",
    short: 'episodes',
    disabledReason: (ctx) => ((ctx.runSteps ?? 0) > 0 ? null : 'e: no step logged yet'),
    run: (s, ctx) =>
      same({ ...s, screen: 'trajectories', traj: trajAtStep(s.rewardStep ?? ctx.runSteps ?? 0) }, [
        act.listTrajectories(),
      ]),
  },
  {
    keys: ['d'],
    scopes: ['dashboard', 'log'],
    command: 'difficulty',
    description: 'reward per difficulty on/off',
    short: 'difficulty',
    shown: true,
    run: (s) => same({ ...s, showDifficulty: !s.showDifficulty }),
  },
  {
    keys: ['s'],
    scopes: ['dashboard', 'log'],
    command: 'smoothing',
    description: `smoothing of the reward, staleness and throughput charts: off / TensorBoard's EMA ${SMOOTHING_WEIGHTS.slice(1).join(' / ')} (the raw line stays, fainter)`,
    short: 'smooth',
    run: (s) => same({ ...s, smoothing: (s.smoothing + 1) % SMOOTHING_WEIGHTS.length }),
  },
  {
    keys: ['t'],
    scopes: ['dashboard', 'log'],
    command: 'time-axis',
    description: `a pinned baseline's time axis: ${TIME_AXES.map(axisName).join(' / ')}`,
    short: 'time axis',
    run: (s) => same({ ...s, timeAxis: TIME_AXES[(TIME_AXES.indexOf(s.timeAxis) + 1) % TIME_AXES.length] }),
  },
  {
    keys: ['a'],
    scopes: ['dashboard', 'log'],
    command: 'log-filter',
    description: 'log: all lines / warnings and errors only',
    short: 'log filter',
    shown: true,
    run: (s, ctx) =>
      same(
        s.logView === 'trainer' && ctx.trainerLines === true
          ? { ...s, trainerProblemsOnly: !s.trainerProblemsOnly, logScroll: 0 }
          : { ...s, logAll: !s.logAll, logScroll: 0 },
      ),
  },
  {
    keys: ['/'],
    scopes: ['dashboard', 'log'],
    command: 'log-search',
    description: 'search the log (Enter keeps it, an empty search clears it, Ctrl-c restores the previous one)',
    short: 'search',
    shown: true,
    run: (s) => same({ ...s, input: { kind: 'search', text: s.logSearch, prev: s.logSearch } }),
  },
  {
    keys: ['L'],
    scopes: ['dashboard', 'log'],
    command: 'log-view',
    description:
      "log pane: the trainer's own lines (ANSI stripped, stats tables as one line) / lines from parsed events",
    short: 'trainer/event log',
    shown: true,
    disabledReason: (ctx) =>
      ctx.trainerLines ? null : "L: this run's log pane has only the event view (the trainer's lines are not read)",
    run: (s) => same({ ...s, logView: s.logView === 'trainer' ? 'events' : 'trainer', logScroll: 0 }),
  },
  {
    keys: ['w'],
    scopes: ['dashboard', 'log'],
    command: 'log-wrap',
    description: 'log: wrap long lines onto more rows / cut them with …',
    short: 'wrap long lines',
    shown: true,
    run: (s) => same({ ...s, logWrap: !s.logWrap }),
  },
  {
    keys: ['o'],
    scopes: ['dashboard'],
    command: 'leftovers',
    description: 'after the run ended: leftover processes (PID, command); y stops only the run-tagged ones',
    short: 'checks for leftover processes',
    disabledReason: (ctx) => leftoverReason(ctx.selectedRun?.id, ctx.selectedRun?.ended),
    run: (s, ctx) => {
      const runId = ctx.selectedRun!.id;
      return same({ ...s, confirm: { kind: 'leftovers', runId } }, [act.checkLeftovers(runId)]);
    },
  },
  // Config screen.
  {
    keys: MOVE_KEYS,
    scopes: ['config'],
    command: 'config-move',
    description: 'move the cursor (PgUp PgDn by a page)',
    run: (s, ctx, n) =>
      same({
        ...s,
        configCursor: clamp(
          s.configCursor + moveBy(n, ctx.page),
          0,
          ctx.configRows.length + (ctx.overrides?.length ?? 0) - 1,
        ),
      }),
  },
  {
    // The tree has ~1000 rows: without this the overrides list (the only way to remove an override
    // that names no key or does not parse) is hundreds of key presses away.
    keys: ['G', 'end'],
    scopes: ['config'],
    command: 'config-overrides',
    description: 'jump to the overrides list after the last key (or to the last key when there is none)',
    short: 'overrides',
    run: (s, ctx) => same({ ...s, configCursor: Math.max(0, ctx.configRows.length - (ctx.overrides?.length ? 0 : 1)) }),
  },
  {
    keys: ['enter'],
    scopes: ['config'],
    command: 'edit-value',
    description: 'edit the selected value (typed by the schema; checked as you type)',
    short: 'edit',
    shown: true,
    disabledReason: (ctx, s) =>
      noConfig(ctx) ??
      (ctx.configRows[s.configCursor]?.leaf
        ? null
        : s.configCursor >= ctx.configRows.length
          ? 'Enter: an override is changed by removing it (x) and adding it again (+)'
          : 'Enter: a section has no value of its own; move to one of its keys'),
    run: (s, ctx) => {
      const row = ctx.configRows[s.configCursor];
      return same({ ...s, input: { kind: 'edit', key: row.key, text: row.value } }, [
        act.setDraft({ key: row.key, text: row.value }),
      ]);
    },
  },
  {
    keys: ['/'],
    scopes: ['config'],
    command: 'find-key',
    description: 'find a key (jumps as you type)',
    short: 'find',
    disabledReason: noConfig,
    run: (s) => same({ ...s, input: { kind: 'find', text: '', from: s.configCursor } }),
  },
  {
    keys: ['+'],
    scopes: ['config'],
    command: 'add-override',
    description: 'add an override (a.b=v, +a.b=v, ++a.b=v, ~a.b)',
    short: 'add',
    shown: true,
    disabledReason: noConfig,
    run: (s) => same({ ...s, input: { kind: 'add', text: '' } }),
  },
  {
    keys: ['x', 'delete'],
    scopes: ['config'],
    command: 'remove-override',
    description:
      'remove the selected override (G or j k past the keys: the overrides list), or the one that sets the selected key',
    short: 'remove',
    shown: true,
    disabledReason: (ctx, s) =>
      noConfig(ctx) ??
      (overrideIndex(ctx, s) === null
        ? `x: no override sets the selected key; the ${ctx.overrides?.length ?? 0} override(s) are listed after the last key (G goes there)`
        : null),
    run: (s, ctx) => {
      // The last row of the overrides list goes away: the cursor moves up to the row before it.
      const last = ctx.configRows.length + (ctx.overrides?.length ?? 0) - 1;
      const onLast = s.configCursor === last && s.configCursor >= ctx.configRows.length;
      const configCursor = onLast ? last - 1 : s.configCursor;
      return same({ ...s, configCursor: Math.max(0, configCursor) }, [act.removeOverride(overrideIndex(ctx, s)!)]);
    },
  },
  {
    keys: ['p'],
    scopes: ['config'],
    command: 'preflight',
    description: 'pre-flight: check the target for this config now (the same checks as --launch)',
    short: 'pre-flight',
    shown: true,
    disabledReason: (ctx) => noConfig(ctx) ?? (ctx.preflight === 'running' ? 'p: the pre-flight is running' : null),
    run: (s) => same(s, [act.runPreflight()]),
  },
  {
    keys: ['L'],
    scopes: ['config'],
    command: 'launch',
    description:
      'launch: shows the exact argv (j k ↑ ↓ PgUp PgDn scroll it when it is longer than the screen) and the pre-flight, then asks (y; S launches despite pre-flight errors; n cancels)',
    short: 'launch',
    shown: true,
    disabledReason: noConfig,
    run: (s, ctx) =>
      same({ ...s, confirm: { kind: 'launch' }, argvScroll: 0 }, ctx.configHasErrors ? [] : [act.runPreflight()]),
  },
  ...TRAJECTORY_BINDINGS,
  ...DIALOG_BINDINGS,
];
/** The binding `name` has in `scope`, if any. */
export function bindingFor(scope: Scope, name: string): Binding | undefined {
  return BINDINGS.find((b) => b.scopes.includes(scope) && b.keys.includes(name));
}

/** The binding for a command in a scope (hints name their key from the table). */
export function commandBinding(scope: Scope, command: string): Binding | undefined {
  return BINDINGS.find((b) => b.scopes.includes(scope) && b.command === command);
}

/** "Enter open · n new launch · …": the scope's shown bindings (those `keep` keeps), in table
 *  order, as many as fit whole in `width` (a hint cut in half names no key). */
export function hintLine(
  scope: Scope,
  width: number,
  keep: (b: Binding) => boolean = () => true,
  short: (b: Binding) => string | undefined = () => undefined,
): string {
  let out = '';
  for (const b of BINDINGS) {
    if (!b.shown || !b.scopes.includes(scope) || !keep(b)) continue;
    const h = `${keyLabel({ keys: b.keys.slice(0, 1) })} ${short(b) ?? b.short}`;
    const next = out ? `${out} · ${h}` : h;
    if (next.length > width) break;
    out = next;
  }
  return out;
}
