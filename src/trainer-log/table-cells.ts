// What the table reader (table.ts) keeps of the cells it reads, past the row they came in.
// Keys: a run prints the same key layout every step (or alternates two, e.g. evaluation steps
// add keys), so each cell position remembers the key bytes it held in two recent layouts, and a
// row's key cell is compared with them on bytes (KeyInterner); only a key new at its cell becomes
// a string, interned, one flat copy per distinct key. Values: their printed bytes, copied to one
// reused arena per step (ValueArena); the JSON writer (step-json.ts) copies those bytes straight
// into its line, the event path (cellValues) makes numbers and texts of them. So the common
// --json path makes no string per cell.
import { bytesToUtf8 } from './text.js';

// ---- Keys

/** A key cell as a row printed it: the bytes from just after the bar before it to the end of
 *  the bar after it (spaces, the key, the padding, `│`), also as little-endian 64-bit words read
 *  as doubles and 32-bit words (the whole ones), so the row reader compares a cell eight bytes at
 *  a time. A run prints the same key cells every step: a column's width follows from its keys alone. */
export interface KeyBytes {
  bytes: Uint8Array;
  /** The whole 8-byte words as doubles (quadsOf). Absent in a cell restored from a watch snapshot
   *  written before it existed: made when the cell is first compared. */
  quads?: Float64Array;
  words: Int32Array;
  /** Where the key starts and ends in the cell (trimmed of spaces). */
  keyStart: number;
  keyEnd: number;
}

/** A copy of the cell bytes [start, end) (its closing bar included) whose key is [ks, ke). */
export function keyBytes(b: Uint8Array, start: number, end: number, ks: number, ke: number): KeyBytes {
  const bytes = Uint8Array.prototype.slice.call(b, start, end);
  const words = new Int32Array((end - start) >> 2);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < words.length; k++) words[k] = dv.getInt32(4 * k, true);
  return { bytes, quads: quadsOf(bytes), words, keyStart: ks - start, keyEnd: ke - start };
}

/** The whole 8-byte words of `bytes` as doubles, for comparing eight bytes at a time: two equal
 *  doubles have equal bytes unless they are zero (+0 and -0) or NaN (equal to nothing), so bytes
 *  with such a word get none (they are compared four bytes at a time). */
export function quadsOf(bytes: Uint8Array): Float64Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const quads = new Float64Array(bytes.length >> 3);
  for (let k = 0; k < quads.length; k++) {
    const q = (quads[k] = dv.getFloat64(8 * k, true));
    if (q === 0 || Number.isNaN(q)) return new Float64Array(0);
  }
  return quads;
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

  constructor(private readonly limit = 20_000) {}

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
}

// ---- Values

/** Where a table's cell values live: their bytes, copied out of the caller's chunk (callers may
 *  reuse their read buffer) into one reused buffer per step, so no string is made per cell. */
export class ValueArena {
  // Zeroed, not allocUnsafe: what lies past `len` is then the log's bytes, the same in a snapshot
  // restored (src/watch/watch-snapshot.ts) as in a full read, not a heap's leftovers.
  buf: Buffer = Buffer.alloc(1 << 14);
  len = 0;

  /** Makes room for `n` more bytes; the buffer to write them to (at `len`). */
  reserve(n: number): Buffer {
    if (this.len + n > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    return this.buf;
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

/** What the JSON writer reads of a step's cells (StepCells, or the PrintedCells an event keeps). */
export interface CellSpans {
  starts: ArrayLike<number>;
  ends: ArrayLike<number>;
  json: ArrayLike<boolean | number>;
}

/** A step's printed values, kept with its stats object (hidden RAW_STATS) for its JSON line: one
 *  copy of the step's value bytes and where each cell's are, in the shape StepCells has. */
export interface PrintedCells {
  starts: Int32Array;
  ends: Int32Array;
  json: Uint8Array;
  bytes: Buffer;
}

/** A step's printed values (a copy: the arena and the cell arrays are reused by the next step). */
export function printedCells(cells: StepCells, arena: ValueArena): PrintedCells {
  const n = cells.n;
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  const json = new Uint8Array(n);
  let lo = n > 0 ? cells.starts[0] : 0;
  let hi = lo;
  for (let i = 0; i < n; i++) {
    const a = cells.starts[i];
    const b = cells.ends[i];
    starts[i] = a;
    ends[i] = b;
    json[i] = cells.json[i] ? 1 : 0;
    if (a < lo) lo = a;
    if (b > hi) hi = b;
  }
  if (lo > 0) {
    for (let i = 0; i < n; i++) {
      starts[i] -= lo;
      ends[i] -= lo;
    }
  }
  return { starts, ends, json, bytes: Buffer.from(arena.buf.subarray(lo, hi)) };
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
