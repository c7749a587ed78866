// The stats table of a train step: tabulate(..., tablefmt="fancy_grid", floatfmt=".4e") with
// 4 key/value pairs per row, keys filled column-major. Rows are read straight from the latin1
// line text (no slicing of the whole line, no regex): this is where almost all bytes of a log go.
import { bytesToUtf8, parseNumber } from './text.js';

/** `│` (U+2502) as latin1 bytes, and the other first characters of table lines. */
export const BAR = '\xe2\x94\x82';
export const TOP = '\xe2\x95\x92'; // ╒
export const MID = '\xe2\x94\x9c'; // ├
export const BOTTOM = '\xe2\x95\x98'; // ╘

export type TableLine = 'row' | 'top' | 'mid' | 'bottom' | null;

/** Classifies a line by its first character (latin1 text, `at` = index of the first byte). */
export function tableLineKind(s: string, at: number): TableLine {
  if (s.charCodeAt(at) !== 0xe2) return null;
  const b1 = s.charCodeAt(at + 1);
  const b2 = s.charCodeAt(at + 2);
  if (b1 === 0x94) {
    if (b2 === 0x82) return 'row';
    if (b2 === 0x9c) return 'mid';
  } else if (b1 === 0x95) {
    if (b2 === 0x92) return 'top';
    if (b2 === 0x98) return 'bottom';
  }
  return null;
}

/** Collects the rows of one table, then yields the pairs in the trainer's (column-major) order. */
export class TableBuilder {
  private keys: (string | undefined)[] = [];
  private values: (number | null)[] = [];
  private rows = 0;
  private cols = 0;
  bytes = 0;
  truncated = false;

  constructor(
    private readonly maxBytes: number,
    private readonly intern: (raw: string) => string,
  ) {}

  addRow(s: string, start: number, end: number): void {
    this.bytes += end - start + 1;
    if (this.bytes > this.maxBytes) {
      this.truncated = true;
      return;
    }
    let p = s.indexOf(BAR, start);
    if (p < 0 || p >= end) return;
    p += 3;
    const base = this.rows * this.cols;
    let pair = 0;
    for (;;) {
      const kEnd = s.indexOf(BAR, p);
      if (kEnd < 0 || kEnd >= end) break;
      const vStart = kEnd + 3;
      const vEnd = s.indexOf(BAR, vStart);
      if (vEnd < 0 || vEnd >= end) break;
      let ks = p;
      let ke = kEnd;
      while (ks < ke && s.charCodeAt(ks) === 0x20) ks++;
      while (ke > ks && s.charCodeAt(ke - 1) === 0x20) ke--;
      if (this.rows === 0 || pair < this.cols) {
        const at = base + pair;
        if (ke > ks) {
          this.keys[at] = this.intern(s.slice(ks, ke));
          this.values[at] = parseNumber(s, vStart, vEnd);
        } else {
          this.keys[at] = undefined;
        }
      }
      pair++;
      p = vEnd + 3;
    }
    if (this.rows === 0) {
      if (pair === 0) return;
      this.cols = pair;
    }
    // A row with fewer pairs than the first leaves holes: those keys stay undefined.
    for (let j = pair; j < this.cols; j++) this.keys[base + j] = undefined;
    this.rows++;
  }

  /** Adds the table's pairs to `into` in the order the trainer's dict had them. */
  collect(into: Record<string, number | null>): void {
    const { rows, cols, keys, values } = this;
    for (let j = 0; j < cols; j++) {
      for (let i = 0; i < rows; i++) {
        const at = i * cols + j;
        const k = keys[at];
        if (k !== undefined) into[k] = values[at];
      }
    }
  }
}

/** Interns table keys so that the few hundred distinct keys of a run are one flat copy each
 *  (slices of a chunk would keep the whole chunk alive) and are decoded from UTF-8 once. */
export function makeInterner(limit = 20_000): (raw: string) => string {
  let cache = new Map<string, string>();
  return (raw) => {
    const hit = cache.get(raw);
    if (hit !== undefined) return hit;
    if (cache.size >= limit) cache = new Map();
    // A JSON round trip forces a fresh flat string (the key must not pin the chunk either).
    const key = JSON.parse(JSON.stringify(raw)) as string;
    const value = bytesToUtf8(key);
    cache.set(key, value);
    return value;
  };
}
