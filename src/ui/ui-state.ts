// The cockpit's own state (screen, cursors, overlays, text being typed) and the pure function that
// turns a key into a new state plus effects for the session. No React here: key handling is tested
// as a table of (state, key) -> (state, effects).
import { PANEL_ORDER, type PanelId } from './layout.js';
import { SCREENS, type ScreenId } from './keys.js';

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
}

export type Confirm = { kind: 'quit' } | { kind: 'stop'; runId: string } | { kind: 'launch' } | { kind: 'leftovers'; runId: string };
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
}

export type Effect =
  | { kind: 'quit' }
  | { kind: 'selectRun'; runId: string }
  | { kind: 'refresh' }
  | { kind: 'stop'; runId: string }
  | { kind: 'draft'; draft: { key: string; text: string } | null }
  | { kind: 'setValue'; key: string; text: string }
  | { kind: 'addOverride'; text: string }
  | { kind: 'removeOverride'; index: number }
  | { kind: 'launch'; skipPreflight?: boolean }
  | { kind: 'preflight' }
  | { kind: 'checkLeftovers'; runId: string }
  | { kind: 'stopLeftovers'; runId: string };

/** What the reducer needs to know about the session's state. */
export interface KeyContext {
  runIds: string[];
  configRows: { key: string; leaf: boolean; value: string; origin: string }[];
  launchInProgress: boolean;
  /** A launch with config errors only shows why it cannot go. */
  configHasErrors: boolean;
  /** Rows a page key moves. */
  page: number;
  /** The launch pre-flight: 'ok' lets y launch; 'blocked' needs an explicit S (skip). */
  preflight?: 'none' | 'running' | 'ok' | 'blocked';
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
  /** How far the alert history can scroll at this size (0: it fits). */
  historyScrollMax?: number;
  /** How far the launch confirmation's argv can scroll at this size (0: it fits). */
  argvScrollMax?: number;
}

export function initialUiState(screen: ScreenId = 'runs'): UiState {
  return { screen, help: false, helpScroll: 0, confirm: null, input: null, runsCursor: 0, configCursor: 0, zoom: null, showDifficulty: false, logAll: false, logSearch: '', logScroll: 0, logView: 'trainer', trainerProblemsOnly: false, logWrap: false, history: false, historyScroll: 0, argvScroll: 0 };
}

type Result = { state: UiState; effects: Effect[] };
const same = (state: UiState, effects: Effect[] = []): Result => ({ state, effects });

function clamp(v: number, n: number): number {
  return Math.max(0, Math.min(v, n - 1));
}

function move(key: KeyInfo, input: string, page: number): number {
  if (key.upArrow || input === 'k') return -1;
  if (key.downArrow || input === 'j') return 1;
  if (key.pageUp) return -page;
  if (key.pageDown) return page;
  return 0;
}

function handleInput(s: UiState, t: TextInput, input: string, key: KeyInfo, ctx: KeyContext): Result {
  if (key.ctrl && (input === 'c' || input === 'g')) {
    if (t.kind === 'find') return same({ ...s, input: null, configCursor: t.from });
    if (t.kind === 'search') return same({ ...s, input: null, logSearch: t.prev, logScroll: 0 });
    return same({ ...s, input: null }, t.kind === 'edit' ? [{ kind: 'draft', draft: null }] : []);
  }
  if (key.return) {
    if (t.kind === 'search') return same({ ...s, input: null, logSearch: t.text, logScroll: 0 });
    if (t.kind === 'find') return same({ ...s, input: null });
    if (t.kind === 'edit') return same({ ...s, input: null }, [{ kind: 'setValue', key: t.key, text: t.text }, { kind: 'draft', draft: null }]);
    return same({ ...s, input: null }, t.text.trim() ? [{ kind: 'addOverride', text: t.text.trim() }] : []);
  }
  let text = t.text;
  if (key.backspace || key.delete) text = text.slice(0, -1);
  else if (input && !key.ctrl && !key.meta && !key.escape && !key.tab && !key.upArrow && !key.downArrow && !key.leftArrow && !key.rightArrow && !key.pageUp && !key.pageDown) {
    // eslint-disable-next-line no-control-regex
    const printable = input.replace(/[\x00-\x1f\x7f]/g, '');
    if (!printable) return same(s);
    text += printable;
  }
  else return same(s);
  const next = { ...t, text } as TextInput;
  const effects: Effect[] = t.kind === 'edit' ? [{ kind: 'draft', draft: { key: t.key, text } }] : [];
  let live: Partial<UiState> = {};
  if (t.kind === 'search') live = { logSearch: text, logScroll: 0 };
  if (t.kind === 'find') {
    const at = findRow(ctx.configRows, text, t.from);
    if (at >= 0) live = { configCursor: at };
  }
  return same({ ...s, ...live, input: next }, effects);
}

