// JSON of a typed tree for `config show --json`: exact, where JSON.stringify of plain values is not.
// An int beyond 2^53 is written with all its digits (seed=9007199254740993 stays …993), a float keeps
// Python's text (1.0 stays a float, 5e-06), and inf, -inf and nan, which JSON cannot spell, are the
// strings "inf", "-inf", "nan": the representation `parse --json` uses (documented in --help).
import { pyFloatRepr, type Val } from './values.js';

/** The JSON text of a non-finite float, or null for a finite one. */
export function nonFiniteJson(x: number): string | null {
  if (Number.isNaN(x)) return '"nan"';
  if (x === Infinity) return '"inf"';
  if (x === -Infinity) return '"-inf"';
  return null;
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
    const entries = [...v.m].map(([k, x]) => `${inner}${JSON.stringify(k)}: ${typedJson(x, inner)}`);
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  if (v.t === 'list') {
    if (v.a.length === 0) return '[]';
    return `[\n${v.a.map((x) => `${inner}${typedJson(x, inner)}`).join(',\n')}\n${indent}]`;
  }
  return scalarJson(v);
}
