// The cockpit as one controller in plain TypeScript: it owns the UiState, turns keys into state and
// session effects through the binding table, builds each frame with `frame()` (pure) and hands it
// to the TerminalPainter, the only path that draws. Ink (app.tsx) only feeds it keys and sizes.
import { commandBinding, keyLabel } from './bindings.js';
import { tabBar } from './chrome.js';
import { wrap } from './format.js';
import { clipLine, frame as box, hstack, lineToAnsi, type Line } from './lines.js';
import type { ScreenId } from './keys.js';
import { followProblemStatus } from './panels/header.js';
import { countAfter, logPaneLines, logPaneShown } from './panels/log.js';
import { argvScrollMax, configLines, confirmLaunchLines } from './screens/config.js';
import { dashboardBody, dashboardHeader, type DashboardUi } from './screens/dashboard.js';
import { helpLines, helpScrollMax } from './screens/help.js';
import { alertHistoryLines, alertHistoryScrollMax, alertStep, markedHistoryEntry } from './screens/alert-history.js';
import { leftoverLines } from './screens/leftovers.js';
import { loginPromptLines } from './screens/login-prompt.js';
import { evalScreenLines } from './screens/eval.js';
import { rlHealthLines } from './screens/rl-health.js';
import { trajectoriesLines } from './screens/trajectories.js';
import { trajView } from './traj-nav.js';
import { flatRuns, runsLines, withLiveRun } from './screens/runs.js';
import { ENDED_STATES as ENDED, type RunView, type Session, type SessionState } from '../session/types.js';
import { StatusExpiry, noticeKey, transientKeys } from './status-expiry.js';
import { initialUiState, reduceKey, type Effect, type KeyContext, type KeyInfo, type UiState } from './ui-state.js';
import { KittyShots } from './screens/kitty-shots.js';
import type { ImageChoice } from '../images/detect.js';
import { shotDrawing, type ShotDrawing } from './screens/shot-lines.js';

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

export interface Size {
  columns: number;
  rows: number;
}

export interface Painter {
  paint(lines: string[], columns: number, rows: number): void;
  invalidate?(): void;
  /** Bytes for the terminal outside any row (kitty's image transmission), in order with frames. */
  raw?(s: string): void;
}

/** `text` plus `more` when the whole fits in `width`, else `text` alone (hints say their key whole). */
function hint(text: string, more: string, width: number): string {
  return text.length + more.length <= width ? text + more : text;
}

const LEFTOVER_MORE = ' (tagged with the run or holding GPU memory)';

/** `fresh`: the transient messages (notice, launch result) still young enough to show. */
export function statusLine(state: SessionState, ui: UiState, width: number, fresh: ReadonlySet<string>): Line {
  if (ui.confirm?.kind === 'quit') {
    const long = 'A launch is in progress. Quit the cockpit anyway (the run is not stopped)? y/n';
    return [
      {
        t: long.length <= width ? long : 'Launch in progress: quit anyway (run not stopped)? y/n',
        c: 'warn',
        bold: true,
      },
    ];
  }
  if (ui.confirm?.kind === 'stop') return [{ t: `Stop run ${ui.confirm.runId}? y/n`, c: 'warn', bold: true }];
  if (ui.input?.kind === 'find' || ui.input?.kind === 'search') {
    const cancel = ui.input.kind === 'find' ? 'back' : 'cancel';
    const head = ui.input.kind === 'find' ? 'find key: ' : '/';
    const keys = `  ${keyLabel(commandBinding('input', 'input-accept')!)} keep · Ctrl-c ${cancel}`;
    return [{ t: head, c: 'accent', bold: true }, { t: `${ui.input.text}▏` }, { t: keys, c: 'dim' }];
  }
  // A key that did nothing says why, until the next key.
  if (ui.keyHint) return [{ t: ui.keyHint, c: 'warn' }];
  const l = state.launch;
  if (l.phase === 'launching') return [{ t: 'launching…', c: 'warn', bold: true }];
  if (state.notice && fresh.has(noticeKey(state.notice))) return [{ t: state.notice, c: 'warn' }];
  if (l.phase === 'launched' && fresh.has(`launched:${l.runId}:${l.message}`)) return [{ t: l.message, c: 'good' }];
  if (l.phase === 'failed' && fresh.has(`failed:${l.message}`)) return [{ t: `launch failed: ${l.message}`, c: 'bad' }];
  // Stands as long as the open run's log cannot be followed: after the passing messages, before hints.
  if (state.run?.followProblem) return [{ t: followProblemStatus(state.run.followProblem, width), c: 'bad' }];
  const leftovers = commandBinding('dashboard', 'leftovers')!;
  const o = `${keyLabel(leftovers)} ${leftovers.short}`;
  if (ui.screen === 'runs') {
    const sel = flatRuns(state.targets)[ui.runsCursor];
    if (sel && ENDED.has(sel.state))
      return [{ t: hint(`${sel.id} ${sel.state}: ${o}`, LEFTOVER_MORE, width), c: 'dim' }];
    return '';
  }
  const run = state.run?.summary;
  if (ui.screen === 'dashboard' && run && ENDED.has(run.state))
    return [{ t: hint(`run ${run.state}: ${o}`, LEFTOVER_MORE, width), c: 'dim' }];
  return '';
}

