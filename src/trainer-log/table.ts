// The stats table of a train step: tabulate(..., tablefmt="fancy_grid", floatfmt=".4e") with
// 4 key/value pairs per row, keys filled column-major. Table lines are most of the bytes of a log:
// separator lines are skipped by their first bytes; a row is read on its bytes, never decoded:
// each key cell is compared in one pass with the key at the same cell of a recent table (a run
// prints the same layout every step, or alternates two), and value bytes are copied to an arena
// (no string per cell). Only a key not seen at that cell before becomes a string.
// This file is the row reader; the key memory it compares with and the arena its value bytes
// are copied to are in table-cells.ts.
import { latin1Slice } from './text.js';
import {
  KeyInterner,
  ValueArena,
  isJsonNumberBytes,
  keyBytes,
  quadsOf,
  type KeyBytes,
  type StepCells,
} from './table-cells.js';

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

/** Collects the rows of one table, then yields the cells in the trainer's (column-major) order.
 *  One instance is reused for every table (reset()): its arrays keep their storage. */
export class TableBuilder {
  private keys: (string | undefined)[] = [];
  private starts: number[] = [];
  private ends: number[] = [];
  private json: boolean[] = [];
  private rows = 0;
  private cols = 0;
  bytes = 0;
  truncated = false;

