// Write a value as a Hydra override value that reads back with the same type and text:
// ints as digits, floats always with '.', 'e', inf or nan, strings single-quoted when needed.
import { parseOverride } from './overrides-grammar.js';
import { PyFloat, pyFloatRepr, type Val } from './values.js';

/** Hydra's lexer wants exponents without leading zeros (`1e-05` would read back as a string). */
export function hydraFloat(x: number): string {
  return pyFloatRepr(x).replace(/e([+-])0+(\d)/, 'e$1$2');
}

/** Single-quote for Hydra: `\'` for a quote; a backslash run before a quote or the end is doubled. */
export function hydraQuote(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '\\') {
      let j = i;
      while (j < s.length && s[j] === '\\') j++;
      const run = s.slice(i, j);
      out += j === s.length || s[j] === "'" ? run + run : run;
      i = j;
      continue;
    }
    out += s[i] === "'" ? "\\'" : s[i];
    i++;
  }
  return `'${out}'`;
}

function stringValue(s: string): string {
  if (s === '') return "''";
  try {
    const p = parseOverride(`k=${s}`);
    if (p.value?.t === 'str' && p.value.v === s) return s;
  } catch {
    /* needs quoting */
  }
  return hydraQuote(s);
}

const DICT_KEY = /^[A-Za-z_][A-Za-z0-9_\-]*$/;

export function formatTypedValue(v: Val): string {
  switch (v.t) {
    case 'null':
      return 'null';
    case 'missing':
      return "'???'";
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'int':
      return v.digits ?? String(v.v);
    case 'float':
      return hydraFloat(v.v);
    case 'str':
      return stringValue(v.v);
    case 'list':
      return `[${v.a.map(formatTypedValue).join(',')}]`;
    case 'map':
      return `{${[...v.m].map(([k, x]) => `${DICT_KEY.test(k) ? k : k.replace(/[^A-Za-z0-9_\-]/g, (c) => `\\${c}`)}:${formatTypedValue(x)}`).join(',')}}`;
  }
}

/** For plain JS values: integral numbers are ints; wrap in PyFloat to force a float. */
export function formatOverrideValue(v: unknown): string {
  if (v instanceof PyFloat) return hydraFloat(v.v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : hydraFloat(v);
  if (typeof v === 'string') return stringValue(v);
  if (Array.isArray(v)) return `[${v.map(formatOverrideValue).join(',')}]`;
  return `{${Object.entries(v as object)
    .map(
      ([k, x]) => `${DICT_KEY.test(k) ? k : k.replace(/[^A-Za-z0-9_\-]/g, (c) => `\\${c}`)}:${formatOverrideValue(x)}`,
    )
    .join(',')}}`;
}
