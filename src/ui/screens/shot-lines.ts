// A step's screenshot as lines of the cockpit: half-block cells (`▀`, the upper pixel as foreground,
// the lower as background, 24-bit), one Seg per run of a colour pair, the click marked.
//
// Half-blocks unless the terminal has kitty graphics (kitty-shots.ts: its Unicode placeholders are
// text cells too, the image sent once beside the frame). sixel and iTerm2 stay half-blocks here: the
// cockpit draws through one TerminalPainter that rewrites the rows that changed and clears each
// row's end, and those images are not cells, so the row writes would erase or overdraw them.
// Half-blocks are cells like any text: they scroll, diff and survive tmux. `episodes --show` uses
// sixel and iTerm2.
//
// Decoding and scaling a 1280×768 PNG takes tens of ms: the lines are kept (a few, least recently
// used go first) by path, byte size, cell box and click, so frames between keys cost nothing.
import type { ImageChoice } from '../../images/detect.js';
import { shotCells } from '../../images/render.js';
import type { Line } from '../lines.js';

/** How the cockpit draws screenshots, and the words under each one that say so (and why). */
export interface ShotDrawing {
  draw: 'kitty' | 'blocks' | 'none';
  note: string;
}

/** The cockpit's drawing for the terminal's choice (detect.ts); `kitty`: kitty images can be sent
 *  here (the painter writes raw bytes). sixel and iTerm2 fall back to cells, and say where they draw. */
export function shotDrawing(choice: ImageChoice | undefined, kitty: boolean): ShotDrawing {
  if (!choice) return { draw: 'blocks', note: 'half-block cells' };
  const via = choice.tmux ? ' through tmux' : '';
  if (choice.mode === 'none') return { draw: 'none', note: `images off (${choice.why})` };
  if (choice.mode === 'kitty' && kitty) return { draw: 'kitty', note: `kitty graphics${via} (${choice.why})` };
  if (choice.mode === 'sixel' || choice.mode === 'iterm') {
    const name = choice.mode === 'sixel' ? 'sixel' : 'iTerm2 images';
    return { draw: 'blocks', note: `half-block cells (${name} here: awrl-tui episodes --show)` };
  }
  // detect.ts's own default reads "half-block cells": said once, not twice.
  const why = choice.mode === 'blocks' && choice.why !== 'half-block cells' ? ` (${choice.why})` : '';
  return { draw: 'blocks', note: `half-block cells${why}` };
}

export type ShotBytes = { ok: true; bytes: Buffer } | { ok: false; why: string };

/** Screenshots kept drawn: a full-screen one is ~40 rows of a few hundred runs. */
const KEPT = 12;
const kept = new Map<string, Line[]>();

const said = (t: string): Line[] => [[{ t, c: 'dim' }]];

export interface ShotArea {
  cols: number;
  rows: number;
  /** Where the action clicked, on the 0-1000 grid. */
  click: { x: number; y: number } | null;
  /** Colours on: with NO_COLOR the cells would be blank, so the picture is named instead. */
  colors: boolean;
}

export function shotLines(path: string, shot: ShotBytes | undefined, a: ShotArea): Line[] {
  if (shot === undefined) return said('[screenshot: fetching…]');
  if (!shot.ok) return said(`[screenshot: ${shot.why}]`);
  if (!a.colors) return said('[screenshot: not drawn, colours are off (NO_COLOR); awrl-tui episodes --show draws it]');
  const key = [path, shot.bytes.length, a.cols, a.rows, a.click?.x, a.click?.y].join('\u0000');
  const hit = kept.get(key);
  if (hit) {
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const cells = shotCells(shot.bytes, { cols: a.cols, rows: a.rows, click: a.click });
  const lines: Line[] = cells.ok ? cells.rows : said(`[screenshot: ${cells.why}]`);
  kept.set(key, lines);
  for (const old of kept.keys()) {
    if (kept.size <= KEPT) break;
    kept.delete(old);
  }
  return lines;
}

/** Screenshots held drawn now (the bench's and tests' view of the bound). */
export const shotLinesKept = (): number => kept.size;
