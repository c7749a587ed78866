/** @jsxRuntime classic */
// (classic JSX: vitest runs with NODE_ENV=production, where the automatic dev runtime has no jsxDEV)
// Mounting the cockpit on a real terminal: alternate screen, bounded frame rate, and the terminal
// restored on every way out (quit, signal, crash). Loaded lazily by index.ts so that React is
// imported only after NODE_ENV is settled.
import React from 'react';
import { render } from 'ink';
import { App } from './app.js';
import { TerminalPainter } from './painter.js';
import { ENTER_ALT, LEAVE_ALT, SHOW_CURSOR, type Splash } from './chrome.js';
import type { ScreenId } from './keys.js';
import type { Session } from '../session/types.js';
import type { ImageChoice } from '../images/detect.js';

export interface RenderCockpitOptions {
  session: Session;
  /** The splash already on screen (alternate screen entered, first frame painted). */
  splash?: Splash;
  initialScreen?: ScreenId;
  images?: ImageChoice;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

export async function renderCockpit(o: RenderCockpitOptions): Promise<void> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const stderr = o.stderr ?? process.stderr;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // stdin already closed: nothing to restore.
    }
    if (o.splash) o.splash.close();
    else stdout.write(SHOW_CURSOR + LEAVE_ALT);
  };
  // A crash must not leave the user's terminal in raw mode on the alternate screen.
  const onCrash = (err: unknown) => {
    instance.unmount();
    restore();
    stderr.write(`awrl-tui: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(70);
  };
  // A caller that handles the signal itself (--demo: stop its simulated run, remove its temp dir)
  // must get to finish: then the cockpit only closes and leaves the exit to it. Counted before Ink
  // mounts, since Ink's own exit hooks listen to signals too.
  const callerHandles = { SIGTERM: process.listenerCount('SIGTERM') > 0, SIGHUP: process.listenerCount('SIGHUP') > 0 };
  const onSignal = (signal: NodeJS.Signals) => {
    // SIGHUP: the terminal is gone; writes to it fail with EIO, which must not crash the clean-up.
    if (signal === 'SIGHUP') stdout.on('error', () => undefined);
    instance.unmount();
    restore();
    if (signal === 'SIGHUP' ? callerHandles.SIGHUP : callerHandles.SIGTERM) return;
    process.exit(128 + (signal === 'SIGHUP' ? 1 : 15));
  };
  if (!o.splash || o.splash.closed) stdout.write(ENTER_ALT);
  const painter = o.splash && !o.splash.closed ? o.splash.painter : new TerminalPainter(stdout);
  const instance = render(
    <App session={o.session} initialScreen={o.initialScreen} painter={painter} images={o.images} />,
    {
      stdin,
      stdout,
      stderr,
      exitOnCtrlC: false,
      patchConsole: true,
      maxFps: 10,
      incrementalRendering: false,
    },
  );
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    instance.cleanup();
    restore();
  }
}
