// Resolve `${...}` the way OmegaConf does at the end of the merge: `${a.b}` is absolute, `${.x}` is
// relative to the node's container, each extra dot climbs one level. A whole-value interpolation
// takes the target's value (then the field's type), an embedded one builds a string. A missing
// target or a cycle is an error naming the key.
import { coerceScalar, writeInstead } from './coerce.js';
import type { Field } from './schema/dsl.js';
import { hasInterpolation, pyStrVal, type Origin, type Val } from './values.js';

export interface InterpolationProblem {
  code: 'interpolation' | 'missing-value' | 'type-mismatch' | 'resolver';
  severity?: 'warning';
  key: string;
  message: string;
  origin?: Origin;
  /** A whole-value `${X}` whose type did not fit: X, absolute. When X itself failed the merge this
   *  is the same mistake seen again (the trainer stops at the first), not a new one. */
  from?: string;
}

type Piece = { lit: string } | { ref: string };

/** Split a string into literal text and `${...}` references (nested braces allowed, `\${` literal). */
export function splitInterpolation(s: string): Piece[] | { error: string } {
  const out: Piece[] = [];
  let lit = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '\\' && s.startsWith('${', i + 1)) {
      lit += '${';
      i += 3;
      continue;
    }
    if (s.startsWith('\\\\${', i)) {
      lit += '\\';
      i += 2;
      continue;
    }
    if (s.startsWith('${', i)) {
      let depth = 0;
      let j = i;
      for (; j < s.length; j++) {
        if (s.startsWith('${', j)) {
          depth++;
          j++;
        } else if (s[j] === '}') {
          depth--;
          if (depth === 0) break;
        }
      }
      if (j >= s.length) return { error: `unterminated interpolation in '${s}'` };
      if (lit) out.push({ lit });
      lit = '';
      out.push({ ref: s.slice(i + 2, j) });
      i = j + 1;
      continue;
    }
    lit += s[i++];
  }
  if (lit) out.push({ lit });
  return out;
}

function fieldAt(schema: Field, path: readonly string[]): Field | null {
  let f: Field | null = schema;
  for (const seg of path) {
    if (!f) return null;
    if (f.k === 'obj') f = f.fields[seg] ?? null;
    else if (f.k === 'list' || f.k === 'dict') f = f.of;
    else return null;
  }
  return f;
}

// `${oc.env:HOME}`, `${oc.select:a.b,1}`: a resolver call, evaluated by the trainer at run time.
const RESOLVER = /^[A-Za-z_][\w.]*:/;

class ResolverCall extends Error {
  constructor(readonly call: string) {
    super(call);
  }
}

function resolverNote(call: string, envNames: ReadonlySet<string> | undefined): string {
  const name = call.slice(0, call.indexOf(':'));
  if (name === 'oc.env' || name === 'env') {
    const [v, ...dflt] = call.slice(call.indexOf(':') + 1).split(',');
    const set = envNames?.has(v.trim());
    return `\${${call}} is resolved by the trainer from its environment; ${set ? `${v.trim()} is set here` : dflt.length ? `${v.trim()} is not set here (default ${dflt.join(',').trim()})` : `${v.trim()} is not set here: make sure it is set where the trainer runs`}. The value is left as text here.`;
  }
  if (!KNOWN_RESOLVERS.includes(name)) {
    const near = KNOWN_RESOLVERS.find((k) => editDistance(k, name) <= 2);
    return `OmegaConf has no resolver named ${name}${near ? ` (did you mean ${near}?)` : ''}: the trainer stops at start with UnsupportedInterpolationType unless its own code registers one. Known: ${KNOWN_RESOLVERS.join(', ')}.`;
  }
  return `resolver ${name} is evaluated by the trainer at run time; the value is left as text here and not type-checked`;
}

/** The resolvers OmegaConf 2.2 registers, and Hydra's (the trainer composes its config with Hydra). */
const KNOWN_RESOLVERS = [
  'oc.env',
  'oc.select',
  'oc.decode',
  'oc.create',
  'oc.deprecated',
  'oc.dict.keys',
  'oc.dict.values',
  'now',
  'hydra',
];

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

class ResolveError extends Error {
  constructor(
    message: string,
    readonly code: InterpolationProblem['code'] = 'interpolation',
    readonly from?: string,
  ) {
    super(message);
  }
}

/** Values in a resolved tree, shared nodes counted at every place (what every later walk visits);
 *  stops counting past `limit`. An interpolation of a list of interpolated lists grows like an alias bomb. */
export function expandedSize(v: Val, limit: number): number {
  const memo = new Map<Val, number>();
  const size = (x: Val): number => {
    const known = memo.get(x);
    if (known !== undefined) return known;
    let n = 1;
    if (x.t === 'map') for (const c of x.m.values()) if ((n += size(c)) > limit) break;
    if (x.t === 'list') for (const c of x.a) if ((n += size(c)) > limit) break;
    memo.set(x, n);
    return n;
  };
  return size(v);
}

