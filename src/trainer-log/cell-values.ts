// Where the value cells of a step's stats tables live between the table reader (table.ts), which
// copies their printed bytes here, and the step's output: the JSON writer (step-json.ts) copies
// those bytes straight into its line, the event path (cellValues) makes numbers and texts of them.
// Kept as bytes so that the common --json path makes no string per cell.
import { parseNumber } from './text.js';
import { latin1Slice } from './bytes.js';

/** Where a table's cell values live: their bytes, copied out of the caller's chunk (callers may
 *  reuse their read buffer) into one reused buffer per step, so no string is made per cell. */
export class ValueArena {
  buf: Buffer = Buffer.allocUnsafe(1 << 14);
  len = 0;

  add(b: Uint8Array, start: number, end: number): number {
    const n = end - start;
    if (this.len + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    const at = this.len;
    const buf = this.buf;
    for (let i = 0; i < n; i++) buf[at + i] = b[start + i];
    this.len = at + n;
    return at;
  }
}

/** The cells of a step, in the trainer's order: key, value bytes [start, end) in the arena, and
 *  whether the printed value is already a valid JSON number (most are: `1.2345e-03`). */
export interface StepCells {
  /** How many cells (the arrays are reused from step to step and may be longer). */
  n: number;
  keys: string[];
  starts: number[];
  ends: number[];
  json: boolean[];
}

/** Values and printed texts of a step's cells (for the stats object and its hidden RAW_STATS). */
export function cellValues(cells: StepCells, arena: ValueArena): { values: (number | null)[]; raws: (string | undefined)[] } {
  const n = cells.n;
  const values: (number | null)[] = new Array(n);
  const raws: (string | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = latin1Slice(arena.buf, cells.starts[i], cells.ends[i]);
    const v = parseNumber(s, 0, s.length);
    values[i] = v;
    raws[i] = v !== null && cells.json[i] ? s : undefined;
  }
  return { values, raws };
}

/** JSON's number grammar over bytes [a, b): -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? (Python's
 *  `1.2345e-03` qualifies). */
export function isJsonNumberBytes(s: Uint8Array, a: number, b: number): boolean {
  let i = a;
  if (i < b && s[i] === 0x2d) i++;
  if (i >= b) return false;
  let c = s[i];
  if (c === 0x30) {
    i++;
  } else if (c >= 0x31 && c <= 0x39) {
    while (i < b && (c = s[i]) >= 0x30 && c <= 0x39) i++;
  } else {
    return false;
  }
  if (i < b && s[i] === 0x2e) {
    const d = ++i;
    while (i < b && (c = s[i]) >= 0x30 && c <= 0x39) i++;
    if (i === d) return false;
  }
  if (i < b && (s[i] | 0x20) === 0x65) {
    i++;
    if (i < b && ((c = s[i]) === 0x2b || c === 0x2d)) i++;
    const d = i;
    while (i < b && (c = s[i]) >= 0x30 && c <= 0x39) i++;
    if (i === d) return false;
  }
  return i === b;
}