function preflightKey(state: SessionState): KeyContext['preflight'] {
  const p = state.preflight;
  if (!p || p.phase === 'idle') return 'none';
  if (p.phase === 'running') return 'running';
  return p.unskippable ? 'refused' : p.blocked ? 'blocked' : 'ok';
}

function historyStep(state: SessionState, ui: UiState, width: number, bodyH: number): number | null {
  if (!ui.history || !state.run) return null;
  const e = markedHistoryEntry(state.run.alertHistory ?? [], width, bodyH, ui.historyScroll);
  return e ? alertStep(e) : null;
}

/** What the key reducer needs to know about the session and the screen size. */
export function keyContext(state: SessionState, ui: UiState, size: Size): KeyContext {
  const runs = flatRuns(state.targets);
  const width = size.columns;
  const bodyH = Math.max(1, size.rows - 1) - 2;
  const lo = state.leftovers;
  return {
    runIds: runs.map((r) => r.id),
    endedRuns: new Set(runs.filter((r) => ENDED.has(r.state)).map((r) => r.id)),
    trainerLines: state.run?.trainerLines !== undefined,
    configRows: state.config?.rows ?? [],
    overrides: state.config?.overrides ?? [],
    launchInProgress: state.launch.phase === 'launching',
    configHasErrors: state.config?.hasErrors ?? false,
    page: Math.max(1, bodyH - 4),
    preflight: preflightKey(state),
    runSteps: state.run?.series.stepCount ?? 0,
    selectedRun: state.run ? { id: state.run.summary.id, ended: ENDED.has(state.run.summary.state) } : null,
    leftovers: lo
      ? { phase: lo.phase, tagged: lo.phase === 'found' ? lo.list.filter((l) => l.tagged).length : 0 }
      : undefined,
    helpScrollMax: helpScrollMax(width, bodyH, ui.screen === 'health'),
    historyScrollMax: ui.history || state.run ? alertHistoryScrollMax(state.run?.alertHistory ?? [], width, bodyH) : 0,
    historyStep: historyStep(state, ui, width, bodyH),
    launchBackend: state.config?.targetBackend ?? null,
    loginPrompt: state.loginPrompt !== undefined,
    trajectories: state.trajectories,
    argvScrollMax:
      ui.confirm?.kind === 'launch' && state.config ? argvScrollMax(state.config, width, state.preflight, bodyH) : 0,
  };
}

/** The log scroll with the lines that arrived since it was pinned (the lines being read stay put). */
export function pinnedScroll(state: SessionState, ui: UiState): number {
  if (ui.logScroll <= 0 || ui.logPin === null || !state.run) return ui.logScroll;
  return ui.logScroll + countAfter(logPaneShown(state.run, ui), ui.logPin);
}

