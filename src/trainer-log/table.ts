// The stats table of a train step: tabulate(..., tablefmt="fancy_grid", floatfmt=".4e") with
// 4 key/value pairs per row, keys filled column-major. Table lines are most of the bytes of a log:
// separator lines are skipped by their first bytes without being decoded; a row is decoded alone
// (latin1, a plain copy), its values are parsed in place, and its keys are compared in place with
// the key at the same cell of the previous table (a run prints the same layout every step).
import { bytesToUtf8, parseNumber } from './text.js';

const BAR = '\xe2\x94\x82';

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

/** Collects the rows of one table, then yields the pairs in the trainer's (column-major) order. */
export class TableBuilder {
  private keys: (string | undefined)[] = [];
  private values: (number | null)[] = [];
  /** The value as printed when it is already a valid JSON number (most are: `1.2345e-03`). */
  private raws: (string | undefined)[] = [];
  private rows = 0;
  private cols = 0;
  bytes = 0;
  truncated = false;

  constructor(
    private readonly maxBytes: number,
    private readonly intern: KeyInterner,
  ) {}

  /** Reads one `│ key │ value │ …` row, given as a latin1 string (one char per byte). */
  addRowText(s: string): void {
    this.bytes += s.length + 1;
    if (this.bytes > this.maxBytes) {
      this.truncated = true;
      return;
    }
    let p = s.indexOf(BAR);
    if (p < 0) return;
    p += 3;
    const base = this.rows * this.cols;
    let pair = 0;
    for (;;) {
      const kEnd = s.indexOf(BAR, p);
      if (kEnd < 0) break;
      const vStart = kEnd + 3;
      const vEnd = s.indexOf(BAR, vStart);
      if (vEnd < 0) break;
      let ks = p;
      let ke = kEnd;
      while (ks < ke && s.charCodeAt(ks) === 0x20) ks++;
      while (ke > ks && s.charCodeAt(ke - 1) === 0x20) ke--;
      if (this.rows === 0 || pair < this.cols) {
        const at = base + pair;
        if (ke > ks) {
          // Same key as at this position in the previous table? Compare in place, no slice.
          const prev = this.intern.byPosition[at];
          if (prev !== undefined && prev.length === ke - ks && s.startsWith(prev, ks)) {
            this.keys[at] = prev;
          } else {
            const k = this.intern.text(s.slice(ks, ke));
            this.keys[at] = k;
            if (at < 100_000) this.intern.byPosition[at] = k;
          }
          let vs = vStart;
          let ve = vEnd;
          while (vs < ve && s.charCodeAt(vs) === 0x20) vs++;
          while (ve > vs && s.charCodeAt(ve - 1) === 0x20) ve--;
          const v = parseNumber(s, vs, ve);
          this.values[at] = v;
          this.raws[at] = v !== null && isJsonNumber(s, vs, ve) ? s.slice(vs, ve) : undefined;
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
    for (let j = pair; j < this.cols; j++) this.keys[base + j] = undefined;
    this.rows++;
  }

  /** Appends the table's pairs in the order the trainer's dict had them. */
  collect(keysOut: string[], valuesOut: (number | null)[], rawsOut: (string | undefined)[]): void {
    const { rows, cols, keys, values, raws } = this;
    for (let j = 0; j < cols; j++) {
      for (let i = 0; i < rows; i++) {
        const at = i * cols + j;
        const k = keys[at];
        if (k !== undefined) {
          keysOut.push(k);
          valuesOut.push(values[at]);
          rawsOut.push(raws[at]);
        }
      }
    }
  }
}

type Maker = (v: (number | null)[]) => Record<string, number | null>;

/** Builds stats objects. Steps repeat the same key set, so for each key set seen a small
 *  function with an object literal is compiled once: its objects are created in one go with a
 *  fixed shape, which is several times cheaper to build, serialise and enumerate than an object
 *  grown key by key (V8 turns those into slow dictionaries past a few dozen keys). */
interface Shape {
  keys: string[];
  make: Maker | null;
  seen: number;
  /** `"key":` per key, for the JSON form. */
  prefixes: string[] | null;
}

/** Printed texts of a frozen stats object's values, for eventToJsonLine (see json.ts). */
export interface RawStats {
  prefixes: string[];
  raws: (string | undefined)[];
  values: (number | null)[];
}
/** Hidden (non-enumerable symbol) property of a stats object: invisible to Object.keys, JSON and
 *  deep-equality helpers. A WeakMap would do the same but costs ephemeron work in every GC. */
export const RAW_STATS = Symbol('awrl.rawStats');

export function rawStatsOf(stats: object): RawStats | undefined {
  return (stats as { [RAW_STATS]?: RawStats })[RAW_STATS];
}

export class StatsShapes {
  private shapes: Shape[] = [];

  build(keys: string[], values: (number | null)[], raws?: (string | undefined)[]): Record<string, number | null> {
    const shapes = this.shapes;
    let shape: Shape | null = null;
    for (let i = 0; i < shapes.length; i++) {
      const s = shapes[i];
      if (!sameKeys(s.keys, keys)) continue;
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(s);
      }
      // Compile only for a key set that recurs: a one-off table is cheaper built key by key.
      if (s.make === null && ++s.seen >= 3) {
        s.make = compile(keys);
        s.prefixes = keys.map((k) => JSON.stringify(k) + ':');
      }
      shape = s;
      break;
    }
    if (shape === null && keys.length > 0 && keys.length <= 2000 && !keys.includes('__proto__') && new Set(keys).size === keys.length) {
      shapes.unshift({ keys: [...keys], make: null, seen: 1, prefixes: null });
      if (shapes.length > 16) shapes.pop();
    }
    const stats = shape?.make ? shape.make(values) : dynamic(keys, values);
    if (shape?.prefixes && raws) {
      // Frozen, so the printed texts can never disagree with the values.
      Object.defineProperty(stats, RAW_STATS, { value: { prefixes: shape.prefixes, raws, values } });
      Object.freeze(stats);
    }
    return stats;
  }
}

function compile(keys: string[]): Maker {
  const body = 'return {' + keys.map((k, i) => `${JSON.stringify(k)}:v[${i}]`).join(',') + '};';
  return new Function('v', body) as Maker;
}

function dynamic(keys: string[], values: (number | null)[]): Record<string, number | null> {
  const o: Record<string, number | null> = {};
  for (let i = 0; i < keys.length; i++) o[keys[i]] = values[i];
  return o;
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Intern table for stats keys, bounded (cleared when full). */
export class KeyInterner {
  private texts = new Map<string, string>();
  /** The key seen at each cell position of the previous table: tables repeat their layout. */
  readonly byPosition: (string | undefined)[] = [];

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


/** JSON's number grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? (Python's `1.2345e-03` qualifies). */
export function isJsonNumber(s: string, a: number, b: number): boolean {
  let i = a;
  if (i < b && s.charCodeAt(i) === 0x2d) i++;
  if (i >= b) return false;
  let c = s.charCodeAt(i);
  if (c === 0x30) {
    i++;
  } else if (c >= 0x31 && c <= 0x39) {
    while (i < b && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
  } else {
    return false;
  }
  if (i < b && s.charCodeAt(i) === 0x2e) {
    const d = ++i;
    while (i < b && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
    if (i === d) return false;
  }
  if (i < b && (s.charCodeAt(i) | 0x20) === 0x65) {
    i++;
    if (i < b && ((c = s.charCodeAt(i)) === 0x2b || c === 0x2d)) i++;
    const d = i;
    while (i < b && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
    if (i === d) return false;
  }
  return i === b;
}
