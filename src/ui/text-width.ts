// The cockpit's one notion of width: terminal cells as string-width counts them (emoji such as 🚀 ✅
// 👍🏽 take two, combining marks and zero-width joiners none, SGR codes none). Every measure, cut,
// pad and wrap in src/ui goes through here; a line one cell too wide would wrap on the terminal and
// leave the row below stale while the painter thinks it unchanged.
import stringWidth from 'string-width';
import sliceAnsi from 'slice-ansi';
import { PLACEHOLDER, placeholderCells } from '../images/kitty.js';

// Text made only of characters that are one cell in every terminal: printable ASCII, Latin-1 to
// U+02FF, general punctuation (… · –), arrows, box drawing and blocks (─ █ ▏), Braille. Most lines
// take this path: String.length is their width (test/ui/text-width.test.ts checks the ranges).
const NARROW = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u25fc\u2800-\u28ff]*$/;
const SGR = /\x1b\[[0-9;]*m/g;

/** True when `text` is one cell per UTF-16 unit (no SGR, nothing wide, nothing zero-width). */
export function isNarrow(text: string): boolean {
  return NARROW.test(text);
}

/** Cells `text` takes on a terminal (SGR codes take none). */
export function textCells(text: string): number {
  if (NARROW.test(text)) return text.length;
  // Chart lines: one-cell characters between SGR codes (string-width would segment every grapheme).
  if (text.includes('\x1b')) {
    const plain = text.replace(SGR, '');
    if (NARROW.test(plain)) return plain.length;
  }
  // kitty's image placeholders (screens/kitty-shots.ts): a picture's rows, counted without segmenting.
  if (text.startsWith(PLACEHOLDER)) {
    const n = placeholderCells(text);
    if (n >= 0) return n;
  }
  return stringWidth(text);
}

/**
 * `text` cut to at most `width` cells, nothing added: SGR codes are kept and closed, a wide
 * character that would straddle the edge is left out (the row is then one cell short, never over).
 */
export function clipCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (NARROW.test(text)) return text.length <= width ? text : text.slice(0, width);
  text = terminalSafe(text);
  if (textCells(text) <= width) return text;
  if (text.includes('\x1b') && NARROW.test(text.replace(SGR, ''))) return clipNarrowSgr(text, width);
  let cut = sliceAnsi(text, 0, width);
  // slice-ansi keeps a wide character that starts in the last cell (two cells: one over).
  if (stringWidth(cut) > width) cut = sliceAnsi(text, 0, width - 1);
  return text.includes('\x1b') ? cut + '\x1b[0m' : cut;
}

/** Cut one-cell text holding SGR codes, keeping every code (a chart line's colours). */
function clipNarrowSgr(text: string, width: number): string {
  let out = '';
  let seen = 0;
  for (let i = 0; i < text.length;) {
    if (text[i] === '\x1b') {
      const m = /^\x1b\[[0-9;]*m/.exec(text.slice(i, i + 16));
      if (m) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (seen >= width) break;
    out += text[i];
    seen++;
    i++;
  }
  return out + '\x1b[0m';
}

/** Cut `text` to at most `width` cells, ending with '…' when something was cut. */
export function fitCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (textCells(text) <= width) return text;
  if (width === 1) return '…';
  return clipCells(text, width - 1) + '…';
}

/** Cut or pad (with spaces) to exactly `width` cells. */
export function padCells(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = fitCells(text, width);
  const fill = ' '.repeat(Math.max(0, width - textCells(t)));
  return align === 'left' ? t + fill : fill + t;
}

// Controls other than SGR move the terminal's cursor (a tab, a carriage return, a CSI K from a
// trainer's progress bar) while string-width counts them as nothing: the row on screen would no
// longer be the row the painter thinks it wrote. A tab becomes a space, the rest goes.
const UNSAFE =
  /\x1b\[[0-9;?]*[A-Za-ln-z@`]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b(?!\[[0-9;]*m)|[\x00-\x08\x0a-\x1a\x1c-\x1f\x7f\x80-\x9f]/g;

/** `text` with only what a terminal draws in place: printable characters and SGR codes. */
export function terminalSafe(text: string): string {
  if (NARROW.test(text)) return text;
  return text.replace(/\t/g, ' ').replace(UNSAFE, '');
}

/** `text` without SGR codes. */
export function stripSgr(text: string): string {
  return text.includes('\x1b') ? text.replace(SGR, '') : text;
}

/** Split into user-perceived characters (a flag, 👍🏽, e + combining accent: one each). */
const segmenter = new Intl.Segmenter();
function graphemes(text: string): string[] {
  if (NARROW.test(text)) return text.split('');
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/**
 * `text` in pieces of at most `width` cells (the first) and `rest` cells (the others), every
 * character kept: a long line wrapped for reading. A piece ends at a space when one falls in its
 * last third (words stay whole where that costs little), else at the width.
 */
export function wrapCells(text: string, width: number, rest = width): string[] {
  if (width <= 0 || rest <= 0) return [text];
  const out: string[] = [];
  let chars = graphemes(text);
  let w = width;
  while (chars.length) {
    let used = 0;
    let i = 0;
    while (i < chars.length) {
      const cw = textCells(chars[i]);
      if (used + cw > w) break;
      used += cw;
      i++;
    }
    if (i === 0) i = 1; // a character wider than the width: alone on its row (cut by the frame)
    if (i < chars.length) {
      const space = chars.lastIndexOf(' ', i - 1);
      if (space >= Math.floor((i * 2) / 3) && space > 0) i = space + 1;
    }
    out.push(chars.slice(0, i).join(''));
    chars = chars.slice(i);
    w = rest;
  }
  return out.length ? out : [''];
}
