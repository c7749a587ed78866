// Terminal cell widths for text the cockpit did not write itself (the trainer's own lines): CJK and
// emoji take two cells, combining marks none. Panels measure by string length, so a foreign line is
// cut here by cells; its string length then never exceeds its width on screen.

/** Cells a code point takes in a terminal (wcwidth-style, the common ranges only). */
export function cellWidth(cp: number): number {
  if (cp < 0x300) return 1;
  // Combining marks, zero-width spaces/joiners, variation selectors.
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x20d0 && cp <= 0x20ff)) return 0;
  if (cp < 0x1100) return 1;
  if (
    cp <= 0x115f ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

// Everything below U+0300 is one cell: most lines take the fast path.
// eslint-disable-next-line no-control-regex
const NARROW_ONLY = /^[\x00-\u02ff]*$/;

/** Cells `text` takes. */
export function textCells(text: string): number {
  if (NARROW_ONLY.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += cellWidth(ch.codePointAt(0)!);
  return n;
}

/** Cut `text` to at most `width` cells, ending with '…' when something was cut. */
export function fitCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (NARROW_ONLY.test(text)) return text.length <= width ? text : width === 1 ? '…' : text.slice(0, width - 1) + '…';
  if (textCells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = cellWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/**
 * `text` in pieces of at most `width` cells (the first) and `rest` cells (the others), every
 * character kept: a long line wrapped for reading. A piece ends at a space when one falls in its
 * last third (words stay whole where that costs little), else at the width.
 */
export function wrapCells(text: string, width: number, rest = width): string[] {
  if (width <= 0 || rest <= 0) return [text];
  const out: string[] = [];
  let chars = [...text];
  let w = width;
  while (chars.length) {
    let used = 0;
    let i = 0;
    while (i < chars.length) {
      const cw = cellWidth(chars[i].codePointAt(0)!);
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
