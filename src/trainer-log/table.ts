// The stats table of a train step: tabulate(..., tablefmt="fancy_grid", floatfmt=".4e") with
// 4 key/value pairs per row, keys filled column-major. Table lines are most of the bytes of a log:
// separator lines are skipped by their first bytes; a row is read on its bytes, never decoded:
// each key cell is compared in one pass with the key at the same cell of a recent table (a run
// prints the same layout every step, or alternates two), and value bytes are copied to an arena
// (no string per cell). Only a key not seen at that cell before becomes a string.
import { bytesToUtf8, parseNumber } from './text.js';
import { latin1Slice } from './bytes.js';

export type TableLine = 'row' | 'top' | 'mid' | 'bottom' | null;

/** Classifies a line by its first character: `│` row, `╒` top, `├` separator, `╘` bottom. */
export function tableLineKind(b: Uint8Array, at: number): TableLine {
  if (b[at] !== 0xe2) return null;
  const b1 = b[at + 1];
  const b2 = b[at + 2];
  if (b1 === 0x94) {
    if (b2 === 0x82) return 'row';
    if (b2 === 0x9c) return 'mid';
  } else if (b1 === 0x95) {
    if (b2 === 0x92) return 'top';
    if (b2 === 0x98) return 'bottom';
  }
  return null;
}

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

/** Collects the rows of one table, then yields the cells in the trainer's (column-major) order.
 *  One instance is reused for every table (reset()): its arrays keep their storage. */
export class TableBuilder {
  private keys: (string | undefined)[] = [];
  private starts: number[] = [];
  private ends: number[] = [];
  private json: boolean[] = [];
  private rows = 0;
  private cols = 0;
  /** A DataView of the bytes last read (one per chunk), for comparing keys a word at a time. */
  private dv: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private dvOf: Uint8Array | null = null;
  bytes = 0;
  truncated = false;

  constructor(
    private readonly maxBytes: number,
    private readonly intern: KeyInterner,
    private readonly arena: ValueArena,
  ) {}

  /** Starts a new table. Cells of the previous one are never read again (collect reads only the
   *  rows x cols cells this table wrote). */
  reset(): this {
    this.intern.startTable();
    this.rows = 0;
    this.cols = 0;
    this.bytes = 0;
    this.truncated = false;
    return this;
  }

  /** Reads one `│ key │ value │ …` row from bytes [start, end) (line end excluded): the pairs
   *  between the bars, keys and values trimmed of spaces, empty keys skipped. */
  addRow(b: Uint8Array, start: number, end: number): void {
    this.bytes += end - start + 1;
    if (this.bytes > this.maxBytes) {
      this.truncated = true;
      return;
    }
    let p = findBar(b, start, end);
    if (p < 0) return;
    p += 3;
    const base = this.rows * this.cols;
    const first = this.rows === 0;
    if (b !== this.dvOf) {
      this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      this.dvOf = b;
    }
    const dv = this.dv;
    const intern = this.intern;
    let pair = 0;
    for (;;) {
      const at = base + pair;
      const use = first || pair < this.cols;
      // The usual row repeats a recent table's key at this cell: one pass over the cell
      // (spaces, those key bytes, spaces, a bar) finds the bar and checks the key together.
      // Two layouts are remembered (a run alternates, e.g. evaluation steps add keys).
      let kEnd = -1;
      let ks = p;
      let ke = p;
      let key: string | undefined;
      if (use) {
        while (ks < end && b[ks] === 0x20) ks++;
        const slot = intern.slot;
        const prev = intern.raws[slot][at];
        if (prev !== undefined && (kEnd = keyCellEnd(b, dv, ks, end, prev)) >= 0) {
          key = intern.keys[slot][at];
        } else {
          const prev2 = intern.raws[1 - slot][at];
          if (prev2 !== undefined && (kEnd = keyCellEnd(b, dv, ks, end, prev2)) >= 0) {
            key = intern.keys[1 - slot][at];
            intern.slot = 1 - slot;
          }
        }
        if (key !== undefined) ke = ks + intern.raws[intern.slot][at]!.bytes.length;
      }
      if (kEnd >= 0) {
        intern.hits[intern.slot]++;
      } else {
        kEnd = findBar(b, p, end);
        if (kEnd < 0) break;
        ks = p;
        ke = kEnd;
        while (ks < ke && b[ks] === 0x20) ks++;
        while (ke > ks && b[ke - 1] === 0x20) ke--;
        if (use && ke > ks) {
          const raw = latin1Slice(b, ks, ke);
          key = intern.text(raw);
          if (at < 100_000) {
            intern.raws[intern.fill][at] = keyBytes(b, ks, ke);
            intern.keys[intern.fill][at] = key;
          }
        }
      }
      const vStart = kEnd + 3;
      // The value: spaces, one run of printable ASCII, spaces, a bar; anything else (inner
      // spaces, non-ASCII) takes the general scan.
      let vs = vStart;
      while (vs < end && b[vs] === 0x20) vs++;
      let ve = vs;
      let c = 0;
      while (ve < end && (c = b[ve]) > 0x20 && c < 0x80) ve++;
      let vEnd = ve;
      while (vEnd < end && b[vEnd] === 0x20) vEnd++;
      if (!isBar(b, vEnd, end)) {
        vEnd = findBar(b, vStart, end);
        if (vEnd < 0) break;
        vs = vStart;
        ve = vEnd;
        while (vs < ve && b[vs] === 0x20) vs++;
        while (ve > vs && b[ve - 1] === 0x20) ve--;
      }
      if (use) {
        if (key !== undefined) {
          this.keys[at] = key;
          const a = this.arena.add(b, vs, ve);
          this.starts[at] = a;
          this.ends[at] = a + (ve - vs);
          this.json[at] = isJsonNumberBytes(b, vs, ve);
        } else {
          this.keys[at] = undefined;
        }
      }
      pair++;
      p = vEnd + 3;
    }
    if (first) {
      if (pair === 0) return;
      this.cols = pair;
    }
    for (let j = pair; j < this.cols; j++) this.keys[base + j] = undefined;
    this.rows++;
  }

