// The cockpit's own state (screen, cursors, overlays, text being typed) and the pure function that
// turns a key into a new state plus effects for the session. No React here: key handling is tested
// as a table of (state, key) -> (state, effects). What each key does is in bindings.ts.
import { bindingFor, keyName, same, type Result, type Scope } from './bindings.js';
import { act } from './binding-keys.js';
import type { PanelId } from './layout.js';
import type { TimeAxis } from '../metrics/run-steps.js';
import type { ScreenId } from './keys.js';
import type { SessionActions, TrajectoriesView } from '../session/types.js';
import { initialTrajNav, type TrajNav } from './traj-nav.js';

export interface KeyInfo {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  meta?: boolean;
  home?: boolean;
  end?: boolean;
}

export type Confirm =
  | { kind: 'quit' }
  | { kind: 'stop'; runId: string }
  /** `autoResume`: Slurm resubmissions chosen in the confirmation (`a`), as `--auto-resume N`. */
  | { kind: 'launch'; autoResume?: number }
  | { kind: 'leftovers'; runId: string };
export type TextInput =
  /** `prev`: the search before this one was opened (the filter is live while typing; Ctrl-c restores it). */
  | { kind: 'search'; text: string; prev: string }
  | { kind: 'find'; text: string; from: number }
  | { kind: 'edit'; key: string; text: string }
  | { kind: 'add'; text: string };

/** The first config row (from `from`, wrapping) whose key contains `text`; -1 when none. */
export function findRow(rows: KeyContext['configRows'], text: string, from: number): number {
  if (!text) return from;
  const needle = text.toLowerCase();
  for (let k = 0; k < rows.length; k++) {
    const i = (from + k) % rows.length;
    if (rows[i].key.toLowerCase().includes(needle)) return i;
  }
  return -1;
}

export interface UiState {
  screen: ScreenId;
  help: boolean;
  /** Rows the help is scrolled down (it is longer than a small terminal). */
  helpScroll: number;
  confirm: Confirm | null;
  input: TextInput | null;
  runsCursor: number;
  configCursor: number;
  zoom: PanelId | null;
  showDifficulty: boolean;
  /** The Reward panel's cursor: a step of the run (null: none; `[` `]` move it, `e` opens its episodes). */
  rewardStep: number | null;
  logAll: boolean;
  logSearch: string;
  logScroll: number;
  /** The log pane: the trainer's own lines (default) or lines built from parser events. */
  logView: 'trainer' | 'events';
  /** In the trainer view, warnings and errors only (`a`; the event view's `a` is `logAll`). */
  trainerProblemsOnly: boolean;
  /** Long log lines wrap onto more rows (`w`) instead of being cut with '…'. */
  logWrap: boolean;
  /** The full alert history is open (`h`), scrolled down this many rows. */
  history: boolean;
  historyScroll: number;
  /** Rows the launch confirmation's argv is scrolled down (it is longer than a small terminal). */
  argvScroll: number;
  /** The log pane scrolled back: the newest line's seq when it was scrolled (new lines then add to
   *  the scroll, so the lines being read stay put); null at the bottom. */
  logPin: number | null;
  /** Why the last key did nothing (a disabled binding's reason), until the next key. */
  keyHint: string | null;
  /** The charts' smoothing: an index into SMOOTHING_WEIGHTS (`s` cycles it; 0: off). */
  smoothing: number;
  /** What a pinned baseline's overlay is drawn by (`t` cycles it). */
  timeAxis: TimeAxis;
  /** What is typed into a server's login prompt (the session's `loginPrompt`) so far. */
  loginText: string;
  /** The Trajectories screen's level, cursors and filter. */
  traj: TrajNav;
}

/** A session action a key asks for: its name in SessionActions and its arguments. Derived from
 *  SessionActions (one mapped type): an action is declared once, there; `act` (binding-keys.ts)
 *  builds these, the cockpit calls them by name. */
export type ActionEffect = {
  [K in keyof SessionActions]-?: { kind: K; args: Parameters<NonNullable<SessionActions[K]>> };
}[keyof SessionActions];

