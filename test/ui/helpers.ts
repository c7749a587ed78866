// Rendering helpers for the cockpit's component tests: frames are what a user sees (the terminal's
// buffer after the painter's bytes, @xterm/headless), and every wait is a poll for a condition
// with a timeout (never a fixed sleep).
import { render } from 'ink-testing-library';
import { cloneElement, type ReactElement } from 'react';
import { App, type AppProps } from '../../src/ui/app.js';
import type { Cockpit } from '../../src/ui/cockpit.js';
import { frame, lineToAnsi, type Line } from '../../src/ui/lines.js';
import { TerminalPainter } from '../../src/ui/painter.js';
import { textCells } from '../../src/ui/text-width.js';
import { XtermScreen } from './xterm-screen.js';

export interface Rendered {
  /** The terminal's screen as text (trailing blanks trimmed). */
  lastFrame(): string;
  stdin: { write(data: string): void };
  unmount(): void;
  /** The terminal the painter drew on (cells, colours, bytes written). */
  screen: XtermScreen;
  /** The controller behind the shell. */
  readonly cockpit: Cockpit;
}

/** Mount the cockpit (an <App>): Ink feeds it keys, its painter draws on an in-process terminal. */
export function renderInk(el: ReactElement<AppProps>): Rendered {
  if (el.type !== App) throw new Error('renderInk renders the cockpit (<App>); panels: paintLines()');
  const size = el.props.size ?? { columns: 100, rows: 30 };
  const screen = new XtermScreen(size.columns, size.rows);
  let cockpit: Cockpit | null = null;
  const r = render(
    cloneElement(el, { painter: new TerminalPainter(screen), onCockpit: (c: Cockpit) => (cockpit = c) }),
  );
  return {
    lastFrame: () => screen.text(),
    stdin: r.stdin,
    unmount: () => {
      r.unmount();
      screen.dispose();
    },
    screen,
    get cockpit() {
      return cockpit!;
    },
  };
}

/** Lines painted on a terminal of `width`×`height+1` and read back at once: what a person sees. */
export function paintLines(lines: Line[], width: number, height: number, colors = false): XtermScreen {
  const screen = new XtermScreen(width, height + 1);
  const painter = new TerminalPainter({ write: (s: string) => screen.writeNow(s) });
  painter.paint(
    frame(lines, width, height).map((l) => lineToAnsi(l, colors)),
    width,
    height + 1,
  );
  return screen;
}

/** Frames without SGR codes: bold and inverse stay on even under NO_COLOR, tests read the text. */
export function stripSgr(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

export async function waitForFrame(
  r: Rendered,
  pred: (frame: string) => boolean,
  what = 'frame',
  timeoutMs = 3000,
): Promise<string> {
  const start = Date.now();
  for (;;) {
    await r.screen.settled();
    const f = r.lastFrame();
    if (pred(f)) return f;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** Every line of a frame fits the width (cells, as the terminal counts them). */
export function maxLineWidth(frame: string): number {
  return Math.max(0, ...frame.split('\n').map((l) => textCells(l)));
}

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  tab: '\t',
  backspace: '\u007F',
  ctrlC: '\u0003',
  ctrlG: '\u0007',
};