function handleConfirm(s: UiState, c: Confirm, input: string, key: KeyInfo, ctx: KeyContext): Result {
  const yes = input === 'y' || input === 'Y';
  const closed = { ...s, confirm: null };
  if (c.kind === 'launch') {
    if (ctx.configHasErrors) return same(closed);
    // Every argument can be read before confirming: the scroll keys move the argv (not a cancel).
    const d = move(key, input, ctx.page);
    if (d) return same({ ...s, argvScroll: Math.max(0, Math.min(s.argvScroll + d, ctx.argvScrollMax ?? 0)) });
    const pf = ctx.preflight ?? 'none';
    // y launches only after a clean pre-flight; while it runs, or when it found errors, y waits.
    if (yes) return pf === 'ok' ? same(closed, [{ kind: 'launch' }]) : same(s);
    // An error-level check blocks unless the user explicitly skips (recorded in run.json).
    if (input === 'S') return pf === 'blocked' ? same(closed, [{ kind: 'launch', skipPreflight: true }]) : same(s);
    if (input === 'p' && pf !== 'running') return same(s, [{ kind: 'preflight' }]);
    return same(closed);
  }
  if (c.kind === 'leftovers') {
    const lo = ctx.leftovers ?? { phase: 'idle', tagged: 0 };
    // Only the run's tagged processes are ever offered for stopping, and only after a y.
    if (yes && lo.phase === 'found' && lo.tagged > 0) return same(s, [{ kind: 'stopLeftovers', runId: c.runId }]);
    if ((lo.phase === 'checking' || lo.phase === 'stopping') && input !== 'n') return same(s);
    return same(closed);
  }
  if (!yes) return same(closed);
  if (c.kind === 'quit') return same(closed, [{ kind: 'quit' }]);
  if (c.kind === 'stop') return same(closed, [{ kind: 'stop', runId: c.runId }]);
  return same(closed, [{ kind: 'launch' }]);
}

