/** @jsxRuntime classic */
// (classic JSX: vitest runs with NODE_ENV=production, where the automatic dev runtime has no jsxDEV)
// The Ink root, a thin shell: Ink owns raw mode, input parsing and the process lifecycle; the
// Cockpit controller (cockpit.ts) owns the state, the frame and the drawing (TerminalPainter).
import { useEffect, useState } from 'react';
import { useApp, useInput, useStdout } from 'ink';
import { Cockpit, type Painter, type Size } from './cockpit.js';
import type { ScreenId } from './keys.js';
import { TerminalPainter } from './painter.js';
import type { Session } from '../session/types.js';
import { colorsEnabled } from './theme.js';
import { hyperlinksSupported } from './hyperlink.js';
import type { ImageChoice } from '../images/detect.js';

export { MIN_COLUMNS, MIN_ROWS } from './cockpit.js';

export interface AppProps {
  session: Session;
  initialScreen?: ScreenId;
  /** Pin the size (tests, benchmarks); otherwise the terminal's, following resizes. */
  size?: Size;
  colors?: boolean;
  /** OSC 8 links (default: where this terminal is known to pass them). */
  hyperlinks?: boolean;
  /** How screenshots are drawn (src/images/detect.ts's choice; absent: half-blocks). */
  images?: ImageChoice;
  /** Frame interval for session updates (ms). */
  frameMs?: number;
  clock?: () => number;
  onQuit?: () => void;
  /** Where frames are drawn; by default a TerminalPainter on Ink's stdout. */
  painter?: Painter;
  /** The controller, once made (tests read its state and frame count). */
  onCockpit?: (c: Cockpit) => void;
}

export function App({
  session,
  initialScreen = 'runs',
  size: fixed,
  colors = colorsEnabled(),
  hyperlinks = hyperlinksSupported(process.env),
  images,
  frameMs = 100,
  clock,
  onQuit,
  painter,
  onCockpit,
}: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const read = (): Size => fixed ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const [cockpit] = useState(() => {
    const c = new Cockpit({
      session,
      painter: painter ?? new TerminalPainter(stdout),
      size: read(),
      initialScreen,
      colors,
      hyperlinks,
      ...(images ? { images } : {}),
      frameMs,
      clock,
      onQuit: () => {
        onQuit?.();
        exit();
      },
    });
    onCockpit?.(c);
    return c;
  });
  useEffect(() => {
    cockpit.start();
    const onResize = () => cockpit.resize(read());
    if (!fixed) stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
      cockpit.stop();
    };
  }, [cockpit]);
  useEffect(() => {
    if (fixed) cockpit.resize(fixed);
  }, [cockpit, fixed?.columns, fixed?.rows]);
  useInput((input, key) => cockpit.key(input, key));
  return null;
}
