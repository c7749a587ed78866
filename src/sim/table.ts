// The stats table exactly as AReaL prints it: `tabulate(rows, floatfmt=".4e", tablefmt="fancy_grid")`
// over key/value pairs laid out 4 pairs per row, keys filled column-major (areal/utils
// `tabulate_stats`). Checked byte for byte against python3-tabulate on the run-a fixture. Pure.
import { formatExp } from './pyfmt.js';

/** tabulate's `_afterpoint` for our cells: digits after the decimal point, -1 when there is none. */
function afterPoint(s: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return -1; // nan, inf, '' (missing cell)
  let pos = s.lastIndexOf('.');
  if (pos < 0) pos = s.toLowerCase().lastIndexOf('e');
  return pos >= 0 ? s.length - pos - 1 : -1;
}

/** Numbers are decimal-aligned: right-pad to the widest fraction, then right-align (numalign="decimal"). */
function alignDecimal(cells: string[]): string[] {
  const decs = cells.map(afterPoint);
  const maxDec = Math.max(...decs);
  const padded = cells.map((c, i) => c + ' '.repeat(maxDec - decs[i]));
  const width = Math.max(...padded.map((c) => c.length));
  return padded.map((c) => c.padStart(width));
}

function alignLeft(cells: string[]): string[] {
  const width = Math.max(...cells.map((c) => c.length));
  return cells.map((c) => c.padEnd(width));
}

/**
 * The table text (no trailing newline). `entries` keeps insertion order, as a Python dict does.
 * Key columns hold strings (left-aligned); value columns hold floats (`.4e`, decimal-aligned).
 */
export function tabulateStats(entries: ReadonlyArray<readonly [string, number]>, col = 4): string {
  const rowCount = Math.ceil(entries.length / col);
  if (rowCount === 0) return '';
  // Column-major: cell (i, j) holds item i + j * rowCount; a short last column leaves empty cells.
  const columns: string[][] = [];
  for (let j = 0; j < col; j++) {
    const keys: string[] = [];
    const vals: string[] = [];
    let any = false;
    for (let i = 0; i < rowCount; i++) {
      const item = entries[i + j * rowCount];
      if (item) any = true;
      keys.push(item ? item[0] : '');
      vals.push(item ? formatExp(item[1]) : '');
    }
    if (!any) continue; // tabulate sizes the table by its longest row
    columns.push(alignLeft(keys), alignDecimal(vals));
  }
  const widths = columns.map((c) => c[0].length + 2);
  const rule = (l: string, m: string, r: string, fill: string): string =>
    l + widths.map((w) => fill.repeat(w)).join(m) + r;
  const lines: string[] = [rule('╒', '╤', '╕', '═')];
  for (let i = 0; i < rowCount; i++) {
    if (i > 0) lines.push(rule('├', '┼', '┤', '─'));
    lines.push('│' + columns.map((c) => ` ${c[i]} `).join('│') + '│');
  }
  lines.push(rule('╘', '╧', '╛', '═'));
  return lines.join('\n');
}
