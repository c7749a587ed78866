// Apply parsed overrides to the YAML tree the way Hydra's compose does, before the merge onto the
// dataclass defaults: `a.b=v` only changes a key the YAML has (struct mode), `+a.b=v` refuses an
// existing non-null key, `++` adds or changes, `~a.b` deletes. Values are applied with merge=True,
// so a dict value merges into an existing dict while a list replaces.
import type { ParsedOverride } from './overrides-grammar.js';
import { SECRET_KEY } from './secret-keys.js';
import { resolveTree, type InterpolationProblem } from './interpolation.js';
import { any, dict } from './schema/dsl.js';
import { cloneVal, isInterpolation, pyStrVal, toPlain, type Origin, type Val } from './values.js';

type MapVal = Extract<Val, { t: 'map' }>;

export class OverrideApplyError extends Error {
  constructor(
    message: string,
    readonly isReason = false, // message is a reason, not a path
  ) {
    super(message);
  }
}

function withOrigin(v: Val, origin: Origin): Val {
  const c = cloneVal(v);
  const walk = (x: Val) => {
    x.origin = origin;
    if (x.t === 'map') x.m.forEach(walk);
    if (x.t === 'list') x.a.forEach(walk);
  };
  walk(c);
  if (c.t === 'str' && c.v === '???') return { t: 'missing', origin };
  return c;
}

function child(node: Val | undefined, seg: string): Val | undefined {
  if (!node) return undefined;
  if (node.t === 'map') return node.m.get(seg);
  if (node.t === 'list' && /^\d+$/.test(seg)) return node.a[Number(seg)];
  return undefined;
}

function select(root: Val, path: string[]): Val | undefined {
  let n: Val | undefined = root;
  for (const s of path) n = child(n, s);
  return n;
}

/** Every key of `src` must already exist in `dst` (struct mode) for a plain `a=v` dict merge. */
function structMergeProblem(dst: Val, src: Val, at: string): string | null {
  if (src.t !== 'map' || dst.t !== 'map') return null;
  for (const [k, v] of src.m) {
    const d = dst.m.get(k);
    if (!d) return `${at}.${k}`;
    const deeper = structMergeProblem(d, v, `${at}.${k}`);
    if (deeper) return deeper;
  }
  return null;
}

function mergeInto(dst: Val, src: Val): Val {
  // OmegaConf.update(merge=True) merges containers and refuses to merge a list with a mapping.
  if ((dst.t === 'map' && src.t === 'list') || (dst.t === 'list' && src.t === 'map'))
    throw new OverrideApplyError(
      `cannot merge a ${src.t === 'list' ? 'list' : 'mapping'} into a ${dst.t === 'list' ? 'list' : 'mapping'}`,
      true,
    );
  if (dst.t === 'map' && src.t === 'map') {
    for (const [k, v] of src.m) {
      const d = dst.m.get(k);
      dst.m.set(k, d ? mergeInto(d, v) : v);
    }
    return dst;
  }
  return src;
}

function setAt(root: MapVal, path: string[], value: Val, createParents: boolean): void {
  let n: Val = root;
  for (let i = 0; i < path.length - 1; i++) {
    const s = path[i];
    let next = child(n, s);
    // OmegaConf.update(force_add=True) puts an empty mapping in place of a missing, null or plain
    // value on the way (`++webgym.x.y=1` where webgym.x is 3); the structured merge judges the result.
    if (!next || (next.t !== 'map' && next.t !== 'list')) {
      if (!createParents) throw new OverrideApplyError(path.slice(0, i + 1).join('.'));
      const fresh: Val = { t: 'map', m: new Map(), origin: value.origin };
      if (n.t === 'map') n.m.set(s, fresh);
      else if (n.t === 'list' && /^\d+$/.test(s) && Number(s) < n.a.length) n.a[Number(s)] = fresh;
      else throw new OverrideApplyError(path.slice(0, i + 1).join('.'));
      next = fresh;
    }
    n = next;
  }
  const last = path[path.length - 1];
  if (n.t === 'map') {
    const cur = n.m.get(last);
    n.m.set(last, cur ? mergeInto(cur, value) : value);
  } else if (n.t === 'list' && /^\d+$/.test(last) && Number(last) < n.a.length) {
    n.a[Number(last)] = mergeInto(n.a[Number(last)], value);
  } else {
    throw new OverrideApplyError(path.join('.'));
  }
}

/** Why `path` cannot be reached through what is there: a list index past its end, or a key under a
 *  plain value. Null when only the last mapping lacks a key (then `+`/`++` can add it). */