export type Effect = { kind: 'quit' } | { kind: 'redraw' } | ActionEffect;

/** What the reducer needs to know about the session's state. */
export interface KeyContext {
  runIds: string[];
  configRows: { key: string; leaf: boolean; value: string; origin: string }[];
  /** The overrides as listed (1-based in the list); the cursor moves on to them after the tree's rows. */
  overrides?: readonly string[];
  launchInProgress: boolean;
  /** A launch with config errors only shows why it cannot go. */
  configHasErrors: boolean;
  /** Rows a page key moves. */
  page: number;
  /** The launch pre-flight: 'ok' lets y launch; 'blocked' needs an explicit S (skip); 'refused':
   *  blocked by what S cannot skip (a run of this trial is active). */
  preflight?: 'none' | 'running' | 'ok' | 'blocked' | 'refused';
  /** The run on the dashboard, and whether it has ended (finished/failed/stopped/timeout). */
  selectedRun?: { id: string; ended: boolean } | null;
  /** The leftover check in progress or done, with how many found processes carry the run's tag. */
  leftovers?: { phase: 'idle' | 'checking' | 'found' | 'stopping' | 'stopped' | 'failed'; tagged: number };
  /** Runs of the Runs screen that have ended (the leftover check is offered for them). */
  endedRuns?: ReadonlySet<string>;
  /** How far the help overlay can scroll at this size (0: it fits). */
  helpScrollMax?: number;
  /** The selected run has the trainer's own lines (otherwise the pane shows only the event view). */
  trainerLines?: boolean;
  /** Steps the open run has logged (the Reward cursor moves over them). */
  runSteps?: number;
  /** How far the alert history can scroll at this size (0: it fits). */
  historyScrollMax?: number;
  /** The step of the alert marked in the history (null: none marked, or it has no step). */
  historyStep?: number | null;
  /** How far the launch confirmation's argv can scroll at this size (0: it fits). */
  argvScrollMax?: number;
  /** The launch target's backend (auto-resume is Slurm's), null when there is no target. */
  launchBackend?: 'direct' | 'slurm' | null;
  /** A server's login prompt is open (the session's `loginPrompt`): it takes every key. */
  loginPrompt?: boolean;
  /** The open run's dumped episodes (the Trajectories screen's cursors move over them). */
  trajectories?: TrajectoriesView;
}

export function initialUiState(screen: ScreenId = 'runs'): UiState {
  return {
    screen,
    help: false,
    helpScroll: 0,
    confirm: null,
    input: null,
    runsCursor: 0,
    configCursor: 0,
    zoom: null,
    showDifficulty: false,
    rewardStep: null,
    logAll: false,
    logSearch: '',
    logScroll: 0,
    logView: 'trainer',
    trainerProblemsOnly: false,
    logWrap: false,
    history: false,
    historyScroll: 0,
    argvScroll: 0,
    logPin: null,
    keyHint: null,
    smoothing: 0,
    timeAxis: 'steps',
    loginText: '',
    traj: initialTrajNav(),
  };
}

function handleInput(s: UiState, t: TextInput, input: string, key: KeyInfo, ctx: KeyContext): Result {
  const name = keyName(input, key);
  const b = bindingFor('input', name);
  if (b) return b.run(s, ctx, name);
  let text = t.text;
  if (key.backspace || key.delete) text = text.slice(0, -1);
  else if (
    input &&
    !key.ctrl &&
    !key.meta &&
    !key.escape &&
    !key.tab &&
    !key.upArrow &&
    !key.downArrow &&
    !key.leftArrow &&
    !key.rightArrow &&
    !key.pageUp &&
    !key.pageDown
  ) {
    const printable = input.replace(/[\x00-\x1f\x7f]/g, '');
    if (!printable) return same(s);
    text += printable;
  } else return same(s);
  const next = { ...t, text } as TextInput;
  const effects: Effect[] = t.kind === 'edit' ? [act.setDraft({ key: t.key, text })] : [];
  let live: Partial<UiState> = {};
  if (t.kind === 'search') live = { logSearch: text, logScroll: 0 };
  if (t.kind === 'find') {
    const at = findRow(ctx.configRows, text, t.from);
    if (at >= 0) live = { configCursor: at };
  }
  return same({ ...s, ...live, input: next }, effects);
}

