// Half-block cells: `▀` with the upper pixel as foreground and the lower as background, 24-bit colour.
// Any terminal with truecolor draws it; tests read these cells back from @xterm/headless.
import type { Raster } from './raster.js';

const UPPER_HALF = '\u2580';

/** One string per cell row (raster height / 2 rows, rounded up; an odd last row gets black below). */
export function halfBlockRows(r: Raster): string[] {
  const rows: string[] = [];
  for (let y = 0; y < r.height; y += 2) {
    let line = '';
    let last = '';
    for (let x = 0; x < r.width; x++) {
      const i = (y * r.width + x) * 4;
      const j = i + r.width * 4;
      const below = y + 1 < r.height ? `${r.data[j]};${r.data[j + 1]};${r.data[j + 2]}` : '0;0;0';
      const sgr = `\x1b[38;2;${r.data[i]};${r.data[i + 1]};${r.data[i + 2]};48;2;${below}m`;
      line += (sgr === last ? '' : sgr) + UPPER_HALF;
      last = sgr;
    }
    rows.push(`${line}\x1b[0m`);
  }
  return rows;
}
