/** @jsxRuntime classic */
// (classic JSX: vitest runs with NODE_ENV=production, where the automatic dev runtime has no jsxDEV)
// Panels are pure functions that return lines of styled segments; <Lines> draws them. Keeping the
// text out of React's tree makes a frame cheap (one <Text> per line) and makes panels trivially
// testable: a panel's output is plain data whose widths can be checked.
import React, { memo } from 'react';
import { Box, Text } from 'ink';
import { palette, type PaletteName } from './theme.js';

export interface Seg {
  t: string;
  c?: PaletteName;
  bold?: boolean;
  inverse?: boolean;
}

export type Line = string | Seg[];

export function lineText(line: Line): string {
  return typeof line === 'string' ? line : line.map((s) => s.t).join('');
}

/** Cut a line to `width` visible columns (segments are plain text; chart lines may hold SGR codes). */
export function clipLine(line: Line, width: number): Line {
  if (typeof line === 'string') return clipString(line, width);
  const out: Seg[] = [];
  let left = width;
  for (const s of line) {
    if (left <= 0) break;
    const t = clipString(s.t, left);
    out.push({ ...s, t });
    left -= visibleLength(t);
  }
  return out;
}

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

export function visibleLength(s: string): number {
  return s.includes('\x1b') ? s.replace(SGR, '').length : s.length;
}

function clipString(s: string, width: number): string {
  if (width <= 0) return '';
  if (!s.includes('\x1b')) return s.length <= width ? s : s.slice(0, width);
  // Walk keeping escapes, counting only visible characters.
  let out = '';
  let seen = 0;
  for (let i = 0; i < s.length; ) {
    if (s[i] === '\x1b') {
      const m = /^\x1b\[[0-9;]*m/.exec(s.slice(i));
      if (m) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (seen >= width) break;
    out += s[i];
    seen++;
    i++;
  }
  return out + '\x1b[0m';
}

/** Exactly `height` lines (cut or padded), each cut to `width`. */
export function frame(lines: Line[], width: number, height: number): Line[] {
  const out = lines.slice(0, Math.max(0, height)).map((l) => clipLine(l, width));
  while (out.length < height) out.push('');
  return out;
}

/** A section title that fills the width: "─ Reward ─────── step 120". */
export function titleLine(title: string, width: number, right = ''): Line {
  const head = `─ ${title} `;
  const tail = right ? ` ${right} ─` : '';
  const fill = Math.max(0, width - head.length - tail.length);
  return [{ t: head, c: 'title', bold: true }, { t: '─'.repeat(fill), c: 'dim' }, { t: tail, c: 'dim' }];
}

interface LinesProps {
  lines: Line[];
  width: number;
  height: number;
  colors: boolean;
}

function LinesImpl({ lines, width, height, colors }: LinesProps) {
  const shown = frame(lines, width, height);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate">
          {typeof l === 'string'
            ? l || ' '
            : l.map((s, j) => (
                <Text
                  key={j}
                  color={colors && s.c ? palette[s.c] : undefined}
                  bold={s.bold}
                  inverse={s.inverse}
                >
                  {s.t}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

export const Lines = memo(LinesImpl);