  /** Appends the table's cells in the order the trainer's dict had them. */
  collect(out: StepCells): void {
    const { rows, cols, keys } = this;
    for (let j = 0; j < cols; j++) {
      for (let i = 0; i < rows; i++) {
        const at = i * cols + j;
        const k = keys[at];
        if (k !== undefined) {
          const n = out.n++;
          out.keys[n] = k;
          out.starts[n] = this.starts[at];
          out.ends[n] = this.ends[at];
          out.json[n] = this.json[at];
        }
      }
    }
  }
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

/** The first `│` (E2 94 82) in bytes [from, end), or -1. A plain loop: cheaper than a native
 *  indexOf call for the few dozen bytes of a cell. */
function findBar(b: Uint8Array, from: number, end: number): number {
  for (let i = from; i + 2 < end; i++) {
    if (b[i] === 0xe2 && b[i + 1] === 0x94 && b[i + 2] === 0x82) return i;
  }
  return -1;
}

/** Bytes from `start` equal `s` (the caller checked they fit). */
function sameBytes(b: Uint8Array, dv: DataView, start: number, key: KeyBytes): boolean {
  // Four bytes at a time, then the rest.
  const { bytes, words } = key;
  for (let k = 0; k < words.length; k++) if (dv.getInt32(start + 4 * k, true) !== words[k]) return false;
  for (let i = words.length * 4; i < bytes.length; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

/** A key's latin1 bytes, and the same as little-endian 32-bit words (the whole ones). */
export interface KeyBytes {
  bytes: Uint8Array;
  words: Int32Array;
}

function keyBytes(b: Uint8Array, start: number, end: number): KeyBytes {
  const bytes = Uint8Array.prototype.slice.call(b, start, end);
  const words = new Int32Array((end - start) >> 2);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < words.length; k++) words[k] = dv.getInt32(4 * k, true);
  return { bytes, words };
}

/** Where the bar after a key cell is when the cell holds `key` at `ks` (then only spaces), or -1. */
function keyCellEnd(b: Uint8Array, dv: DataView, ks: number, end: number, key: KeyBytes): number {
  const ke = ks + key.bytes.length;
  if (ke > end || !sameBytes(b, dv, ks, key)) return -1;
  let j = ke;
  while (j < end && b[j] === 0x20) j++;
  return isBar(b, j, end) ? j : -1;
}

function isBar(b: Uint8Array, at: number, end: number): boolean {
  return at + 2 < end && b[at] === 0xe2 && b[at + 1] === 0x94 && b[at + 2] === 0x82;
}

/** An empty array already of V8's "holey, any value" kind: both layouts' arrays then share one
 *  hidden class, so the row reader's optimised code does not bail out on the other one. */
function holey<T>(): T[] {
  const a: (T | undefined)[] = [];
  a[1] = undefined;
  a.length = 0;
  return a as T[];
}

/** Intern table for stats keys, bounded (cleared when full). */
export class KeyInterner {
  private texts = new Map<string, string>();
  /** The keys seen at each cell position (their bytes and their text) in two recent table
   *  layouts: tables repeat their layout, or alternate between two. */
  readonly raws: (KeyBytes | undefined)[][] = [holey(), holey()];
  readonly keys: (string | undefined)[][] = [holey(), holey()];
  /** The layout that matched last (tried first). */
  slot = 0;
  /** Cells of the current table found in each layout; new keys are written to `fill`, the
   *  layout the previous table used least, so the layout in use is never overwritten. */
  hits = [0, 0];
  fill = 1;

  /** A new table begins. */
  startTable(): void {
    if (this.hits[0] + this.hits[1] > 0) this.fill = this.hits[0] >= this.hits[1] ? 1 : 0;
    this.hits[0] = 0;
    this.hits[1] = 0;
  }

  /** Interns a latin1 key: one flat UTF-8-decoded copy per distinct key. */
  text(raw: string): string {
    const hit = this.texts.get(raw);
    if (hit !== undefined) return hit;
    if (this.texts.size >= this.limit) this.texts = new Map();
    // A JSON round trip makes a flat copy: a slice would pin the whole line it came from.
    const key = JSON.parse(JSON.stringify(raw)) as string;
    const value = bytesToUtf8(key);
    this.texts.set(key, value);
    return value;
  }

  constructor(private readonly limit = 20_000) {}


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
