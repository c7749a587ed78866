// One screenshot for the terminal in the chosen way: what to send once (kitty's transmission) and the
// rows of text to print where it goes. The click marker is drawn into the pixels. Pure.
import { decodePng, encodePng, type Decoded } from './png.js';
import { drawMarker, fitInside, scaleTo, type Raster } from './raster.js';
import { halfBlockCells, halfBlockRows, type CellRun } from './blocks.js';
import { kittyPlaceholderRows, kittyTransmit, MAX_PLACEHOLDER_ROWS, tmuxPassthrough } from './kitty.js';
import { sixelImage } from './sixel.js';
import { itermImage } from './iterm.js';
import type { ImageMode } from './detect.js';

export interface ShotOptions {
  mode: ImageMode;
  /** The area it may take, in cells. */
  cols: number;
  rows: number;
  /** Where the action clicked, on the 0-1000 grid of the model's coordinates. */
  click?: { x: number; y: number } | null;
  /** kitty: the image id (1 … 2^24-1), unique per image shown. */
  id?: number;
  /** Sequences go through tmux's passthrough. */
  tmux?: boolean;
  /** Pixels per cell for the image sent to kitty, sixel and iTerm2 (default 8×16). */
  cellPx?: { w: number; h: number };
}

export interface ShotOutput {
  /** Sent once before the rows (kitty's transmission), '' otherwise. */
  prelude: string;
  /** Text rows (half-blocks, placeholders, a sixel/iTerm2 sequence, or the placeholder of a failure). */
  rows: string[];
  /** The size of the screenshot in pixels, when it could be read. */
  size: { width: number; height: number } | null;
}

/** The placeholder for a screenshot that cannot be shown: said, never drawn as noise. */
export function shotProblem(why: string): ShotOutput {
  return { prelude: '', rows: [`\x1b[2m[screenshot: ${why}]\x1b[22m`], size: null };
}

/** Cells of an image of w×h pixels inside cols×rows (a cell is twice as tall as wide). */
export function cellBox(w: number, h: number, cols: number, rows: number): { cols: number; rows: number } {
  const f = fitInside(w, h, cols, rows * 2);
  return { cols: f.w, rows: Math.max(1, Math.ceil(f.h / 2)) };
}

function marked(img: Raster, w: number, h: number, click: ShotOptions['click']): Raster {
  const small = scaleTo(img, w, h);
  if (click) drawMarker(small, Math.round((click.x / 1000) * w), Math.round((click.y / 1000) * h));
  return small;
}

export type ShotCells =
  { ok: true; rows: CellRun[][]; size: { width: number; height: number } } | { ok: false; why: string };

/** Half-block cells of a screenshot inside cols×rows, click marked: what the cockpit draws (its
 *  lines carry 24-bit colour per segment; the other modes need bytes its painter does not send). */
export function shotCells(
  png: Buffer | null,
  o: Pick<ShotOptions, 'cols' | 'rows' | 'click'>,
  decoded?: Decoded,
): ShotCells {
  if (png === null) return { ok: false, why: 'missing' };
  const d = decoded ?? decodePng(png);
  if (!d.ok) return d;
  const { width, height } = d.image;
  const box = cellBox(width, height, Math.max(1, o.cols), Math.max(1, o.rows));
  const f = fitInside(width, height, box.cols, box.rows * 2);
  return { ok: true, rows: halfBlockCells(marked(d.image, f.w, f.h, o.click)), size: { width, height } };
}

export function renderShot(png: Buffer | null, o: ShotOptions, decoded?: Decoded): ShotOutput {
  if (png === null) return shotProblem('missing');
  const d = decoded ?? decodePng(png);
  if (!d.ok) return shotProblem(d.why);
  const { width, height } = d.image;
  const size = { width, height };
  if (o.mode === 'none') return { prelude: '', rows: [`[screenshot ${width}×${height}]`], size };
  const box = cellBox(width, height, Math.max(1, o.cols), Math.max(1, Math.min(o.rows, MAX_PLACEHOLDER_ROWS)));
  if (o.mode === 'blocks') {
    const f = fitInside(width, height, box.cols, box.rows * 2);
    return { prelude: '', rows: halfBlockRows(marked(d.image, f.w, f.h, o.click)), size };
  }
  const px = o.cellPx ?? { w: 8, h: 16 };
  const f = fitInside(width, height, Math.min(width, box.cols * px.w), Math.min(height, box.rows * px.h));
  const img = marked(d.image, f.w, f.h, o.click);
  if (o.mode === 'sixel') return { prelude: '', rows: [sixelImage(img)], size };
  const bytes = encodePng(img);
  if (o.mode === 'iterm') {
    const seq = itermImage(bytes, box.cols, box.rows);
    return { prelude: '', rows: [o.tmux ? tmuxPassthrough(seq) : seq], size };
  }
  const id = o.id ?? 1;
  return {
    prelude: kittyTransmit(bytes, id, box.cols, box.rows, o.tmux),
    rows: kittyPlaceholderRows(id, box.cols, box.rows),
    size,
  };
}

export type KittyPicture = { ok: true; prelude: string; cols: number; rows: number } | { ok: false; why: string };

/** kitty's transmission of a screenshot and its box in cells, for a caller that draws the
 *  placeholder cells itself (the cockpit: Segs whose foreground is the id). renderShot's bytes. */
export function kittyPicture(
  png: Buffer | null,
  o: Omit<ShotOptions, 'mode'> & { id: number },
  decoded?: Decoded,
): KittyPicture {
  if (png === null) return { ok: false, why: 'missing' };
  const d = decoded ?? decodePng(png);
  if (!d.ok) return d;
  const { width, height } = d.image;
  const box = cellBox(width, height, Math.max(1, o.cols), Math.max(1, Math.min(o.rows, MAX_PLACEHOLDER_ROWS)));
  return { ok: true, prelude: renderShot(png, { ...o, mode: 'kitty' }, d).prelude, ...box };
}
