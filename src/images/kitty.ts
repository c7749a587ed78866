// kitty's graphics protocol with Unicode placeholders: the image is transmitted once (APC, PNG data,
// chunks of 4096) with a virtual placement of c×r cells, and drawn wherever the text holds U+10EEEE
// cells whose foreground colour is the image id. tmux treats those cells as text (they scroll, are
// redrawn, survive a detach), which is why this is the way that works inside tmux.
// https://sw.kovidgoyal.net/kitty/graphics-protocol/#unicode-placeholders

export const PLACEHOLDER = '\u{10EEEE}';

/** Row/column numbers as combining marks (kitty's gen/rowcolumn-diacritics.txt, first 128). */
const DIACRITICS = [
  0x0305, 0x030d, 0x030e, 0x0310, 0x0312, 0x033d, 0x033e, 0x033f, 0x0346, 0x034a, 0x034b, 0x034c, 0x0350, 0x0351,
  0x0352, 0x0357, 0x035b, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369, 0x036a, 0x036b, 0x036c, 0x036d,
  0x036e, 0x036f, 0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597, 0x0598, 0x0599,
  0x059c, 0x059d, 0x059e, 0x059f, 0x05a0, 0x05a1, 0x05a8, 0x05a9, 0x05ab, 0x05ac, 0x05af, 0x05c4, 0x0610, 0x0611,
  0x0612, 0x0613, 0x0614, 0x0615, 0x0616, 0x0617, 0x0657, 0x0658, 0x0659, 0x065a, 0x065b, 0x065d, 0x065e, 0x06d6,
  0x06d7, 0x06d8, 0x06d9, 0x06da, 0x06db, 0x06dc, 0x06df, 0x06e0, 0x06e1, 0x06e2, 0x06e4, 0x06e7, 0x06e8, 0x06eb,
  0x06ec, 0x0730, 0x0732, 0x0733, 0x0735, 0x0736, 0x073a, 0x073d, 0x073f, 0x0740, 0x0741, 0x0743, 0x0745, 0x0747,
  0x0749, 0x074a, 0x07eb, 0x07ec, 0x07ed, 0x07ee, 0x07ef, 0x07f0, 0x07f1, 0x07f3, 0x0816, 0x0817, 0x0818, 0x0819,
  0x081b, 0x081c, 0x081d, 0x081e, 0x081f, 0x0820, 0x0821, 0x0822, 0x0823, 0x0825, 0x0826, 0x0827, 0x0829, 0x082a,
  0x082b, 0x082c,
];
export const MAX_PLACEHOLDER_ROWS = DIACRITICS.length;
const MARKS = new Set(DIACRITICS);

/** Cells of placeholder text (U+10EEEE, one cell each, and these row/column marks, none), or -1
 *  for any other text: string-width agrees, but segments every grapheme (ms per picture row). */
export function placeholderCells(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x10eeee) n++;
    else if (!MARKS.has(cp)) return -1;
  }
  return n;
}

/** Wraps an escape sequence for tmux's passthrough (needs `allow-passthrough on`): ESC doubled. */
export function tmuxPassthrough(seq: string): string {
  return `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`;
}

/** The APC chunks that transmit PNG bytes as image `id` with a virtual placement of cols×rows cells.
 *  q=2: the terminal answers nothing (an answer would arrive as keystrokes). */
export function kittyTransmit(png: Buffer, id: number, cols: number, rows: number, inTmux = false): string {
  const b64 = png.toString('base64');
  const chunks: string[] = [];
  for (let i = 0; i < b64.length || i === 0; i += 4096) chunks.push(b64.slice(i, i + 4096));
  return chunks
    .map((c, k) => {
      const more = k < chunks.length - 1 ? 1 : 0;
      const keys = k === 0 ? `a=T,q=2,f=100,U=1,i=${id},c=${cols},r=${rows},m=${more}` : `q=2,m=${more}`;
      const seq = `\x1b_G${keys};${c}\x1b\\`;
      return inTmux ? tmuxPassthrough(seq) : seq;
    })
    .join('');
}

/** Deletes image `id` and its data (d=I): the terminal frees it; its placeholder cells go blank. */
export function kittyDelete(id: number, inTmux = false): string {
  const seq = `\x1b_Ga=d,d=I,i=${id},q=2\x1b\\`;
  return inTmux ? tmuxPassthrough(seq) : seq;
}

/** The placeholder cells of row `r` (no colour: the caller sets the foreground to the image id).
 *  The first cell names its row and column 0; the cells after it inherit (column + 1), as the
 *  protocol allows. */
export function kittyPlaceholderText(r: number, cols: number): string {
  const first = PLACEHOLDER + String.fromCodePoint(DIACRITICS[r]) + String.fromCodePoint(DIACRITICS[0]);
  return first + PLACEHOLDER.repeat(Math.max(0, cols - 1));
}

/** The placeholder text of image `id`: one string per cell row, foreground = the id. */
export function kittyPlaceholderRows(id: number, cols: number, rows: number): string[] {
  const colour = `\x1b[38;2;${(id >> 16) & 255};${(id >> 8) & 255};${id & 255}m`;
  const out: string[] = [];
  for (let r = 0; r < Math.min(rows, DIACRITICS.length); r++)
    out.push(`${colour}${kittyPlaceholderText(r, cols)}\x1b[39m`);
  return out;
}
