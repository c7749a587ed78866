// Drawing frames on the real terminal. Ink rebuilds every cell of the screen on each commit
// (~5 µs per character: 40-80 ms for 200×50 here); the cockpit already has every line as text, so
// in a terminal it writes only the lines that changed, by absolute position, inside one
// synchronized-update block. Ink still owns input, lifecycle and raw mode.

export interface PainterOut {
  write(s: string): unknown;
}

const BEGIN_SYNC = '\x1b[?2026h';
const END_SYNC = '\x1b[?2026l';

export class TerminalPainter {
  private prev: string[] = [];
  private prevSize = '';

  constructor(private readonly out: PainterOut) {}

  /** `lines` are complete rows (SGR allowed), at most rows-1 of them, none wider than the width. */
  paint(lines: string[], columns: number, rows: number): void {
    const size = `${columns}x${rows}`;
    let buf = '';
    if (size !== this.prevSize) {
      // Resized: the terminal may have reflowed what was there; start from a clean screen.
      buf += '\x1b[H\x1b[2J';
      this.prev = [];
      this.prevSize = size;
    }
    const n = Math.max(lines.length, this.prev.length);
    for (let i = 0; i < n; i++) {
      const line = lines[i] ?? '';
      if (line === this.prev[i]) continue;
      buf += `\x1b[${i + 1};1H\x1b[0m${line}\x1b[0m\x1b[K`;
    }
    this.prev = lines;
    if (buf) this.out.write(`${BEGIN_SYNC}\x1b[?25l${buf}${END_SYNC}`);
  }

  /** Bytes outside any row (kitty's image transmission and deletion), on the same stream as the
   *  frames so they arrive in order. */
  raw(s: string): void {
    this.out.write(s);
  }

  /** Forget what is on screen (after something else wrote to it). */
  invalidate(): void {
    this.prevSize = '';
  }
}
