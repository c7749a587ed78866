// Stats objects of steps, built fast for the key sets a run repeats, and the printed bytes of
// their values kept behind a hidden symbol for eventToJsonLine.
import type { StepEvent } from './events.js';
import type { PrintedCells } from './table-cells.js';
import { parseNumberBytes } from './text.js';

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

/** A parsed step's stats as printed: its keys, the bytes of its values, `"key":` per key for the
 *  JSON form, and the numbers read from those bytes when first asked for. A follow reads a few
 *  keys of each step (the rules') and writes the rest as printed, so a 200-key step costs no
 *  200 numbers and no object unless someone asks (test/bench/stream.bench.mjs). Kept hidden on
 *  the step event (RAW_STEP) and on its stats object once made (RAW_STATS). */
export class PrintedStats {
  private numbers: (number | null)[] | null = null;
  private made: Record<string, number | null> | null = null;

  constructor(
    /** In the table's order; one array per key set (the same array for every step of it). */
    readonly keys: readonly string[],
    readonly prefixes: Uint8Array[],
    readonly printed: PrintedCells,
    /** The table's order is Object.keys order (no key is an array index, which would come first). */
    readonly ordered: boolean,
    private readonly shape: Shape | null,
  ) {}

  /** The i-th key's value as Python's float() reads its printed text (null: no number). */
  value(i: number): number | null {
    const numbers = (this.numbers ??= new Array<number | null>(this.keys.length));
    let v = numbers[i];
    if (v === undefined)
      v = numbers[i] = parseNumberBytes(this.printed.bytes, this.printed.starts[i], this.printed.ends[i]);
    return v;
  }

  /** Every value, in the keys' order. */
  values(): readonly (number | null)[] {
    for (let i = 0; i < this.keys.length; i++) this.value(i);
    return this.numbers ?? [];
  }

  /** Where `key` is in `keys`, or -1. */
  index(key: string): number {
    return indexOfKeys(this.keys).get(key) ?? -1;
  }

  /** The stats object (made once): a fixed shape for a key set that recurs. */
  object(): Record<string, number | null> {
    if (this.made !== null) return this.made;
    const values = this.values() as (number | null)[];
    const shape = this.shape;
    const stats = shape?.jsonPrefixes ? (shape.make ??= compile(shape.keys))(values) : dynamic(this.keys, values);
    // Not frozen: freezing a 200-key object cost more than building it. A parsed step's stats are
    // read, never changed (events.ts): the store and the JSON writer read them from here.
    Object.defineProperty(stats, RAW_STATS, { value: this });
    return (this.made = stats);
  }
}

/** A consumer of a step's keys and values without its stats object (the metrics store, the rules). */
export interface StatsColumns {
  /** One array per key set (the same array for every step of it): compare by identity first. */
  readonly keys: readonly string[];
  value(i: number): number | null;
  values(): readonly (number | null)[];
  index(key: string): number;
}

/** Hidden (non-enumerable symbol) properties: invisible to Object.keys, JSON and deep-equality
 *  helpers. A WeakMap would do the same but costs ephemeron work in every GC. */
export const RAW_STATS = Symbol('awrl.rawStats');
const RAW_STEP = Symbol('awrl.rawStep');

type WithRawStep = StepEvent & { [RAW_STEP]?: PrintedStats };

/** A parsed step whose `stats` object is made when first read (an own, enumerable property all
 *  the same: JSON, spreads and deep equality see it as a plain one). */
export function lazyStep(head: Omit<StepEvent, 'stats'>, raw: PrintedStats): StepEvent {
  const e = { ...head };
  Object.defineProperty(e, 'stats', { get: readStats, set: replaceStats, enumerable: true, configurable: true });
  Object.defineProperty(e, RAW_STEP, { value: raw, writable: true });
  return e as StepEvent;
}

/** Once made, the stats object is a plain property that carries the printed stats itself
 *  (RAW_STATS): stats set anew later are read as they are, never the old printed ones. */
function readStats(this: WithRawStep): Readonly<Record<string, number | null>> {
  const stats = this[RAW_STEP]!.object();
  this[RAW_STEP] = undefined;
  Object.defineProperty(this, 'stats', { value: stats, writable: true, enumerable: true, configurable: true });
  return stats;
}

function replaceStats(this: WithRawStep, stats: Readonly<Record<string, number | null>>): void {
  this[RAW_STEP] = undefined;
  Object.defineProperty(this, 'stats', { value: stats, writable: true, enumerable: true, configurable: true });
}

export function rawStatsOf(stats: object): PrintedStats | undefined {
  return (stats as { [RAW_STATS]?: PrintedStats })[RAW_STATS];
}

/** A parsed step's printed stats (without making its stats object), or undefined for a step not
 *  made by the parser. */
export function printedStatsOf(e: Pick<StepEvent, 'stats'>): PrintedStats | undefined {
  return (e as WithRawStep)[RAW_STEP] ?? rawStatsOf(e.stats);
}

/** A parsed step's keys and values (`value(i)` is `stats[keys[i]]`, keys in Object.keys order),
 *  without its stats object: for the store and the rules, which read a few keys of every step.
 *  Undefined for stats not made by the parser, or with an array-index key. */
export function stepColumns(e: Pick<StepEvent, 'stats'>): StatsColumns | undefined {
  const raw = printedStatsOf(e);
  return raw?.ordered ? raw : undefined;
}

/** One key's value in a step (what `e.stats[key]` holds), read without making its stats object. */
export function stepValue(e: Pick<StepEvent, 'stats'>, key: string): number | null | undefined {
  const c = stepColumns(e);
  if (c === undefined) return e.stats[key];
  const i = c.index(key);
  return i < 0 ? undefined : c.value(i);
}

const keyIndexes = new WeakMap<readonly string[], Map<string, number>>();

/** A key set's positions (made once per key array: the arrays of a key set are shared). */
function indexOfKeys(keys: readonly string[]): Map<string, number> {
  let m = keyIndexes.get(keys);
  if (m === undefined) {
    m = new Map();
    for (let i = 0; i < keys.length; i++) m.set(keys[i], i);
    keyIndexes.set(keys, m);
  }
  return m;
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

  /** The printed stats of a step (its stats object made when asked for): null for a key set whose
   *  object would not keep its keys as they are (duplicates, `__proto__`): that step's object is
   *  made at once by `make`, and its JSON line from the object. */
  printed(shape: Shape | null, keys: string[], printed: PrintedCells): PrintedStats | null {
    const prefixes = shape?.jsonPrefixes ?? (isPlainKeySet(keys) ? jsonPrefixes(keys) : null);
    if (prefixes === null) return null;
    return new PrintedStats(
      shape ? shape.keys : [...keys],
      prefixes,
      printed,
      shape ? shape.ordered : inOrder(keys),
      shape,
    );
  }

  /** The stats object of a key set `printed` does not take, made at once, key by key (a later
   *  duplicate's value wins, as in the trainer's dict). */
  make(keys: string[], printed: PrintedCells): Record<string, number | null> {
    const values = keys.map((_, i) => parseNumberBytes(printed.bytes, printed.starts[i], printed.ends[i]));
    return dynamic(keys, values);
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

function dynamic(keys: readonly string[], values: readonly (number | null)[]): Record<string, number | null> {
  const o: Record<string, number | null> = {};
  for (let i = 0; i < keys.length; i++) o[keys[i]] = values[i];
  return o;
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