function unreachable(root: Val, path: string[]): string | null {
  let n: Val | undefined = root;
  for (let i = 0; i < path.length; i++) {
    if (!n || n.t === 'null' || n.t === 'missing') return null;
    const at = path.slice(0, i).join('.');
    const s = path[i];
    if (n.t === 'list') {
      if (!/^\d+$/.test(s)) return `'${at}' is a list: index it with a number, not '${s}'`;
      if (Number(s) >= n.a.length)
        return `index ${s} is out of range: '${at}' has ${n.a.length} entr${n.a.length === 1 ? 'y' : 'ies'} (indices from 0), and neither + nor ++ can add one; give the whole list: ${at}=[…]`;
    } else if (n.t !== 'map') {
      return `'${at}' is a plain value${SECRET_KEY.test(at) ? '' : ` (${pyStrVal(n)})`}, not a mapping: it has no '${s}'`;
    }
    n = child(n, s);
  }
  return null;
}

/** The value at `path` with its interpolations resolved (no schema), or undefined when that fails. */
function resolvedAt(root: MapVal, path: string[]): Val | undefined {
  const problems: InterpolationProblem[] = [];
  const r = select(resolveTree(root, dict(any()), problems), path);
  return problems.some((p) => p.severity !== 'warning') ? undefined : r;
}

const plainEq = (a: unknown, b: unknown): boolean => JSON.stringify(norm(a)) === JSON.stringify(norm(b));
const norm = (v: unknown): unknown =>
  typeof v === 'boolean'
    ? Number(v)
    : Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]))
        : v;

/** Apply one override in place. Returns an error message (what to change) or null. */
export function applyOverride(root: MapVal, o: ParsedOverride, index: number): string | null {
  const origin: Origin = { kind: 'override', index };
  const existing = select(root, o.path);
  const valueText = o.text.slice(o.text.indexOf('=') + 1);
  try {
    switch (o.kind) {
      case 'delete': {
        if (!existing || existing.t === 'null' || existing.t === 'missing')
          return `Could not delete from config. '${o.key}' does not exist.`;
        // Hydra compares with OmegaConf.select, which resolves: `~ref=1` deletes `ref: ${seed}` when seed is 1.
        const current = o.value && isInterpolation(existing) ? (resolvedAt(root, o.path) ?? existing) : existing;
        // Hydra's f-string prints each value with str(): a float keeps its '.0'.
        if (o.value && !plainEq(toPlain(current), toPlain(o.value)))
          return SECRET_KEY.test(o.key)
            ? `Could not delete from config. The value of '${o.key}' differs from the one given (values not shown: a secret).`
            : `Could not delete from config. The value of '${o.key}' is ${pyStrVal(current)} and not ${pyStrVal(o.value)}.`;
        const parent = select(root, o.path.slice(0, -1))!;
        const last = o.path[o.path.length - 1];
        if (parent.t === 'list')
          return `Could not delete from config. '${o.key}' is a list element; Hydra cannot delete by index: override the whole list instead.`;
        if (parent.t === 'map') parent.m.delete(last);
        return null;
      }
      case 'add': {
        const v = withOrigin(o.value!, origin);
        if (existing && existing.t !== 'null' && existing.t !== 'missing' && v.t !== 'map' && v.t !== 'list')
          return `Could not append to config. An item is already at '${o.key}'. Either remove the + prefix: '${o.text.slice(1)}', or add a second + to add or override: '+${o.text}'.`;
        setAt(root, o.path, v, true);
        return null;
      }
      case 'force':
        setAt(root, o.path, withOrigin(o.value!, origin), true);
        return null;
      case 'set': {
        const v = withOrigin(o.value!, origin);
        const missing = !existing ? o.key : structMergeProblem(existing, v, o.key);
        const why = missing === o.key ? unreachable(root, o.path) : null;
        if (why) return `Could not override '${o.key}': ${why}.`;
        if (missing)
          return `Could not override '${o.key}': '${missing}' is not in the config file. To append it use +${o.key}=${valueText} (or ++${o.key}=${valueText} to add or override).`;
        setAt(root, o.path, v, false);
        return null;
      }
    }
  } catch (e) {
    if (e instanceof OverrideApplyError && e.isReason)
      return `Could not override '${o.key}': ${e.message}; replace it with ~${o.key} first or give a value of the same kind.`;
    if (e instanceof OverrideApplyError) {
      const why = unreachable(root, o.path);
      return why
        ? `Could not override '${o.key}': ${why}.`
        : `Could not override '${o.key}': '${e.message}' cannot hold '${o.path[o.path.length - 1]}' (index out of range or not a mapping).`;
    }
    throw e;
  }
}
