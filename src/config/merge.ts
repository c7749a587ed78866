// The structured merge: OmegaConf.merge(OmegaConf.structured(WebGymConfig), yaml_after_overrides).
// Fills defaults, coerces scalars, rejects unknown keys (`Key 'foo' not in 'PPOActorConfig'`),
// and keeps interpolation strings as text; they are typed after resolution (interpolation.ts).
import { coerceScalar, writeInstead } from './coerce.js';
import { MISSING, type Field } from './schema/dsl.js';
import { SECRET_KEY } from './secret-keys.js';
import { isInterpolation, toPlain, type Origin, type Val } from './values.js';

export interface MergeProblem {
  code: 'unknown-key' | 'type-mismatch' | 'not-optional';
  key: string;
  message: string;
  origin?: Origin;
}

const DEFAULT: Origin = { kind: 'default' };

/** A dataclass default as a Val (through the same coercion, so `loss_scale_window: float = 5` is 5.0). */
export function defaultVal(f: Field, problems: MergeProblem[], key: string): Val {
  if (f.d === MISSING) return { t: 'missing', origin: DEFAULT };
  if (f.k === 'obj') {
    if (f.d === null) return { t: 'null', origin: DEFAULT };
    return mergeField(f, undefined, key, problems, true);
  }
  if (f.d === null || f.d === undefined) return { t: 'null', origin: DEFAULT };
  return mergeField({ ...f, d: MISSING } as Field, fromPlain(f.d, DEFAULT), key, problems);
}

export function fromPlain(v: unknown, origin: Origin): Val {
  if (v === null || v === undefined) return { t: 'null', origin };
  if (typeof v === 'boolean') return { t: 'bool', v, origin };
  if (typeof v === 'number') return Number.isInteger(v) ? { t: 'int', v, origin } : { t: 'float', v, origin };
  if (typeof v === 'string') return { t: 'str', v, origin };
  if (Array.isArray(v)) return { t: 'list', a: v.map((x) => fromPlain(x, origin)), origin };
  return { t: 'map', m: new Map(Object.entries(v as object).map(([k, x]) => [k, fromPlain(x, origin)])), origin };
}

/** OmegaConf (2.2 to 2.4) keeps a list or mapping given as an element of a list or dict of scalars
 *  (`list[str]`, `env_vars: dict[str, str]`) as it is, untyped: it converts only scalars. */
const untypedInside = (of: Field, x: Val): boolean =>
  (x.t === 'list' || x.t === 'map') && of.k !== 'obj' && of.k !== 'list' && of.k !== 'dict';

/** Merge `src` (may be undefined: not in YAML) onto field `f`. */
export function mergeField(
  f: Field,
  src: Val | undefined,
  key: string,
  problems: MergeProblem[],
  fromDefault = false,
): Val {
  if (src === undefined) {
    if (f.k === 'obj' && fromDefault) {
      const m = new Map<string, Val>();
      for (const [name, sub] of Object.entries(f.fields))
        m.set(name, defaultVal(sub, problems, key ? `${key}.${name}` : name));
      return { t: 'map', m, origin: DEFAULT };
    }
    return defaultVal(f, problems, key);
  }
  if (src.t === 'missing') return src;
  if (isInterpolation(src)) return src; // typed after resolution
  if (src.t === 'null') {
    if (f.opt || f.k === 'any') return src;
    problems.push({
      code: 'not-optional',
      key,
      message: `'${key}' cannot be null: it is not Optional; give it a value, or delete the override or line that sets null (the default then applies)`,
      origin: src.origin,
    });
    return defaultVal(f, problems, key);
  }
  switch (f.k) {
    case 'any':
      return src;
    case 'int':
    case 'float':
    case 'bool':
    case 'str': {
      const r = coerceScalar(f.k, src);
      if (r.ok) return r.value;
      const msg = SECRET_KEY.test(key)
        ? `the value of '${key}' (not shown: a secret) is not a valid ${f.k}`
        : `${r.message} (field '${key}' is ${f.k}); ${writeInstead(f.k)}`;
      problems.push({ code: 'type-mismatch', key, message: msg, origin: src.origin });
      return src;
    }
    case 'list': {
      if (src.t !== 'list') {
        problems.push({
          code: 'type-mismatch',
          key,
          message: `'${key}' must be a list, not ${src.t === 'map' ? 'a mapping' : `'${String(toPlain(src))}'`}`,
          origin: src.origin,
        });
        return src;
      }
      return {
        t: 'list',
        a: src.a.map((x, i) =>
          untypedInside(f.of, x) ? x : mergeField(f.of, x, `${key}.${i}`, problems, f.of.k === 'obj'),
        ),
        origin: src.origin,
      };
    }
    case 'dict': {
      if (src.t !== 'map') {
        problems.push({ code: 'type-mismatch', key, message: `'${key}' must be a mapping`, origin: src.origin });
        return src;
      }
      const m = new Map<string, Val>();
      for (const [k, x] of src.m) m.set(k, untypedInside(f.of, x) ? x : mergeField(f.of, x, `${key}.${k}`, problems));
      return { t: 'map', m, origin: src.origin };
    }
    case 'obj': {
      if (src.t !== 'map') {
        problems.push({
          code: 'type-mismatch',
          key,
          message: `'${key}' must be a mapping of ${f.name} fields`,
          origin: src.origin,
        });
        return mergeField(f, undefined, key, problems, true);
      }
      const m = new Map<string, Val>();
      for (const [name, sub] of Object.entries(f.fields)) {
        const sk = key ? `${key}.${name}` : name;
        // OmegaConf's merge skips a '???' from the file when the dataclass has a value: `seed: ???` keeps 1.
        const given = src.m.get(name);
        m.set(
          name,
          given && given.t !== 'missing' ? mergeField(sub, given, sk, problems, true) : defaultVal(sub, problems, sk),
        );
      }
      for (const [k, x] of src.m) {
        if (!(k in f.fields)) {
          const full = key ? `${key}.${k}` : k;
          problems.push({
            code: 'unknown-key',
            key: full,
            message: `Key '${k}' not in '${f.name}' (full key: ${full}); check the spelling or remove it`,
            origin: x.origin,
          });
        }
      }
      return { t: 'map', m, origin: src.origin };
    }
  }
}