export function reduceKey(s: UiState, input: string, key: KeyInfo, ctx: KeyContext): Result {
  if (s.help) {
    // Arrows and page keys scroll a help longer than the screen; any other key closes it.
    const d = move(key, input, ctx.page);
    if (d && (ctx.helpScrollMax ?? 0) > 0) return same({ ...s, helpScroll: Math.max(0, Math.min(s.helpScroll + d, ctx.helpScrollMax ?? 0)) });
    return same({ ...s, help: false });
  }
  if (s.history) {
    // A list to read: j k arrows and page keys scroll it, Esc or q closes it (q does not quit here),
    // other keys do nothing (a stray key must not close what the user is reading).
    if (key.escape || input === 'q') return same({ ...s, history: false, historyScroll: 0 });
    if (key.ctrl && input === 'c') return reduceKey({ ...s, history: false, historyScroll: 0 }, input, key, ctx);
    const d = move(key, input, ctx.page);
    if (d) return same({ ...s, historyScroll: Math.max(0, Math.min(s.historyScroll + d, ctx.historyScrollMax ?? 0)) });
    return same(s);
  }
  if (s.confirm) return handleConfirm(s, s.confirm, input, key, ctx);
  if (s.input) return handleInput(s, s.input, input, key, ctx);

  // Global keys.
  if (input === 'q' || (key.ctrl && input === 'c')) {
    return ctx.launchInProgress ? same({ ...s, confirm: { kind: 'quit' } }) : same(s, [{ kind: 'quit' }]);
  }
  // Ctrl/Meta chords (tmux's Ctrl-b prefix, Ctrl-j/k) and a lone Esc (which tmux delays) do nothing.
  if (key.ctrl || key.meta || key.escape) return same(s);
  if (input === '?') return same({ ...s, help: true, helpScroll: 0 });
  if (key.tab) {
    const i = SCREENS.indexOf(s.screen);
    const next = SCREENS[(i + (key.shift ? SCREENS.length - 1 : 1)) % SCREENS.length];
    return same({ ...s, screen: next });
  }
  if (!key.ctrl && !key.meta && ['1', '2', '3', '4'].includes(input)) return same({ ...s, screen: SCREENS[Number(input) - 1] });

  const delta = move(key, input, ctx.page);
  switch (s.screen) {
    case 'runs': {
      if (delta) return same({ ...s, runsCursor: clamp(s.runsCursor + delta, ctx.runIds.length) });
      const runId = ctx.runIds[s.runsCursor];
      if (key.return && runId) return same({ ...s, screen: 'dashboard' }, [{ kind: 'selectRun', runId }]);
      if (input === 's' && runId) return same({ ...s, confirm: { kind: 'stop', runId } });
      if (input === 'r') return same(s, [{ kind: 'refresh' }]);
      if (input === 'n') return same({ ...s, screen: 'config' });
      // The same check and confirmation as the dashboard's `o`, for the run under the cursor.
      if (input === 'o' && runId && ctx.endedRuns?.has(runId)) return same({ ...s, confirm: { kind: 'leftovers', runId } }, [{ kind: 'checkLeftovers', runId }]);
      return same(s);
    }
    case 'dashboard':
    case 'log': {
      if (delta) return same({ ...s, logScroll: Math.max(0, s.logScroll - delta) });
      if (input === 'z' && s.screen === 'dashboard') {
        const i = s.zoom === null ? 0 : PANEL_ORDER.indexOf(s.zoom) + 1;
        return same({ ...s, zoom: i < PANEL_ORDER.length ? PANEL_ORDER[i] : null });
      }
      if (input === 'd') return same({ ...s, showDifficulty: !s.showDifficulty });
      const trainerView = s.logView === 'trainer' && ctx.trainerLines === true;
      if (input === 'a') return same(trainerView ? { ...s, trainerProblemsOnly: !s.trainerProblemsOnly, logScroll: 0 } : { ...s, logAll: !s.logAll, logScroll: 0 });
      if (input === 'L' && ctx.trainerLines) return same({ ...s, logView: s.logView === 'trainer' ? 'events' : 'trainer', logScroll: 0 });
      if (input === '/') return same({ ...s, input: { kind: 'search', text: s.logSearch, prev: s.logSearch } });
      if (input === 'h') return same({ ...s, history: true, historyScroll: 0 });
      if (input === 'w') return same({ ...s, logWrap: !s.logWrap });
      const run = ctx.selectedRun;
      if (input === 'o' && s.screen === 'dashboard' && run?.ended) {
        return same({ ...s, confirm: { kind: 'leftovers', runId: run.id } }, [{ kind: 'checkLeftovers', runId: run.id }]);
      }
      return same(s);
    }
    case 'config': {
      if (delta) return same({ ...s, configCursor: clamp(s.configCursor + delta, ctx.configRows.length) });
      const row = ctx.configRows[s.configCursor];
      if (key.return && row?.leaf) {
        const text = row.value;
        return same({ ...s, input: { kind: 'edit', key: row.key, text } }, [{ kind: 'draft', draft: { key: row.key, text } }]);
      }
      // Without a config (the demo, no --config) the screen only says so: a text field opened
      // there would be drawn nowhere and swallow every key, q included.
      if (!ctx.configRows.length) return same(s);
      if (input === '+') return same({ ...s, input: { kind: 'add', text: '' } });
      if (input === '/') return same({ ...s, input: { kind: 'find', text: '', from: s.configCursor } });
      if (input === 'x' && row) {
        const m = /^override (\d+)/.exec(row.origin);
        if (m) return same(s, [{ kind: 'removeOverride', index: Number(m[1]) }]);
        return same(s);
      }
      // The confirmation runs the pre-flight (the same gate as --launch) while it shows the argv.
      if (input === 'L' && ctx.configRows.length) return same({ ...s, confirm: { kind: 'launch' }, argvScroll: 0 }, ctx.configHasErrors ? [] : [{ kind: 'preflight' }]);
      if (input === 'p' && ctx.configRows.length && ctx.preflight !== 'running') return same(s, [{ kind: 'preflight' }]);
      return same(s);
    }
  }
}
