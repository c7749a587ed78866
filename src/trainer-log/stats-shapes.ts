// Stats objects of steps, built fast for the key sets a run repeats, and the printed bytes of
// their values kept behind a hidden symbol for eventToJsonLine.
import type { PrintedCells } from './table-cells.js';

type Maker = (v: (number | null)[]) => Record<string, number | null>;

/** Builds stats objects. Steps repeat the same key set, so for each key set seen a small
 *  function with an object literal is compiled once: its objects are created in one go with a
 *  fixed shape, which is several times cheaper to build, serialise and enumerate than an object
 *  grown key by key (V8 turns those into slow dictionaries past a few dozen keys). */
export interface Shape {
  keys: string[];
  make: Maker | null;
  seen: number;
  /** No key is an array index: an object's keys enumerate in this order. */
  ordered: boolean;
  /** `"key":` per key as UTF-8 bytes, with the separating comma (all but the first), for the JSON
   *  form; null until the key set recurs (or JSON Lines are written). */
  jsonPrefixes: Uint8Array[] | null;
}

/** Printed values of a parsed stats object, for its JSON line (event-json.ts): `"key":` bytes per
 *  key (with the separating comma, all but the first) and the value bytes as printed. */
export interface RawStats {
  prefixes: Uint8Array[];
  printed: PrintedCells;
  /** The keys in the table's order and their values, side by side. */
  columns: StatsColumns;
  /** The table's order is Object.keys order (no key is an array index, which would come first). */
  ordered: boolean;
}

export interface StatsColumns {
  /** One array per key set (the same array for every step of it): compare by identity first. */
  keys: readonly string[];
  values: readonly (number | null)[];
}
/** Hidden (non-enumerable symbol) property of a stats object: invisible to Object.keys, JSON and
 *  deep-equality helpers. A WeakMap would do the same but costs ephemeron work in every GC. */
export const RAW_STATS = Symbol('awrl.rawStats');

export function rawStatsOf(stats: object): RawStats | undefined {
  return (stats as { [RAW_STATS]?: RawStats })[RAW_STATS];
}

/** A parsed step's stats as two arrays (`values[i]` is `stats[keys[i]]`, keys in Object.keys
 *  order), without enumerating the object: for a consumer of every key of every step (the metrics
 *  store). Undefined for stats not made by the parser, or with an array-index key. */
export function statsColumns(stats: object): StatsColumns | undefined {
  const raw = rawStatsOf(stats);
  return raw?.ordered ? raw.columns : undefined;
}

export class StatsShapes {
  private shapes: Shape[] = [];

  /** The known shape of this key set (most recently used first), compiled once it recurs.
   *  `json`: the caller writes JSON Lines (no objects), so the shape's prefixes are made at once:
   *  the first steps of a key set need not take the object path, whose number parsing would
   *  otherwise get hot enough to be compiled, ahead of the row reader, while the parse is cold. */
  find(keys: string[], json = false): Shape | null {
    const shapes = this.shapes;
    for (let i = 0; i < shapes.length; i++) {
      const s = shapes[i];
      if (!sameKeys(s.keys, keys)) continue;
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(s);
      }
      // Only a key set that recurs gets a fixed shape: a one-off table is cheaper built key by
      // key. Its maker is compiled when an object is first needed (JSON Lines never need one).
      if (s.jsonPrefixes === null && (++s.seen >= 3 || json)) withPrefixes(s);
      return s;
    }
    if (isPlainKeySet(keys)) {
      const s: Shape = { keys: [...keys], make: null, seen: 1, ordered: inOrder(keys), jsonPrefixes: null };
      shapes.unshift(s);
      if (shapes.length > 16) shapes.pop();
      if (json) return withPrefixes(s);
    }
    return null;
  }

  make(
    shape: Shape | null,
    keys: string[],
    values: (number | null)[],
    printed?: PrintedCells,
  ): Record<string, number | null> {
    let stats: Record<string, number | null>;
    if (shape?.jsonPrefixes) {
      shape.make ??= compile(shape.keys);
      stats = shape.make(values);
    } else {
      stats = dynamic(keys, values);
    }
    // Every step's JSON writes the printed values, the first steps of a key set too: the same log
    // gives the same bytes whatever a parser saw before (a follower reset after a rotation).
    const prefixes = printed ? (shape?.jsonPrefixes ?? (isPlainKeySet(keys) ? jsonPrefixes(keys) : null)) : null;
    if (prefixes !== null && printed) {
      const ordered = shape ? shape.ordered : inOrder(keys);
      const columns = { keys: shape ? shape.keys : [...keys], values };
      const raw: RawStats = { prefixes, printed, columns, ordered };
      // Not frozen: freezing a 200-key object cost more than building it, and checking it against
      // these on every JSON line nearly as much. A parsed step's stats are read, never changed
      // (events.ts): the store and the JSON writer take the numbers and bytes from here.
      Object.defineProperty(stats, RAW_STATS, { value: raw });
    }
    return stats;
  }
}

function withPrefixes(s: Shape): Shape {
  s.jsonPrefixes = jsonPrefixes(s.keys);
  return s;
}

function jsonPrefixes(keys: string[]): Uint8Array[] {
  return keys.map((k, j) => Buffer.from((j > 0 ? ',' : '') + JSON.stringify(k) + ':', 'utf8'));
}

/** Keys an object literal keeps as they are: distinct (a duplicate's later value wins in an object)
 *  and no `__proto__` (which would set the prototype). */
function isPlainKeySet(keys: string[]): boolean {
  return keys.length > 0 && keys.length <= 2000 && !keys.includes('__proto__') && new Set(keys).size === keys.length;
}

/** No key is an array index ("0" up to 2^32 - 2): Object.keys lists such keys first. */
function inOrder(keys: readonly string[]): boolean {
  return !keys.some((k) => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 2 ** 32 - 1);
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
