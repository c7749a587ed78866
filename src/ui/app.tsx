/** @jsxRuntime classic */
// (classic JSX: vitest runs with NODE_ENV=production, where the automatic dev runtime has no jsxDEV)
// The cockpit's root: tab bar, one screen, status line. Reads the session through a frame-bounded
// hook, turns keys into effects with the pure reducer in ui-state.ts, never draws more than
// rows-1 lines (Ink clears the whole screen, i.e. flickers, when a frame reaches the last row).
import React, { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useApp, useInput } from 'ink';
import { useNow } from './hooks/use-now.js';
import { useSessionState } from './hooks/use-session.js';
import { useTerminalSize, type Size } from './hooks/use-terminal-size.js';
import { type ScreenId } from './keys.js';
import { frame, hstack, lineText, lineToAnsi, type Line, type Seg } from './lines.js';
import { Lines } from './lines-view.js';
import { formatAge, wrap } from './format.js';
import type { TerminalPainter } from './painter.js';
import { tabBar } from './chrome.js';
import { connectionText, followProblemStatus, headerLines } from './panels/header.js';
import { countAfter, logPaneLines, logPaneShown } from './panels/log.js';
import { argvScrollMax, configLines, confirmLaunchLines } from './screens/config.js';
import { dashboardBody, dashboardHeader } from './screens/dashboard.js';
import { helpLines, helpScrollMax } from './screens/help.js';
import { alertHistoryLines, alertHistoryScrollMax } from './screens/alert-history.js';
import { leftoverLines } from './screens/leftovers.js';
import { flatRuns, runsLines, withLiveRun } from './screens/runs.js';
import { ENDED_STATES as ENDED, type Session, type SessionState } from './session/types.js';
import { initialUiState, reduceKey, type Effect, type KeyContext, type KeyInfo, type UiState } from './ui-state.js';
import { colorsEnabled } from './theme.js';
import { StatusExpiry, noticeKey, transientKeys } from './status-expiry.js';

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

export interface AppProps {
  session: Session;
  initialScreen?: ScreenId;
  /** Pin the size (tests, benchmarks); otherwise the terminal's, following resizes. */
  size?: Size;
  colors?: boolean;
  /** Frame interval for session updates (ms). */
  frameMs?: number;
  clock?: () => number;
  onQuit?: () => void;
  /** Draw through this painter (a real terminal) instead of Ink's renderer. */
  painter?: TerminalPainter;
}

/** `text` plus `more` when the whole fits in `width`, else `text` alone (hints say their key whole). */
function hint(text: string, more: string, width: number): string {
  return text.length + more.length <= width ? text + more : text;
}

const LEFTOVER_MORE = ' (tagged with the run or holding GPU memory)';

/** `fresh`: the transient messages (notice, launch result) still young enough to show. */
function statusLine(state: SessionState, ui: UiState, width: number, fresh: ReadonlySet<string>): Line {
  if (ui.confirm?.kind === 'quit') {
    const long = 'A launch is in progress. Quit the cockpit anyway (the run is not stopped)? y/n';
    return [{ t: long.length <= width ? long : 'Launch in progress: quit anyway (run not stopped)? y/n', c: 'warn', bold: true }];
  }
  if (ui.confirm?.kind === 'stop') return [{ t: `Stop run ${ui.confirm.runId}? y/n`, c: 'warn', bold: true }];
  if (ui.input?.kind === 'find') return [{ t: 'find key: ', c: 'accent', bold: true }, { t: `${ui.input.text}▏` }, { t: '  Enter keep · Ctrl-c back', c: 'dim' }];
  if (ui.input?.kind === 'search') return [{ t: '/', c: 'accent', bold: true }, { t: `${ui.input.text}▏` }, { t: '  Enter keep · Ctrl-c cancel', c: 'dim' }];
  const l = state.launch;
  if (l.phase === 'launching') return [{ t: 'launching…', c: 'warn', bold: true }];
  if (state.notice && fresh.has(noticeKey(state.notice))) return [{ t: state.notice, c: 'warn' }];
  if (l.phase === 'launched' && fresh.has(`launched:${l.runId}:${l.message}`)) return [{ t: l.message, c: 'good' }];
  if (l.phase === 'failed' && fresh.has(`failed:${l.message}`)) return [{ t: `launch failed: ${l.message}`, c: 'bad' }];
  // Stands as long as the open run's log cannot be followed: after the passing messages, before hints.
  if (state.run?.followProblem) return [{ t: followProblemStatus(state.run.followProblem, width), c: 'bad' }];
  if (ui.screen === 'runs') {
    const sel = flatRuns(state.targets)[ui.runsCursor];
    if (sel && ENDED.has(sel.state)) return [{ t: hint(`${sel.id} ${sel.state}: o checks for leftover processes`, LEFTOVER_MORE, width), c: 'dim' }];
    return '';
  }
  const run = state.run?.summary;
  if (ui.screen === 'dashboard' && run && ENDED.has(run.state)) return [{ t: hint(`run ${run.state}: o checks for leftover processes`, LEFTOVER_MORE, width), c: 'dim' }];
  return '';
}