  constructor(
    private readonly maxBytes: number,
    private readonly intern: KeyInterner,
    private readonly arena: ValueArena,
    /** false: no key layout is remembered, every key cell is read anew (the general path). */
    private readonly remember = true,
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
   *  between the bars, keys and values trimmed of spaces, empty keys skipped. `dv`: viewOf(b),
   *  for comparing keys a word at a time. False: a cell holds an escape code, and nothing of the
   *  row was kept: the caller reads the row again without its escape codes (as the parser's
   *  general path does). Only cells off the usual path can hold one (see below). */
  addRow(b: Uint8Array, dv: DataView, start: number, end: number): boolean {
    this.bytes += end - start + 1;
    if (this.bytes > this.maxBytes) {
      this.truncated = true;
      return true;
    }
    const p = findBar(b, start, end);
    if (p < 0) return true;
    if (this.remember && this.knownRow(b, dv, p + 3, end)) return true;
    return this.readRow(b, dv, start, p + 3, end);
  }

  /** The usual row: each key cell as a remembered layout has it at that cell, each value one
   *  plain run between spaces. Read in one pass that commits nothing until the row is whole.
   *  False: a cell is off that path (a key new at its cell, a value with inner spaces or an escape
   *  code, a cell past the table's columns): nothing was kept, and readRow reads the row. Apart
   *  from readRow so that the loop that reads nearly every row of a log is small: TurboFan
   *  compiles it in a fraction of the time (until then the first tables run interpreted), and
   *  it runs faster. The same cells as readRow (fast-paths.test.ts holds them equal). */
  private knownRow(b: Uint8Array, dv: DataView, p: number, end: number): boolean {
    const intern = this.intern;
    const first = this.rows === 0;
    const cols = first ? 0x7fffffff : this.cols;
    const base = this.rows * this.cols;
    const ab = this.arena.reserve(end - p);
    let an = this.arena.len;
    let slot = intern.slot;
    /** Cells found in layout 1 (the others: in layout 0). */
    let inOne = 0;
    let pair = 0;
    for (; pair < cols; pair++) {
      const at = base + pair;
      // The layout that matched last first, then the other one (a run alternates two).
      let prev = intern.raws[slot][at];
      if (prev === undefined || p + prev.bytes.length > end || !sameBytes(b, dv, p, prev)) {
        slot = 1 - slot;
        prev = intern.raws[slot][at];
        if (prev === undefined || p + prev.bytes.length > end || !sameBytes(b, dv, p, prev)) {
          // The first row's end (no more cells): its width is the table's.
          if (first && pair > 0 && findBar(b, p, end) < 0) break;
          return false;
        }
      }
      inOne += slot;
      // The value: spaces, a run of printable ASCII (copied to the arena), spaces, a bar.
      let v = p + prev.bytes.length;
      while (v < end && b[v] === 0x20) v++;
      const a = an;
      let json = true;
      const sci = sci4Length(b, v, end);
      if (sci > 0) {
        // The usual `-1.2345e-03`: twelve bytes copied as two words (the one or two past the
        // value are overwritten by the next one or left past the arena's end: never read).
        const av = arenaView(ab);
        av.setFloat64(an, dv.getFloat64(v, true), true);
        av.setInt32(an + 8, dv.getInt32(v + 8, true), true);
        an += sci;
        v += sci;
      } else {
        let c = 0;
        while (v < end && (c = b[v]) > 0x20 && c < 0x80) {
          ab[an++] = c;
          v++;
        }
        json = isJsonNumberBytes(ab, a, an);
      }
      while (v < end && b[v] === 0x20) v++;
      if (!isBar(b, v, end)) return false;
      this.keys[at] = intern.keys[slot][at];
      this.starts[at] = a;
      this.ends[at] = an;
      this.json[at] = json;
      p = v + 3;
    }
    // A cell past the table's columns is read (and dropped) by readRow.
    if (!first && findBar(b, p, end) >= 0) return false;
    this.arena.len = an;
    intern.slot = slot;
    intern.hits[0] += pair - inOne;
    intern.hits[1] += inOne;
    if (first) this.cols = pair;
    this.rows++;
    return true;
  }

  /** The general row reader (every row when no layout is remembered); p: just past the first bar. */
  private readRow(b: Uint8Array, dv: DataView, start: number, p: number, end: number): boolean {
    const base = this.rows * this.cols;
    const first = this.rows === 0;
    const intern = this.intern;
    const arena = this.arena;
    const ab = arena.reserve(end - start);
    let an = arena.len;
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
        // The current layout first, then the other one (one call site: a smaller compiled loop).
        for (let t = 0, s = intern.slot; t < 2; t++, s = 1 - s) {
          const prev = intern.raws[s][at];
          if (prev !== undefined && p + prev.bytes.length <= end && sameBytes(b, dv, p, prev)) {
            kEnd = p + prev.bytes.length - 3;
            key = intern.keys[s][at];
            intern.slot = s;
            ks = p + prev.keyStart;
            ke = p + prev.keyEnd;
            break;
          }
        }
      }
      if (kEnd >= 0) {
        intern.hits[intern.slot]++;
      } else {
        kEnd = findBar(b, p, end);
        if (kEnd < 0) break;
        if (hasEscape(b, p, kEnd)) return this.unread(start, end);
        ks = p;
        ke = kEnd;
        while (ks < ke && b[ks] === 0x20) ks++;
        while (ke > ks && b[ke - 1] === 0x20) ke--;
        if (use && ke > ks) {
          const raw = latin1Slice(b, ks, ke);
          key = intern.text(raw);
          if (at < 100_000 && this.remember) {
            intern.raws[intern.fill][at] = keyBytes(b, p, kEnd + 3, ks, ke);
            intern.keys[intern.fill][at] = key;
          }
        }
      }
      const vStart = kEnd + 3;
      // The value: spaces, one run of printable ASCII, spaces, a bar; anything else (inner
      // spaces, non-ASCII) takes the general scan. The run is copied to the arena as it is
      // scanned (room for the whole row was made above); a cell that is not kept drops it.
      const a = an;
      let vs = vStart;
      while (vs < end && b[vs] === 0x20) vs++;
      let ve = vs;
      let c = 0;
      while (ve < end && (c = b[ve]) > 0x20 && c < 0x80) {
        ab[an++] = c;
        ve++;
      }
      let vEnd = ve;
      while (vEnd < end && b[vEnd] === 0x20) vEnd++;
      if (!isBar(b, vEnd, end)) {
        vEnd = findBar(b, vStart, end);
        if (vEnd < 0) break;
        if (hasEscape(b, vStart, vEnd)) return this.unread(start, end);
        vs = vStart;
        ve = vEnd;
        while (vs < ve && b[vs] === 0x20) vs++;
        while (ve > vs && b[ve - 1] === 0x20) ve--;
        an = a;
        for (let k = vs; k < ve; k++) ab[an++] = b[k];
      }
      if (use && key !== undefined) {
        this.keys[at] = key;
        this.starts[at] = a;
        this.ends[at] = an;
        this.json[at] = isSci4(ab, a, an) || isJsonNumberBytes(ab, a, an);
      } else {
        if (use) this.keys[at] = undefined;
        an = a;
      }
      pair++;
      p = vEnd + 3;
    }
    arena.len = an;
    if (first) {
      if (pair === 0) return true;
      this.cols = pair;
    }
    for (let j = pair; j < this.cols; j++) this.keys[base + j] = undefined;
    this.rows++;
    return true;
  }

  /** addRow gives up on a row: its bytes are not counted (the row comes again, stripped). The
   *  cells it wrote belong to a row not yet counted, and the key cells it remembered held no
   *  escape code: both stay right for the stripped row. */
  private unread(start: number, end: number): false {
    this.bytes -= end - start + 1;
    return false;
  }

  /** Appends the table's cells in the order the trainer's dict had them. */
  collect(out: StepCells): void {
    const { rows, cols, keys, starts, ends, json } = this;
    const oKeys = out.keys;
    const oStarts = out.starts;
    const oEnds = out.ends;
    const oJson = out.json;
    let n = out.n;
    for (let j = 0; j < cols; j++) {
      for (let i = 0; i < rows; i++) {
        const at = i * cols + j;
        const k = keys[at];
        if (k !== undefined) {
          oKeys[n] = k;
          oStarts[n] = starts[at];
          oEnds[n] = ends[at];
          oJson[n] = json[at];
          n++;
        }
      }
    }
    out.n = n;
  }
}

