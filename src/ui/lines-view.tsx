/** @jsxRuntime classic */
// (classic JSX: vitest runs with NODE_ENV=production, where the automatic dev runtime has no jsxDEV)
// <Lines>: a block of pre-composed lines drawn by Ink (tests, and terminals without the painter).
import React, { memo, useMemo } from 'react';
import { Box, Text, Transform } from 'ink';
import { frame, lineToAnsi, type Line } from './lines.js';

export interface LinesProps {
  lines: Line[];
  width: number;
  height: number;
  colors: boolean;
}

// One text node per panel, and a constant one: Ink measures a <Text> by its content and caches
// every measured string forever (a module-level Map), which over days of changing numbers is
// unbounded growth. So the node holds a blank block of the panel's size (one cache entry per size)
// and <Transform> swaps in the real, pre-styled lines at output time. Widths are guaranteed by
// frame(), so no Box clips (Ink's clipping slices every line of every frame).
function LinesImpl({ lines, width, height, colors }: LinesProps) {
  const blank = useMemo(() => Array.from({ length: Math.max(0, height) }, () => ' '.repeat(Math.max(0, width))).join('\n'), [width, height]);
  const painted = frame(lines, width, height).map((l) => lineToAnsi(l, colors));
  if (width <= 0 || height <= 0) return null;
  return (
    <Box width={width} height={height}>
      <Transform transform={(_line, index) => painted[index] ?? ''}>
        <Text>{blank}</Text>
      </Transform>
    </Box>
  );
}

export const Lines = memo(LinesImpl);