/** The dashboard's panels depend on data, size and view options, never on the clock: kept. */
export class DashboardMemo {
  private key: unknown[] = [];
  private lines: Line[] = [];

  body(run: RunView | null, version: number, width: number, height: number, colors: boolean, ui: DashboardUi): Line[] {
    const key = [
      run,
      version,
      width,
      height,
      colors,
      ui.zoom,
      ui.showDifficulty,
      ui.rewardStep,
      ui.logAll,
      ui.logSearch,
      ui.logScroll,
      ui.logView,
      ui.trainerProblemsOnly,
      ui.logWrap,
      ui.smoothing,
      ui.timeAxis,
    ];
    if (key.length !== this.key.length || key.some((v, i) => v !== this.key[i])) {
      this.lines = dashboardBody(run, width, height, colors, ui);
      this.key = key;
    }
    return this.lines;
  }
}

export interface FrameOptions {
  colors: boolean;
  /** Transient status messages still fresh (StatusExpiry); all of them when not given. */
  fresh?: ReadonlySet<string>;
  memo?: DashboardMemo;
  /** Screenshots as kitty images (null/absent: half-blocks). */
  kitty?: KittyShots | null;
  /** How screenshots are drawn, said under each one (absent: half-blocks, unsaid). */
  drawing?: ShotDrawing;
}

/** The whole screen as lines: tab bar, screen, status line; never taller than rows-1. Pure. */
export function frame(ui: UiState, state: SessionState, size: Size, now: number, o: FrameOptions): Line[] {
  const width = size.columns;
  const height = Math.max(1, size.rows - 1);
  const bodyH = height - 2;
  if (width < MIN_COLUMNS || size.rows < MIN_ROWS) {
    const text = `Terminal too small (${width}×${size.rows}): awrl-tui needs at least ${MIN_COLUMNS}×${MIN_ROWS}. Enlarge it, or q to quit.`;
    return box(wrap(text, width, Math.min(height, 3)), width, Math.min(height, 3));
  }
  const logScroll = pinnedScroll(state, ui);
  const view = { ...ui, logScroll };
  let body: Line[];
  if (state.loginPrompt) body = loginPromptLines(state.loginPrompt, ui.loginText, width);
  else if (ui.help) body = helpLines(width, bodyH, ui.helpScroll, ui.screen === 'health');
  else if (ui.history)
    body = alertHistoryLines(
      state.run?.alertHistory ?? [],
      width,
      bodyH,
      ui.historyScroll,
      state.run?.alertHistoryDropped ?? 0,
    );
  else if (ui.confirm?.kind === 'launch' && state.config)
    body = confirmLaunchLines(state.config, width, state.preflight, bodyH, ui.argvScroll, ui.confirm.autoResume);
  else if (ui.confirm?.kind === 'leftovers') body = leftoverLines(state.leftovers, ui.confirm.runId, width);
  else if (ui.screen === 'dashboard') {
    const panels = (o.memo ?? new DashboardMemo()).body(state.run, state.version, width, bodyH - 2, o.colors, view);
    body = [...box(dashboardHeader(state.run, now, width), width, 2), ...panels];
  } else if (ui.screen === 'eval') {
    body = evalScreenLines(state.run, width, bodyH);
  } else if (ui.screen === 'health') {
    body = rlHealthLines(state.run?.rl, width, bodyH);
  } else if (ui.screen === 'trajectories') {
    body = state.selectedRunId
      ? trajectoriesLines(trajView(state.trajectories, ui.traj), {
          width,
          height: bodyH,
          colors: o.colors,
          kitty: o.kitty ?? null,
          ...(o.drawing ? { drawing: o.drawing } : {}),
        })
      : [[{ t: 'No run selected: pick one on the Runs screen (1).', c: 'dim' }]];
  } else if (ui.screen === 'log') {
    body = state.run ? logPaneLines(state.run, view, width, bodyH) : [[{ t: 'No run selected.', c: 'dim' }]];
  } else if (ui.screen === 'config') {
    const editing = ui.input?.kind === 'edit' ? { key: ui.input.key, text: ui.input.text } : null;
    const adding = ui.input?.kind === 'add' ? ui.input.text : null;
    const c = configLines(state.config, { cursor: ui.configCursor, editing, adding }, width, bodyH, state.preflight);
    body = c.right
      ? hstack(
          [
            { lines: c.left, width: c.leftWidth },
            { lines: c.right, width: width - c.leftWidth - 1 },
          ],
          bodyH,
        )
      : c.left;
  } else
    body = runsLines(
      withLiveRun(state.targets, state.run?.summary),
      ui.runsCursor,
      now,
      width,
      bodyH,
      state.baselineRunId ?? null,
    );
  const fresh = o.fresh ?? new Set(transientKeys(state));
  // Each part fitted once: the panels come fitted from the memo, the rows around them here.
  const status = clipLine(statusLine(state, ui, width, fresh), width);
  return [clipLine(tabBar(ui.screen, width), width), ...box(body, width, bodyH), status];
}

