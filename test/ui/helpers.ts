// Rendering helpers for the cockpit's component tests: frames are what a user sees, and every
// wait is a poll for a condition with a timeout (never a fixed sleep).
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';

export type Rendered = ReturnType<typeof render>;

export function renderInk(el: ReactElement): Rendered {
  return render(el);
}

/** Frames without SGR codes: bold and inverse stay on even under NO_COLOR, tests read the text. */
export function stripSgr(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

export async function waitForFrame(r: Rendered, pred: (frame: string) => boolean, what = 'frame', timeoutMs = 3000): Promise<string> {
  const start = Date.now();
  for (;;) {
    const f = stripSgr(r.lastFrame() ?? '');
    if (pred(f)) return f;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** Every line of a frame fits the width (visible characters: colours are off in these tests). */
export function maxLineWidth(frame: string): number {
  return Math.max(0, ...frame.split('\n').map((l) => [...l.replace(/\x1b\[[0-9;]*m/g, '')].length));
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