/** Resolve every interpolation of a merged tree; returns a new tree without `${}` strings. */
export function resolveTree(
  root: Val,
  schema: Field,
  problems: InterpolationProblem[],
  envNames?: ReadonlySet<string>,
): Val {
  const done = new Map<string, Val>();
  const active = new Set<string>();

  const nodeAt = (path: readonly string[]): Val | undefined => {
    let n: Val | undefined = root;
    for (let i = 0; i < path.length; i++) {
      const s = path[i];
      if (!n) return undefined;
      // Walking through a node that is itself an interpolation (`${actor.scheduling_spec}`).
      if (n.t === 'str' && hasInterpolation(n.v)) n = resolveNode(n, path.slice(0, i));
      if (n.t === 'map') n = n.m.get(s);
      else if (n.t === 'list' && /^\d+$/.test(s)) n = n.a[Number(s)];
      else return undefined;
    }
    return n;
  };

  const refPath = (ref: string, at: readonly string[]): string[] => {
    let dots = 0;
    while (ref[dots] === '.') dots++;
    const rest = ref.slice(dots).replace(/\[(\d+)\]/g, '.$1');
    const segs = rest ? rest.split('.').filter((s, i) => s !== '' || i > 0) : [];
    if (dots === 0) return segs;
    const container = at.slice(0, -1);
    return [...container.slice(0, Math.max(0, container.length - (dots - 1))), ...segs];
  };

  const resolveRef = (ref: string, at: readonly string[]): Val => {
    const inner = hasInterpolation(ref) ? resolveString(ref, at) : ref;
    if (RESOLVER.test(inner)) throw new ResolverCall(inner);
    const path = refPath(inner, at);
    const target = nodeAt(path);
    if (target === undefined) throw new ResolveError(`Interpolation key '${inner}' not found`);
    if (target.t === 'missing')
      throw new ResolveError(
        `Interpolation key '${inner}' points to a missing value ('???'); set ${path.join('.')}`,
        'interpolation',
        path.join('.'),
      );
    return resolveNode(target, path);
  };

  const resolveString = (s: string, at: readonly string[]): string => {
    const pieces = splitInterpolation(s);
    if ('error' in pieces) throw new ResolveError(pieces.error);
    return pieces.map((p) => ('lit' in p ? p.lit : pyStrVal(resolveRef(p.ref, at)))).join('');
  };

  const resolveNode = (n: Val, path: readonly string[]): Val => {
    const key = path.join('.');
    const cached = done.get(key);
    if (cached && nodeAt(path) === n) return cached;
    if (n.t === 'map') {
      const m = new Map<string, Val>();
      for (const [k, x] of n.m) m.set(k, resolveNode(x, [...path, k]));
      return { t: 'map', m, origin: n.origin };
    }
    if (n.t === 'list')
      return { t: 'list', a: n.a.map((x, i) => resolveNode(x, [...path, String(i)])), origin: n.origin };
    if (n.t !== 'str' || !hasInterpolation(n.v)) {
      if (n.t === 'str' && n.v.includes('\\${')) return { ...n, v: n.v.replace(/\\\$\{/g, '${') };
      return n;
    }
    if (active.has(key)) throw new ResolveError(`Recursive interpolation detected at '${key}'`);
    active.add(key);
    try {
      const pieces = splitInterpolation(n.v);
      if ('error' in pieces) throw new ResolveError(pieces.error);
      let out: Val;
      if (pieces.length === 1 && 'ref' in pieces[0]) out = resolveRef(pieces[0].ref, path);
      else out = { t: 'str', v: resolveString(n.v, path) };
      const f = fieldAt(schema, path);
      if (f && (f.k === 'int' || f.k === 'float' || f.k === 'bool' || f.k === 'str')) {
        if (out.t === 'null') {
          if (!f.opt) throw new ResolveError(`'${key}' resolved to null but is not Optional`, 'type-mismatch');
        } else {
          const r = coerceScalar(f.k, out);
          const from = pieces.length === 1 && 'ref' in pieces[0] ? refPath(pieces[0].ref, path).join('.') : undefined;
          if (!r.ok)
            throw new ResolveError(
              `${r.message} (field '${key}' is ${f.k}, from '${n.v}'); ${writeInstead(f.k)}`,
              'type-mismatch',
              from,
            );
          out = r.value;
        }
      }
      out = { ...out, origin: n.origin } as Val;
      done.set(key, out);
      return out;
    } finally {
      active.delete(key);
    }
  };

  // Resolve node by node so one bad interpolation does not hide the others.
  const walk = (n: Val, path: string[]): Val => {
    if (n.t === 'map') {
      const m = new Map<string, Val>();
      for (const [k, x] of n.m) m.set(k, walk(x, [...path, k]));
      return { t: 'map', m, origin: n.origin };
    }
    if (n.t === 'list') return { t: 'list', a: n.a.map((x, i) => walk(x, [...path, String(i)])), origin: n.origin };
    try {
      return resolveNode(n, path);
    } catch (e) {
      if (e instanceof ResolverCall) {
        // Warned once, where the call is written: a copy through ${a.b} is the same call.
        if (n.t === 'str' && !n.v.includes(`\${${e.call}}`)) return n;
        problems.push({
          code: 'resolver',
          severity: 'warning',
          key: path.join('.'),
          message: resolverNote(e.call, envNames),
          origin: n.origin,
        });
        return n;
      }
      if (!(e instanceof ResolveError)) throw e;
      problems.push({
        code: e.code,
        key: path.join('.'),
        message: `${e.message} (in '${path.join('.')}')`,
        origin: n.origin,
        ...(e.from ? { from: e.from } : {}),
      });
      return { t: 'null', origin: n.origin };
    }
  };
  return walk(root, []);
}
