// Stats objects of steps, built fast for the key sets a run repeats, and the printed texts of
// their values kept behind a hidden symbol for eventToJsonLine.

type Maker = (v: (number | null)[]) => Record<string, number | null>;

/** Builds stats objects. Steps repeat the same key set, so for each key set seen a small
 *  function with an object literal is compiled once: its objects are created in one go with a
 *  fixed shape, which is several times cheaper to build, serialise and enumerate than an object
 *  grown key by key (V8 turns those into slow dictionaries past a few dozen keys). */
export interface Shape {
  keys: string[];
  make: Maker | null;
  seen: number;
  /** `"key":` per key, for the JSON form. */
  prefixes: string[] | null;
  /** The same as UTF-8 bytes, with the separating comma (all but the first), for JsonLinesParser. */
  jsonPrefixes: Uint8Array[] | null;
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
      if (s.prefixes === null && (++s.seen >= 3 || json)) withPrefixes(s);
      return s;
    }
    if (isPlainKeySet(keys)) {
      const s: Shape = { keys: [...keys], make: null, seen: 1, prefixes: null, jsonPrefixes: null };
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
    raws?: (string | undefined)[],
  ): Record<string, number | null> {
    let stats: Record<string, number | null>;
    if (shape?.prefixes) {
      shape.make ??= compile(shape.keys);
      stats = shape.make(values);
    } else {
      stats = dynamic(keys, values);
    }
    // Every step's JSON writes the printed texts, the first steps of a key set too: the same log
    // gives the same bytes whatever a parser saw before (a follower reset after a rotation).
    const prefixes = raws
      ? (shape?.prefixes ?? (isPlainKeySet(keys) ? keys.map((k) => JSON.stringify(k) + ':') : null))
      : null;
    if (prefixes !== null && raws) {
      // Frozen, so the printed texts can never disagree with the values.
      Object.defineProperty(stats, RAW_STATS, { value: { prefixes, raws, values } });
      Object.freeze(stats);
    }
    return stats;
  }
}

function withPrefixes(s: Shape): Shape {
  s.prefixes = s.keys.map((k) => JSON.stringify(k) + ':');
  s.jsonPrefixes = s.prefixes.map((p, j) => Buffer.from(j > 0 ? ',' + p : p, 'utf8'));
  return s;
}

/** Keys an object literal keeps as they are: distinct (a duplicate's later value wins in an object)
 *  and no `__proto__` (which would set the prototype). */
function isPlainKeySet(keys: string[]): boolean {
  return keys.length > 0 && keys.length <= 2000 && !keys.includes('__proto__') && new Set(keys).size === keys.length;
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
