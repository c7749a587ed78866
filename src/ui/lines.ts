// Panels are pure functions that return lines of styled segments; frames are lists of such lines.
// Keeping the text out of React's tree makes a frame cheap and panels trivially testable: a
// panel's output is plain data whose widths can be checked. (No Ink here: the splash uses it.)
import { clipCells, isNarrow, terminalSafe, textCells } from './text-width.js';
import type { Line, Seg } from './line-types.js';

export type { Line, Seg } from './line-types.js';
export { lineToAnsi } from './ansi.js';

export function lineText(line: Line): string {
  return typeof line === 'string' ? line : line.map((s) => s.t).join('');
}

/** Cut a line to `width` cells (segments are plain text; chart lines may hold SGR codes). A line
 *  that had to be cut ends with '…': text cut without it reads as whole (`used 65.5/79` for 79.1). */
export function clipLine(line: Line, width: number): Line {
  const cut = clipTo(line, width);
  if (!cut.cut || width <= 0) return cut.line;
  const shorter = clipTo(line, width - 1).line;
  if (typeof shorter === 'string') return shorter + '…';
  const last = shorter.at(-1);
  return [...shorter, { t: '…', ...(last?.c ? { c: last.c } : {}) }];
}

function clipTo(line: Line, width: number): { line: Line; cut: boolean } {
  if (typeof line === 'string') {
    if (isNarrow(line))
      return line.length <= width ? { line, cut: false } : { line: line.slice(0, Math.max(0, width)), cut: true };
    const safe = terminalSafe(line);
    return textCells(safe) <= width ? { line: safe, cut: false } : { line: clipCells(safe, width), cut: true };
  }
  const out: Seg[] = [];
  let left = width;
  let same = true;
  for (let i = 0; i < line.length; i++) {
    const s = line[i];
    // Most segments are one-cell text: their length is their width (one test, no copies).
    const narrow = isNarrow(s.t);
    const t = narrow ? s.t : terminalSafe(s.t);
    const w = narrow ? t.length : textCells(t);
    if (w <= left) {
      if (t === s.t) out.push(s);
      else {
        out.push({ ...s, t });
        same = false;
      }
      left -= w;
      if (left > 0) continue;
      const cut = line.slice(i + 1).some((r) => r.t.length > 0 && textCells(r.t) > 0);
      return { line: !cut && same && i === line.length - 1 ? line : out, cut };
    }
    if (left > 0) out.push({ ...s, t: clipCells(t, left) });
    return { line: out, cut: true };
  }
  // Nothing to change: the same array (lineToAnsi's cache knows it).
  return { line: same ? line : out, cut: false };
}

/** Cells a string takes on the terminal (SGR codes take none). */
export function visibleLength(s: string): number {
  return textCells(s);
}

/** Exactly `height` lines (cut or padded), each cut to `width`. */
export function frame(lines: Line[], width: number, height: number): Line[] {
  const out = lines.slice(0, Math.max(0, height)).map((l) => clipLine(l, width));
  while (out.length < height) out.push('');
  return out;
}

/** Panels side by side: line i of each part cut/padded to its width, joined by `gap` spaces. */
export function hstack(parts: { lines: Line[]; width: number }[], height: number, gap = 1): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < height; i++) {
    const segs: Seg[] = [];
    parts.forEach((p, j) => {
      if (j > 0) segs.push({ t: ' '.repeat(gap) });
      const l = clipLine(p.lines[i] ?? '', p.width);
      const asSegs = typeof l === 'string' ? [{ t: l }] : l;
      segs.push(...asSegs);
      const used = asSegs.reduce((n, s) => n + visibleLength(s.t), 0);
      if (j < parts.length - 1 && used < p.width) segs.push({ t: ' '.repeat(p.width - used) });
    });
    out.push(segs);
  }
  return out;
}

/** A section title that fills the width: "─ Reward ─────── step 120". */
export function titleLine(title: string, width: number, right = ''): Line {
  const head = `─ ${title} `;
  const tail = right ? ` ${right} ─` : '';
  const fill = Math.max(0, width - textCells(head) - textCells(tail));
  return [
    { t: head, c: 'title', bold: true },
    { t: '─'.repeat(fill), c: 'dim' },
    { t: tail, c: 'dim' },
  ];
}
