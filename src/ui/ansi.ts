// Lines to SGR text, with no dependency on the width machinery (text-width.ts loads string-width
// and slice-ansi, ~100 ms on a busy box): the splash paints its first frame with this alone.
import type { Line, Seg } from './line-types.js';
import { palette, type PaletteName } from './theme.js';
import { osc8 } from './hyperlink.js';

const SGR_COLOR: Record<PaletteName, string> = {
  accent: '36',
  good: '32',
  warn: '33',
  bad: '31',
  dim: '90',
  title: '34',
};

const ansiCache = { colors: new WeakMap<Seg[], string>(), plain: new WeakMap<Seg[], string>() };

/** One line as text with SGR codes (none when colours are off; bold and inverse are kept); a
 *  segment's link as an OSC 8 hyperlink when `links` (the terminal makes them links), else plain. */
export function lineToAnsi(line: Line, colors: boolean, links = false): string {
  if (typeof line === 'string') return line;
  if (links && line.some((s) => s.link)) return segsToAnsi(line, colors, true);
  // A kept line (the dashboard's panels between steps) is converted once.
  const cache = colors ? ansiCache.colors : ansiCache.plain;
  const known = cache.get(line);
  if (known !== undefined) return known;
  const out = segsToAnsi(line, colors);
  cache.set(line, out);
  return out;
}

/** 0xRRGGBB as SGR's `r;g;b`. */
const rgb = (n: number) => `${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;

function segsToAnsi(line: Seg[], colors: boolean, links = false): string {
  let out = '';
  for (const s of line) {
    if (!s.t) continue;
    const on: string[] = [];
    if (colors && s.fg !== undefined) on.push(`38;2;${rgb(s.fg)}`);
    else if (colors && s.c) on.push(SGR_COLOR[palette[s.c] ? s.c : 'dim']);
    if (colors && s.bg !== undefined) on.push(`48;2;${rgb(s.bg)}`);
    if (s.bold) on.push('1');
    if (s.inverse) on.push('7');
    const t = links && s.link ? osc8(s.link, s.t) : s.t;
    out += on.length ? `\x1b[${on.join(';')}m${t}\x1b[0m` : t;
  }
  return out;
}