/** A DataView of `b`, made once per chunk by the caller of the row reader. Never made inside the
 *  hot line loop: code that runs once per chunk there has no type feedback when the loop is
 *  optimized (within the first chunk), so the second chunk would throw the optimized code out
 *  and wait tens of milliseconds for it to be compiled again. */
export function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** The first `│` (E2 94 82) in bytes [from, end), or -1. A plain loop: cheaper than a native
 *  indexOf call for the few dozen bytes of a cell. */
function findBar(b: Uint8Array, from: number, end: number): number {
  for (let i = from; i + 2 < end; i++) {
    if (b[i] === 0xe2 && b[i + 1] === 0x94 && b[i + 2] === 0x82) return i;
  }
  return -1;
}

/** Bytes from `start` equal the remembered cell (the caller checked they fit). */
function sameBytes(b: Uint8Array, dv: DataView, start: number, cell: KeyBytes): boolean {
  // Eight bytes at a time (as doubles: see KeyBytes.quads), then four, then the rest.
  const { bytes, words } = cell;
  const quads = cell.quads ?? (cell.quads = quadsOf(bytes));
  const nq = quads.length;
  for (let k = 0; k < nq; k++) if (dv.getFloat64(start + 8 * k, true) !== quads[k]) return false;
  for (let k = 2 * nq; k < words.length; k++) if (dv.getInt32(start + 4 * k, true) !== words[k]) return false;
  for (let i = words.length * 4; i < bytes.length; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

/** The length of a `[-]d.dddde±dd` value (see isSci4) at `v` that is a whole printable run (a
 *  byte <= space or >= 0x80 follows), with twelve bytes from `v` inside the row; else 0. */
function sci4Length(b: Uint8Array, v: number, end: number): number {
  const s = b[v] === 0x2d ? v + 1 : v;
  if (s + 12 > end) return 0;
  const c = b[s + 10];
  return (c <= 0x20 || c >= 0x80) && sci4At(b, s) ? s + 10 - v : 0;
}

/** `d.dddde±dd` in the ten bytes at `s` (no sign): checked without a loop. */
function sci4At(b: Uint8Array, s: number): boolean {
  return (
    b[s + 1] === 0x2e &&
    b[s + 6] === 0x65 &&
    (b[s + 7] === 0x2b || b[s + 7] === 0x2d) &&
    (b[s] - 0x30) >>> 0 < 10 &&
    (b[s + 2] - 0x30) >>> 0 < 10 &&
    (b[s + 3] - 0x30) >>> 0 < 10 &&
    (b[s + 4] - 0x30) >>> 0 < 10 &&
    (b[s + 5] - 0x30) >>> 0 < 10 &&
    (b[s + 8] - 0x30) >>> 0 < 10 &&
    (b[s + 9] - 0x30) >>> 0 < 10
  );
}

/** A DataView of the arena's buffer, made again only when the arena grew (not a field of the
 *  arena: its state is written to watch snapshots, which hold no views). */
let viewed: Uint8Array | null = null;
let view: DataView | null = null;
function arenaView(ab: Uint8Array): DataView {
  if (viewed !== ab || view === null) {
    view = viewOf(ab);
    viewed = ab;
  }
  return view;
}

/** `[-]d.dddde±dd`, the table's floatfmt=".4e" (most cells): a JSON number. Anything else is
 *  left to isJsonNumberBytes. */
function isSci4(b: Uint8Array, s: number, e: number): boolean {
  if (b[s] === 0x2d) s++;
  return e - s === 10 && sci4At(b, s);
}

/** An ESC in bytes [from, end): a cell that must be read without its escape codes. The usual
 *  cells cannot hold one (a remembered key cell has none, a value run stops at any control
 *  byte), so this runs only on the cells that take the slow scans. */
function hasEscape(b: Uint8Array, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (b[i] === 0x1b) return true;
  return false;
}

function isBar(b: Uint8Array, at: number, end: number): boolean {
  return at + 2 < end && b[at] === 0xe2 && b[at + 1] === 0x94 && b[at + 2] === 0x82;
}
