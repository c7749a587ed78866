// The keys of stats tables, remembered so the table reader (table.ts) rarely makes a string:
// a run prints the same key layout every step (or alternates two, e.g. evaluation steps add
// keys), so each cell position remembers the key bytes it held in two recent layouts, and a
// row's key cell is compared with them on bytes. Only a key new at its cell becomes a string,
// and that string is interned: one flat copy per distinct key.
import { bytesToUtf8 } from './text.js';

/** A key's latin1 bytes, and the same as little-endian 32-bit words (the whole ones), so the
 *  row reader compares a key four bytes at a time. */
export interface KeyBytes {
  bytes: Uint8Array;
  words: Int32Array;
}

/** A copy of bytes [start, end) as KeyBytes. */
export function keyBytes(b: Uint8Array, start: number, end: number): KeyBytes {
  const bytes = Uint8Array.prototype.slice.call(b, start, end);
  const words = new Int32Array((end - start) >> 2);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let k = 0; k < words.length; k++) words[k] = dv.getInt32(4 * k, true);
  return { bytes, words };
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