export interface CockpitOptions {
  session: Session;
  painter: Painter;
  size: Size;
  initialScreen?: ScreenId;
  colors: boolean;
  /** Links (the wandb URL) as OSC 8 hyperlinks: where hyperlinksSupported() says they pass. */
  hyperlinks?: boolean;
  /** How screenshots are drawn (src/images/detect.ts's choice); only kitty differs from half-blocks
   *  here: sixel and iTerm2 images are not cells, the painter's row writes would erase them. */
  images?: ImageChoice;
  /** Session changes are drawn at most once per this many ms (a burst of steps: one frame). */
  frameMs?: number;
  clock?: () => number;
  onQuit?: () => void;
}

/** What a screen shows, as the session's polling needs to know: the runs list, or the open run. */
const shows = (screen: UiState['screen']): 'runs' | 'run' => (screen === 'runs' ? 'runs' : 'run');

export class Cockpit {
  ui: UiState;
  private size: Size;
  private readonly expiry = new StatusExpiry();
  private readonly memo = new DashboardMemo();
  private pending: NodeJS.Timeout | null = null;
  /** When the last frame was drawn (performance.now()). */
  private paintedAt = Number.NEGATIVE_INFINITY;
  private ticker: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Frames painted (tests and the bench count them). */
  frames = 0;
  private readonly kitty: KittyShots | null;
  private readonly drawing: ShotDrawing;

  constructor(private readonly o: CockpitOptions) {
    this.ui = initialUiState(o.initialScreen ?? 'runs');
    this.size = o.size;
    this.kitty = o.images?.mode === 'kitty' && o.painter.raw ? new KittyShots(o.images.tmux) : null;
    this.drawing = shotDrawing(o.images, this.kitty !== null);
  }

  private now(): number {
    return (this.o.clock ?? Date.now)();
  }