/** A key typed into the login prompt: Backspace erases, printable characters are kept. */
function typeLogin(s: UiState, input: string, key: KeyInfo): Result {
  if (key.backspace || key.delete) return same({ ...s, loginText: s.loginText.slice(0, -1) });
  if (key.ctrl || key.meta || key.escape || key.tab) return same(s);
  const printable = input.replace(/[\x00-\x1f\x7f]/g, '');
  return printable ? same({ ...s, loginText: s.loginText + printable }) : same(s);
}

/** The scope whose bindings take the key: an open dialog or overlay, else the screen. A server's
 *  login prompt (session state) comes first: the connection waits for it. */
export function activeScope(s: UiState, ctx?: KeyContext): Scope {
  if (ctx?.loginPrompt) return 'login';
  if (s.help) return 'help';
  if (s.history) return 'history';
  if (s.confirm?.kind === 'launch') return 'launch';
  if (s.confirm?.kind === 'leftovers') return 'leftovers';
  if (s.input) return 'input';
  return s.screen;
}

/** Run the binding for `name` in `scope`: its action, or (disabled) its reason on the status line. */
function dispatch(scope: Scope, s: UiState, name: string, ctx: KeyContext): Result | null {
  const b = bindingFor(scope, name);
  if (!b) return null;
  const why = b.disabledReason?.(ctx, s) ?? null;
  return why === null ? b.run(s, ctx, name) : same({ ...s, keyHint: why });
}

export function reduceKey(prev: UiState, input: string, key: KeyInfo, ctx: KeyContext): Result {
  // A disabled key's reason stands until the next key.
  const s = prev.keyHint === null ? prev : { ...prev, keyHint: null };
  const name = keyName(input, key);
  const scope = activeScope(s, ctx);
  if (scope === 'login') return dispatch('login', s, name, ctx) ?? typeLogin(s, input, key);
  if (scope === 'help') {
    // The help's own keys scroll it; any other key closes it (and does nothing else).
    const r = dispatch('help', s, name, ctx);
    return r && r.state.keyHint === null ? r : same({ ...s, help: false });
  }
  if (scope === 'history') {
    // Ctrl-c closes the history and then means what it means outside it (quit).
    if (name === 'ctrl-c') return reduceKey({ ...s, history: false, historyScroll: 0 }, input, key, ctx);
    return dispatch('history', s, name, ctx) ?? same(s);
  }
  if (scope === 'launch') {
    // A launch with config errors only shows why it cannot go: any key closes it.
    if (ctx.configHasErrors) return same({ ...s, confirm: null });
    return dispatch('launch', s, name, ctx) ?? same({ ...s, confirm: null });
  }
  if (scope === 'leftovers') {
    const r = dispatch('leftovers', s, name, ctx);
    if (r && r.state.keyHint === null) return r;
    const busy = ctx.leftovers?.phase === 'checking' || ctx.leftovers?.phase === 'stopping';
    return busy ? same(s) : same({ ...s, confirm: null });
  }
  if (s.confirm) {
    // quit / stop: y does it, anything else keeps things as they were.
    if (input !== 'y' && input !== 'Y') return same({ ...s, confirm: null });
    if (s.confirm.kind === 'quit') return same({ ...s, confirm: null }, [{ kind: 'quit' }]);
    return same({ ...s, confirm: null }, [act.stopRun((s.confirm as { runId: string }).runId)]);
  }
  if (s.input) return handleInput(s, s.input, input, key, ctx);
  const global = dispatch('global', s, name, ctx);
  if (global) return global;
  // Ctrl/Meta chords (tmux's Ctrl-b prefix, Ctrl-j/k) and a lone Esc do nothing.
  if (key.ctrl || key.meta || key.escape) return same(s);
  return dispatch(s.screen, s, name, ctx) ?? same(s);
}
