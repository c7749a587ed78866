// A graph of objects as JSON and back, exactly: what a watch's state snapshot (src/watch's
// watch-snapshot.ts) is made of. The state is the rules', the store's and the reader's own objects
// (class instances with private fields, Maps, typed arrays, objects shared between two owners), so
// it is written field by field rather than through a serializer per class that would have to be
// kept in step with every field added: what the classes hold is what is written, and restored
// objects get their class back from a registry of constructors by name. Shared objects and cycles
// stay shared (an alert held by the history and by the current list is one object after restore).
// Typed arrays (the store's series: most of a state's bytes) are not in the JSON: their bytes go,
// trailing zero bytes left out (a young run's series are mostly unused capacity), into one buffer
// beside it, each node naming its length and where its bytes are. As base64 strings in the JSON
// they made a long run's state 14 MB of text, 0.4 s to write (most of it the gzip of the base64).
// Hidden (non-enumerable) symbol properties, caches by design, are left out; getters are read.
// What cannot be written exactly (a function, a symbol, a bigint, a class not in the registry)
// throws a GraphError naming where it is: the caller falls back rather than restore something else.
// Pure.

export class GraphError extends Error {}

/** Constructors by name: the classes a graph may hold. */
export type ClassRegistry = ReadonlyMap<string, abstract new (...a: never[]) => unknown>;

export function classRegistry(classes: readonly (abstract new (...a: never[]) => unknown)[]): ClassRegistry {
  return new Map(classes.map((c) => [c.name, c]));
}

/** A value: a JSON primitive, or one of these. */
type Encoded = null | boolean | number | string | { $r: number } | { $n: string } | { $u: 1 } | { $f: 1 };
type Node =
  | { a: Encoded[] }
  | { o: Record<string, Encoded> }
  | { c: string; f: Record<string, Encoded> }
  | { m: [Encoded, Encoded][] }
  | { s: Encoded[] }
  | { t: string; l: number; at: number; n: number }
  | { t: string; z: number };

export interface EncodedGraph {
  nodes: Node[];
  root: Encoded;
}

/** A graph and its typed arrays' bytes (a node `{t, l, at, n}`: `n` bytes at `at`, zeros after). */
export interface GraphWithBytes {
  graph: EncodedGraph;
  bytes: Buffer;
}

const TYPED = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Uint16Array,
  Uint8Array,
  Int8Array,
  Int16Array,
} as const;
type TypedName = keyof typeof TYPED;

export interface GraphFields {
  /** Fields whose functions are not state (their owner sets them again after a restore, or they
   *  are a cache): written as such, restored as null. */
  rewired?: ReadonlySet<string>;
  /** Fields (`Class.field`) whose byte arrays are scratch space (nothing in them is read before it
   *  is written again): written as their length, restored zeroed. */
  scratch?: ReadonlySet<string>;
}

export function encodeGraph(root: unknown, classes: ClassRegistry, o: GraphFields = {}): GraphWithBytes {
  const rewired = o.rewired ?? new Set<string>();
  const scratch = o.scratch ?? new Set<string>();
  const nodes: Node[] = [];
  const parts: Uint8Array[] = [];
  let byteEnd = 0;
  const seen = new Map<object, number>();
  const value = (v: unknown, at: string, key = '', owner = ''): Encoded => {
    switch (typeof v) {
      case 'function':
        if (rewired.has(key)) return { $f: 1 };
        throw new GraphError(`${at} is a function: not written in a snapshot`);
      case 'number':
        return Number.isFinite(v) && !Object.is(v, -0) ? v : { $n: String(Object.is(v, -0) ? '-0' : v) };
      case 'string':
      case 'boolean':
        return v;
      case 'undefined':
        return { $u: 1 };
      case 'object':
        if (v !== null && scratch.has(`${owner}.${key}`) && ArrayBuffer.isView(v)) return { $r: scratchNode(v) };
        return v === null ? null : { $r: node(v, at) };
      default:
        throw new GraphError(`${at} is a ${typeof v}: not written in a snapshot`);
    }
  };
  const fields = (o: object, at: string, owner = ''): Record<string, Encoded> => {
    // Hidden symbol properties are a parsed step's caches of its printed bytes (trainer-log's
    // stats-shapes.ts: its stats read from them, the same numbers): not written. Shown ones are state.
    if (Object.getOwnPropertySymbols(o).some((k) => Object.getOwnPropertyDescriptor(o, k)?.enumerable))
      throw new GraphError(`${at} has symbol keys`);
    const f: Record<string, Encoded> = {};
    for (const [k, x] of Object.entries(o)) f[k] = value(x, `${at}.${k}`, k, owner);
    return f;
  };
  const scratchNode = (v: ArrayBufferView): number => {
    const name = Buffer.isBuffer(v) ? 'Buffer' : v.constructor.name;
    if (name !== 'Buffer' && !(name in TYPED)) throw new GraphError(`scratch space of a ${name}`);
    nodes.push({ t: name, z: (v as Uint8Array).length });
    return nodes.length - 1;
  };
  const node = (o: object, at: string): number => {
    const known = seen.get(o);
    if (known !== undefined) return known;
    const i = nodes.length;
    seen.set(o, i);
    nodes.push({ a: [] });
    nodes[i] = shape(o, at);
    return i;
  };
  const shape = (o: object, at: string): Node => {
    if (Array.isArray(o)) return { a: Array.from(o, (x, k) => value(x, `${at}[${k}]`)) };
    if (o instanceof Map)
      return { m: [...o].map(([k, x], n) => [value(k, `${at}<key ${n}>`), value(x, `${at}<${n}>`)]) };
    if (o instanceof Set) return { s: [...o].map((x, n) => value(x, `${at}<${n}>`)) };
    if (ArrayBuffer.isView(o)) {
      const name = Buffer.isBuffer(o) ? 'Buffer' : o.constructor.name;
      if (name !== 'Buffer' && !(name in TYPED)) throw new GraphError(`${at} is a ${name}: not written in a snapshot`);
      const bytes = new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
      let n = bytes.length;
      while (n > 0 && bytes[n - 1] === 0) n--;
      parts.push(bytes.subarray(0, n));
      byteEnd += n;
      return { t: name, l: (o as Uint8Array).length, at: byteEnd - n, n };
    }
    const proto = Object.getPrototypeOf(o) as object | null;
    if (proto === Object.prototype || proto === null) return { o: fields(o, at) };
    const name = (proto.constructor as { name?: string } | undefined)?.name ?? '?';
    if (classes.get(name)?.prototype !== proto)
      throw new GraphError(`${at} is a ${name}, a class the snapshot has not`);
    return { c: name, f: fields(o, at, name) };
  };
  const graph = { nodes, root: value(root, 'state') };
  return { graph, bytes: Buffer.concat(parts, byteEnd) };
}