  start(): void {
    // A change is drawn at once when the last frame is at least a frame old (a step after a quiet
    // spell shows without waiting a frame), else when it is: a burst of changes is one frame.
    this.unsubscribe = this.o.session.subscribe(() => {
      const frameMs = this.o.frameMs ?? 100;
      this.pending ??= setTimeout(
        () => {
          this.pending = null;
          this.paint();
        },
        Math.max(0, frameMs - (performance.now() - this.paintedAt)),
      );
    });
    // Clock-driven text (ages, elapsed, expiring messages): a frame a second; the painter writes
    // only the rows that changed, and the panels come from the memo.
    this.ticker = setInterval(() => this.paint(), 1000);
    this.ticker.unref?.();
    this.o.session.actions.showing?.(shows(this.ui.screen));
    this.paint();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.pending) clearTimeout(this.pending);
    if (this.ticker) clearInterval(this.ticker);
    this.pending = this.ticker = null;
    // The image shown goes with the cockpit: the terminal would keep it for the rest of its life.
    const images = this.kitty?.close();
    if (images) this.o.painter.raw?.(images);
  }

  resize(size: Size): void {
    if (size.columns === this.size.columns && size.rows === this.size.rows) return;
    this.size = size;
    this.paint();
  }

  /** The current frame (what paint() draws). */
  frame(): Line[] {
    const state = this.o.session.getState();
    const now = this.now();
    const fresh = this.expiry.note(transientKeys(state), now);
    return frame(this.ui, state, this.size, now, {
      colors: this.o.colors,
      fresh,
      memo: this.memo,
      kitty: this.kitty,
      drawing: this.drawing,
    });
  }

  /** The override `+` added, until the config view lists it and the cursor was put on it. */
  private addedOverride: string | null = null;

  private followAddedOverride(): void {
    const text = this.addedOverride;
    const config = this.o.session.getState().config;
    if (text === null || config?.overrides.at(-1) !== text) return;
    this.addedOverride = null;
    this.ui = { ...this.ui, configCursor: config.rows.length + config.overrides.length - 1 };
  }

  paint(): void {
    this.paintedAt = performance.now();
    this.followAddedOverride();
    this.frames++;
    this.kitty?.begin();
    const lines = this.frame().map((l) => lineToAnsi(l, this.o.colors, this.o.hyperlinks ?? false));
    const images = this.kitty?.end();
    if (images) this.o.painter.raw?.(images);
    this.o.painter.paint(lines, this.size.columns, this.size.rows);
  }

  /** One key press (a paste or tmux send-keys arrives as one chunk: fed key by key). */
  key(input: string, key: KeyInfo): void {
    // Someone is at the keyboard: failures on the status line were seen and may now go.
    this.expiry.acknowledge(this.now());
    const state = this.o.session.getState();
    const ctx = keyContext(state, this.ui, this.size);
    const plain = !key.ctrl && !key.meta && !key.return && !key.tab && !key.backspace && !key.delete;
    const chars = plain && input.length > 1 ? [...input] : [input];
    // The pinned scroll becomes the scroll, re-pinned below to the newest line now shown.
    let ui: UiState = { ...this.ui, logScroll: pinnedScroll(state, this.ui) };
    const effects: Effect[] = [];
    for (const ch of chars) {
      let k = key;
      if (chars.length > 1) {
        // Ink splits escape sequences but not plain runs: give Enter, Backspace and Tab inside a
        // chunk their meaning; drop other control characters.
        k =
          ch === '\r' || ch === '\n'
            ? { return: true }
            : ch === '\x7f' || ch === '\b'
              ? { backspace: true }
              : ch === '\t'
                ? { tab: true }
                : {};
        if (ch < ' ' && !k.return && !k.tab) continue;
      }
      const r = reduceKey(ui, ch, k, ctx);
      ui = r.state;
      effects.push(...r.effects);
    }
    const shown = ui.logScroll > 0 && state.run ? logPaneShown(state.run, ui) : null;
    const before = shows(this.ui.screen);
    this.ui = { ...ui, logPin: shown ? (shown.at(-1)?.seq ?? null) : null };
    this.run(effects);
    if (shows(this.ui.screen) !== before) this.o.session.actions.showing?.(shows(this.ui.screen));
    this.paint();
  }

  private run(effects: Effect[]): void {
    const a = this.o.session.actions;
    for (const e of effects) {
      if (e.kind === 'quit') this.o.onQuit?.();
      else if (e.kind === 'redraw') this.o.painter.invalidate?.();
      else {
        // A session action, by its name in SessionActions (an optional one the session may lack).
        const action = a[e.kind] as ((...args: unknown[]) => unknown) | undefined;
        const done = action?.apply(a, e.args);
        // The session reports failures in its state (the status line shows them): nothing to catch here.
        if (done instanceof Promise) done.catch(() => undefined);
        if (e.kind === 'addOverride') {
          // The new override goes last in the list (the editor drops an older one of its key):
          // the cursor goes to it, however far the list is from where it was (issue #32).
          this.addedOverride = e.args[0];
          this.followAddedOverride();
        }
      }
    }
  }
}
