// Half-block cells: `▀` with the upper pixel as foreground and the lower as background, 24-bit colour.
// Any terminal with truecolor draws it; tests read these cells back from @xterm/headless. The cells
// are made once (halfBlockCells): the cockpit draws them as segments of its lines, the CLI as text.
import type { Raster } from './raster.js';

const UPPER_HALF = '\u2580';

/** A run of cells of one colour pair: `t` is `▀` repeated, fg/bg 0xRRGGBB (a cockpit line's Seg). */
export interface CellRun {
  t: string;
  fg: number;
  bg: number;
}

const rgbAt = (r: Raster, i: number) => (r.data[i] << 16) | (r.data[i + 1] << 8) | r.data[i + 2];

/** One list of runs per cell row (raster height / 2 rows, rounded up; an odd last row gets black below). */
export function halfBlockCells(r: Raster): CellRun[][] {
  const rows: CellRun[][] = [];
  for (let y = 0; y < r.height; y += 2) {
    const runs: CellRun[] = [];
    let last: CellRun | null = null;
    for (let x = 0; x < r.width; x++) {
      const i = (y * r.width + x) * 4;
      const fg = rgbAt(r, i);
      const bg = y + 1 < r.height ? rgbAt(r, i + r.width * 4) : 0;
      if (last && last.fg === fg && last.bg === bg) last.t += UPPER_HALF;
      else runs.push((last = { t: UPPER_HALF, fg, bg }));
    }
    rows.push(runs);
  }
  return rows;
}

const sgr = (n: number) => `${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;

/** One string per cell row: the runs with their SGR codes. */
export function halfBlockRows(r: Raster): string[] {
  return halfBlockCells(r).map(
    (runs) => runs.map((c) => `\x1b[38;2;${sgr(c.fg)};48;2;${sgr(c.bg)}m${c.t}`).join('') + '\x1b[0m',
  );
}
