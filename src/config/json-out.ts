// JSON of a typed tree for `config show --json`: exact, where JSON.stringify of plain values is not.
// An int beyond 2^53 is written with all its digits (seed=9007199254740993 stays …993), a float keeps
// Python's text (1.0 stays a float, 5e-06), and a float JSON cannot spell (inf, -inf, nan) is the object
// {"$float": "inf"|"-inf"|"nan"}. Not the bare string `parse --json` uses for a stats value (always a number
// there): a config value may be the STRING 'inf' (`trial_name=inf`), which stays the JSON string "inf". So
// that the marker is never a config map, a config key that begins with `$` gets one more `$` (`$$float`).
// Documented in `config --help` and the README.
import { pyFloatRepr, type Val } from './values.js';

/** The key of the object that stands for a non-finite float. */
export const FLOAT_MARKER = '$float';

/** The JSON text of a non-finite float, or null for a finite one. */
export function nonFiniteJson(x: number): string | null {
  const text = Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : null;
  return text === null ? null : `{${JSON.stringify(FLOAT_MARKER)}: "${text}"}`;
}

/** A config key as written: one more `$` before a key that begins with `$`, so none is the marker's. */
function keyJson(k: string): string {
  return JSON.stringify(k.startsWith('$') ? '$' + k : k);
}

function scalarJson(v: Val): string {
  switch (v.t) {
    case 'int':
      return v.digits ?? String(v.v);
    case 'float':
      return nonFiniteJson(v.v) ?? pyFloatRepr(v.v);
    case 'str':
      return JSON.stringify(v.v);
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'missing':
      return '"???"';
    default:
      return 'null';
  }
}

/** JSON.stringify(plain, null, 2)'s layout, with the exact scalars above. */
export function typedJson(v: Val, indent = ''): string {
  const inner = `${indent}  `;
  if (v.t === 'map') {
    if (v.m.size === 0) return '{}';
    const entries = [...v.m].map(([k, x]) => `${inner}${keyJson(k)}: ${typedJson(x, inner)}`);
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  if (v.t === 'list') {
    if (v.a.length === 0) return '[]';
    return `[\n${v.a.map((x) => `${inner}${typedJson(x, inner)}`).join(',\n')}\n${indent}]`;
  }
  return scalarJson(v);
}
