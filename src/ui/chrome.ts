// The cockpit's frame around the screens (tab bar), and the splash: the first frame, painted
// before Ink, React and the session's modules load (~1-2 s on a busy machine), so the cockpit
// appears at once. Light on purpose: no Ink, no React, no config engine.
import { colorsEnabled } from './theme.js';
import { SCREENS, SCREEN_TITLES, type ScreenId } from './keys.js';
import { lineToAnsi } from './ansi.js';
import type { Line, Seg } from './line-types.js';
import { TerminalPainter } from './painter.js';

export function tabBar(screen: ScreenId, width: number): Line {
  const tabs = (gap: string) =>
    SCREENS.flatMap((s, i): Seg[] => [
      { t: ` ${i + 1} ${SCREEN_TITLES[s]} `, inverse: s === screen, bold: s === screen },
      { t: gap },
    ]);
  const width0 = (segs: Seg[]) => segs.reduce((n, s) => n + s.t.length, 0);
  // Narrow (80 columns): the tabs close up and keep `? help` in sight.
  const wide = tabs(' ');
  const segs = width - width0(wide) > 14 ? wide : tabs('');
  const used = width0(segs);
  const right = width - used > 14 ? '? help  q quit' : '? help';
  if (width - used > right.length) segs.push({ t: ' '.repeat(width - used - right.length) + right, c: 'dim' });
  return segs;
}

function cutSegs(segs: Seg[], width: number): Seg[] {
  const out: Seg[] = [];
  let left = width;
  for (const s of segs) {
    if (left <= 0) break;
    out.push({ ...s, t: s.t.slice(0, left) });
    left -= s.t.length;
  }
  return out;
}

export const ENTER_ALT = '\x1b[?1049h\x1b[H';
export const LEAVE_ALT = '\x1b[?1049l';
export const SHOW_CURSOR = '\x1b[?25h';

export interface Splash {
  painter: TerminalPainter;
  /** Say what is happening (connecting, launching…). */
  status(message: string): void;
  /** Leave the alternate screen (when the cockpit will not open after all). */
  close(): void;
  readonly closed: boolean;
}

/** Enter the alternate screen and paint the first frame at once. */
export function openSplash(
  stdout: NodeJS.WriteStream = process.stdout,
  screen: ScreenId = 'runs',
  message = 'starting…',
): Splash {
  const colors = colorsEnabled();
  const painter = new TerminalPainter(stdout);
  let closed = false;
  const paint = (msg: string) => {
    if (closed) return;
    const width = stdout.columns || 80;
    const rows = stdout.rows || 24;
    // ASCII only, cut by length: the width machinery (lines.ts) is not loaded yet.
    const cut = (l: Line): Line => (typeof l === 'string' ? l.slice(0, width) : cutSegs(l, width));
    const blank = Array.from({ length: Math.max(0, rows - 3) }, () => '');
    const lines: Line[] = [cut(tabBar(screen, width)), ...blank, cut([{ t: msg, c: 'dim' }])];
    painter.paint(
      lines.map((l) => lineToAnsi(l, colors)),
      width,
      rows,
    );
  };
  stdout.write(ENTER_ALT);
  paint(message);
  return {
    painter,
    status: paint,
    close() {
      if (closed) return;
      closed = true;
      stdout.write(SHOW_CURSOR + LEAVE_ALT);
    },
    get closed() {
      return closed;
    },
  };
}