export function decodeGraph(g: EncodedGraph, classes: ClassRegistry, bytes: Uint8Array = new Uint8Array()): unknown {
  if (!g || !Array.isArray(g.nodes)) throw new GraphError('no nodes');
  const made: unknown[] = g.nodes.map((n) => shell(n, classes, bytes));
  const value = (e: Encoded): unknown => {
    if (e === null || typeof e !== 'object') return e;
    if ('$r' in e) {
      if (!(e.$r in made)) throw new GraphError(`no node ${e.$r}`);
      return made[e.$r];
    }
    if ('$u' in e) return undefined;
    if ('$f' in e) return null;
    if ('$n' in e) return e.$n === '-0' ? -0 : Number(e.$n);
    throw new GraphError('a value of no known kind');
  };
  g.nodes.forEach((n, i) => {
    const o = made[i] as Record<string, unknown>;
    if ('a' in n) for (const x of n.a) (o as unknown as unknown[]).push(value(x));
    else if ('m' in n) for (const [k, x] of n.m) (o as unknown as Map<unknown, unknown>).set(value(k), value(x));
    else if ('s' in n) for (const x of n.s) (o as unknown as Set<unknown>).add(value(x));
    else if ('o' in n || 'c' in n) for (const [k, x] of Object.entries('o' in n ? n.o : n.f)) o[k] = value(x);
  });
  return value(g.root);
}

function shell(n: Node, classes: ClassRegistry, bytes: Uint8Array): unknown {
  if ('a' in n) return [];
  if ('m' in n) return new Map();
  if ('s' in n) return new Set();
  if ('o' in n) return {};
  if ('t' in n) {
    const T = n.t === 'Buffer' ? null : TYPED[n.t as TypedName];
    if (T === undefined) throw new GraphError(`a ${n.t}: no such array`);
    if ('z' in n) return T ? new T(n.z) : Buffer.alloc(n.z);
    const a = T ? new T(n.l) : Buffer.alloc(n.l);
    const into = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    if (!(n.at >= 0 && n.n >= 0 && n.n <= into.length && n.at + n.n <= bytes.length))
      throw new GraphError(`a ${n.t} whose bytes are not all there`);
    into.set(bytes.subarray(n.at, n.at + n.n));
    return a;
  }
  const C = classes.get(n.c);
  if (!C) throw new GraphError(`a ${n.c}: a class the snapshot has not`);
  return Object.create(C.prototype as object) as unknown;
}

/** `target` takes `from`'s state, field by field, but for the fields named in `keep` (what the
 *  target's owner set itself: its options, its clock's marks, references to its siblings). Both of
 *  one class: restoring into the object others already hold keeps their references good. */
export function adoptState<T extends object>(target: T, from: T, keep: readonly string[] = []): void {
  if (Object.getPrototypeOf(target) !== Object.getPrototypeOf(from))
    throw new GraphError(`a ${from.constructor.name} restored into a ${target.constructor.name}`);
  const own = target as Record<string, unknown>;
  for (const [k, v] of Object.entries(from)) if (!keep.includes(k)) own[k] = v;
}
