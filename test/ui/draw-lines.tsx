// A panel's lines painted on a terminal (@xterm/headless) as a user sees them (no colours), checked
// to stay inside the box they were given: the shared first assertion of every panel test.
import { expect } from 'vitest';
import type { Line } from '../../src/ui/lines.js';
import { paintLines } from './helpers.js';

export function drawLines(lines: Line[], width: number, height: number): string {
  const screen = paintLines(lines, width, height);
  const f = screen.text();
  // Nothing ran over: the row below the box (the painter's last, never drawn) is still blank.
  expect(screen.lines()[height]).toBe('');
  screen.dispose();
  expect(f.split('\n').length).toBeLessThanOrEqual(height);
  return f;
}
