/** @jsxRuntime classic */
// A panel's lines drawn through Ink as a user sees them (no colours), checked to stay inside the
// box they were given: the shared first assertion of every panel test.
import React from 'react';
import { expect } from 'vitest';
import type { Line } from '../../src/ui/lines.js';
import { Lines } from '../../src/ui/lines-view.js';
import { maxLineWidth, renderInk, stripSgr } from './helpers.js';

export function drawLines(lines: Line[], width: number, height: number): string {
  const r = renderInk(<Lines lines={lines} width={width} height={height} colors={false} />);
  const f = stripSgr(r.lastFrame() ?? '');
  r.unmount();
  expect(maxLineWidth(f)).toBeLessThanOrEqual(width);
  expect(f.split('\n').length).toBeLessThanOrEqual(height);
  return f;
}