function keyContext(state: SessionState, page: number): KeyContext {
  const runs = flatRuns(state.targets);
  return {
    runIds: runs.map((r) => r.id),
    endedRuns: new Set(runs.filter((r) => ENDED.has(r.state)).map((r) => r.id)),
    trainerLines: state.run?.trainerLines !== undefined,
    configRows: state.config?.rows ?? [],
    launchInProgress: state.launch.phase === 'launching',
    configHasErrors: state.config?.hasErrors ?? false,
    page,
    preflight: preflightKey(state),
    selectedRun: state.run ? { id: state.run.summary.id, ended: ENDED.has(state.run.summary.state) } : null,
    leftovers: state.leftovers
      ? { phase: state.leftovers.phase, tagged: state.leftovers.phase === 'found' ? state.leftovers.list.filter((l) => l.tagged).length : 0 }
      : undefined,
  };
}

function preflightKey(state: SessionState): KeyContext['preflight'] {
  const p = state.preflight;
  if (!p || p.phase === 'idle') return 'none';
  if (p.phase === 'running') return 'running';
  return p.blocked ? 'blocked' : 'ok';
}

export function App({ session, initialScreen = 'runs', size: fixedSize, colors = colorsEnabled(), frameMs = 100, clock = Date.now, onQuit, painter }: AppProps) {
  const state = useSessionState(session, frameMs);
  const size = useTerminalSize(fixedSize);
  const [ui, setUi] = useState(() => initialUiState(initialScreen));
  const uiRef = useRef(ui);
  uiRef.current = ui;
  const { exit } = useApp();
  const width = size.columns;
  const height = Math.max(1, size.rows - 1);
  const bodyH = height - 2;
  // Transient messages: when each was first shown (they go after STATUS_TTL_MS; the clock below
  // re-renders when one expires, so no timer per message).
  const expiry = useRef<StatusExpiry | null>(null);
  expiry.current ??= new StatusExpiry();
  const transient = transientKeys(state);
  const fresh = expiry.current.note(transient, clock());
  const clockActive = ui.screen === 'runs' || (ui.screen === 'dashboard' && state.run !== null) || fresh.size > 0;
  // Only the clock-driven text decides when the clock re-renders (see useNow).
  const clockKey = (t: number): string => expiry.current!.fresh(transient, t).join('|') + '#' + screenClockKey(t);
  const screenClockKey = (t: number): string => {
    if (ui.screen === 'dashboard' && state.run) {
      const r = state.run;
      return lineText(headerLines({ runId: r.summary.id, target: r.summary.target, connection: r.connection, connectionAt: r.connectionAt, runState: r.summary.state, figures: r.figures, now: t })[1]) + lineText(headerLines({ runId: '', target: '', connection: r.connection, connectionAt: r.connectionAt, runState: r.summary.state, figures: r.figures, now: t })[0]);
    }
    return flatRuns(withLiveRun(state.targets, state.run?.summary))
      .map((r) => (r.lastStepAt === null ? '' : formatAge((t - r.lastStepAt) / 1000)))
      .join('|') + state.targets.map((x) => lineText([connectionText(x.connection)])).join('|');
  };
  const now = useNow(clockActive, clockKey, 1000, clock);

  const run = useCallback(
    (effects: Effect[]) => {
      const a = session.actions;
      for (const e of effects) {
        switch (e.kind) {
          case 'quit':
            onQuit?.();
            exit();
            break;
          case 'selectRun':
            a.selectRun(e.runId);
            break;
          case 'refresh':
            a.refreshRuns();
            break;
          case 'stop':
            void a.stopRun(e.runId).catch(() => {});
            break;
          case 'draft':
            a.setDraft(e.draft);
            break;
          case 'setValue':
            a.setValue(e.key, e.text);
            break;
          case 'addOverride':
            a.addOverride(e.text);
            break;
          case 'removeOverride':
            a.removeOverride(e.index);
            break;
          case 'launch':
            void a.launch(e.skipPreflight ? { skipPreflight: true } : undefined).catch(() => {});
            break;
          case 'preflight':
            void a.runPreflight().catch(() => {});
            break;
          case 'checkLeftovers':
            void a.checkLeftovers(e.runId).catch(() => {});
            break;
          case 'stopLeftovers':
            void a.stopLeftovers(e.runId).catch(() => {});
            break;
        }
      }
    },
    [session, exit, onQuit],
  );

  // A log pane scrolled back stays on the lines being read: the scroll is counted from the newest
  // line, so each line that arrives adds one to it (`pin`: the newest line when the user scrolled).
  const pin = useRef<number | null>(null);
  const pinnedScroll = (st: SessionState, u: UiState): number => {
    if (u.logScroll <= 0 || pin.current === null || !st.run) return u.logScroll;
    return u.logScroll + countAfter(logPaneShown(st.run, u), pin.current);
  };

  useInput((input, key) => {
    // Someone is at the keyboard: failures on the status line were seen and may now go.
    expiry.current!.acknowledge(clock());
    const st = session.getState();
    const ctx = {
      ...keyContext(st, Math.max(1, bodyH - 4)),
      helpScrollMax: helpScrollMax(width, bodyH),
      historyScrollMax: uiRef.current.history || st.run ? alertHistoryScrollMax(st.run?.alertHistory ?? [], width, bodyH) : 0,
      argvScrollMax: uiRef.current.confirm?.kind === 'launch' && st.config ? argvScrollMax(st.config, width, st.preflight, bodyH) : 0,
    };
    // Fast typing and pastes (and tmux send-keys) arrive as one chunk: feed it key by key, so
    // "/seed" opens the finder and then types "seed". Control characters are never text.
    const plain = !key.ctrl && !key.meta && !key.return && !key.tab && !key.backspace && !key.delete;
    const chars = plain && input.length > 1 ? [...input] : [input];
    const current = session.getState();
    const scroll = pinnedScroll(current, uiRef.current);
    let state = scroll === uiRef.current.logScroll ? uiRef.current : { ...uiRef.current, logScroll: scroll };
    const effects: Effect[] = [];
    for (const ch of chars) {
      let k = key as KeyInfo;
      if (chars.length > 1) {
        // Ink splits escape sequences but not plain runs: give Enter, Backspace and Tab inside a
        // chunk their meaning; drop other control characters.
        k = ch === '\r' || ch === '\n' ? { return: true } : ch === '\x7f' || ch === '\b' ? { backspace: true } : ch === '\t' ? { tab: true } : {};
        if (ch < ' ' && !k.return && !k.tab) continue;
      }
      const result = reduceKey(state, ch, k, ctx);
      state = result.state;
      effects.push(...result.effects);
    }
    const shown = state.logScroll > 0 && current.run ? logPaneShown(current.run, state) : null;
    pin.current = shown ? (shown.at(-1)?.seq ?? null) : null;
    if (state !== uiRef.current) {
      uiRef.current = state;
      setUi(state);
    }
    if (effects.length) run(effects);
  });

  const logScroll = pinnedScroll(state, ui);
  const dashUi = useMemo(
    () => ({ zoom: ui.zoom, showDifficulty: ui.showDifficulty, logAll: ui.logAll, logSearch: ui.logSearch, logScroll, logView: ui.logView, trainerProblemsOnly: ui.trainerProblemsOnly, logWrap: ui.logWrap }),
    [ui.zoom, ui.showDifficulty, ui.logAll, ui.logSearch, logScroll, ui.logView, ui.trainerProblemsOnly, ui.logWrap],
  );
  const tooSmall = width < MIN_COLUMNS || size.rows < MIN_ROWS;
  // The expensive part (panels, charts) depends on data, size and view options, never on the clock.
  const dashboard = useMemo(
    () => (ui.screen === 'dashboard' && !ui.help && !ui.history && !tooSmall ? dashboardBody(state.run, width, bodyH - 2, colors, dashUi) : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [ui.screen, ui.help, ui.history, tooSmall, state.run, state.version, width, bodyH, colors, dashUi],
  );

  let body: Line[];
  if (ui.help) body = helpLines(width, bodyH, ui.helpScroll);
  else if (ui.history) body = alertHistoryLines(state.run?.alertHistory ?? [], width, bodyH, ui.historyScroll, state.run?.alertHistoryDropped ?? 0);
  // The session's current pre-flight/leftover phase, not the frame-sampled one: the key that opened
  // the dialog started a new check, and the previous result must not show for a frame as if current.
  else if (ui.confirm?.kind === 'launch' && state.config) body = confirmLaunchLines(state.config, width, session.getState().preflight, bodyH, ui.argvScroll);
  else if (ui.confirm?.kind === 'leftovers') body = leftoverLines(session.getState().leftovers, ui.confirm.runId, width);
  else if (ui.screen === 'dashboard') body = [...frame(dashboardHeader(state.run, now, width), width, 2), ...(dashboard ?? [])];
  else if (ui.screen === 'log') {
    body = state.run ? logPaneLines(state.run, { ...ui, logScroll }, width, bodyH) : [[{ t: 'No run selected.', c: 'dim' }]];
  } else if (ui.screen === 'config') {
    const editing = ui.input?.kind === 'edit' ? { key: ui.input.key, text: ui.input.text } : null;
    const adding = ui.input?.kind === 'add' ? ui.input.text : null;
    const c = configLines(state.config, { cursor: ui.configCursor, editing, adding }, width, bodyH, state.preflight);
    body = c.right ? hstack([{ lines: c.left, width: c.leftWidth }, { lines: c.right, width: width - c.leftWidth - 1 }], bodyH) : c.left;
  } else body = runsLines(withLiveRun(state.targets, state.run?.summary), ui.runsCursor, now, width, bodyH);

  const lines: Line[] = tooSmall
    ? wrapPlain(`Terminal too small (${width}×${size.rows}): awrl-tui needs at least ${MIN_COLUMNS}×${MIN_ROWS}. Enlarge it, or q to quit.`, width, Math.min(height, 3))
    : [tabBar(ui.screen, width), ...frame(body, width, bodyH), statusLine(state, ui, width, fresh)];

  // In a real terminal the painter draws; under test (or without one) Ink draws the same lines.
  useEffect(() => {
    if (painter) painter.paint(frame(lines, width, height).map((l) => lineToAnsi(l, colors)), width, size.rows);
  });
  if (painter) return null;
  return <Lines lines={lines} width={width} height={tooSmall ? Math.min(height, 3) : height} colors={colors} />;
}

function wrapPlain(text: string, width: number, height: number): Line[] {
  return wrap(text, width, height);
}
