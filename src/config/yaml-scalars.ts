// How OmegaConf's YAML loader types a plain scalar: PyYAML SafeLoader's YAML 1.1 resolvers, with
// OmegaConf's float rule (floats without a dot, `5e-6`) and no timestamps. See
// docs/omegaconf-typing.md, column 1. Quoted and block scalars are always strings.
import { exactInt, type Scalar } from './values.js';

const BOOL_TRUE = new Set(['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const BOOL_FALSE = new Set(['no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const INT_RE =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function base60(s: string): number {
  let n = 0;
  for (const part of s.split(':')) n = n * 60 + Number(part);
  return n;
}

/** PyYAML construct_yaml_int. */
export function constructInt(text: string): number {
  return constructIntSigned(text) + 0; // Python has no int -0
}

function constructIntSigned(text: string): number {
  let s = text.replace(/_/g, '');
  let sign = 1;
  if (s[0] === '-') sign = -1;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  if (s === '0') return 0;
  if (s.startsWith('0b')) return sign * parseInt(s.slice(2), 2);
  if (s.startsWith('0x')) return sign * parseInt(s.slice(2), 16);
  if (s[0] === '0') return sign * parseInt(s, 8);
  if (s.includes(':')) return sign * base60(s);
  return sign * Number(s);
}

/** PyYAML construct_yaml_float. */
export function constructFloat(text: string): number {
  let s = text.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (s[0] === '-') sign = -1;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  if (s === '.inf') return sign * Infinity;
  if (s === '.nan') return NaN;
  if (s.includes(':')) return sign * base60(s);
  return sign * Number(s);
}

export type PlainResult = Scalar | { t: 'error'; message: string };

/** Type a plain (unquoted, untagged) scalar the way the trainer's loader does. */
export function resolvePlain(text: string): PlainResult {
  if (NULLS.has(text)) return { t: 'null' };
  if (BOOL_TRUE.has(text)) return { t: 'bool', v: true };
  if (BOOL_FALSE.has(text)) return { t: 'bool', v: false };
  if (INT_RE.test(text)) {
    const dec = text.replace(/_/g, '');
    // Plain decimal beyond 2^53: keep the exact digits (Python ints are exact).
    if (/^[-+]?[1-9][0-9]*$/.test(dec)) return exactInt(dec);
    const v = constructInt(text);
    // `0x_` / `0b_` match PyYAML's int resolver, then int('', 16) fails: a load error, not a number.
    if (Number.isNaN(v))
      return {
        t: 'error',
        message: `invalid literal for int() with base ${/0x/i.test(text) ? 16 : 2}: '' (in '${text}'); quote it if it is text`,
      };
    return { t: 'int', v };
  }
  if (FLOAT_RE.test(text)) {
    const v = constructFloat(text);
    // `._` matches the float resolver, then float('.') fails: a load error.
    if (Number.isNaN(v) && !/nan/i.test(text))
      return {
        t: 'error',
        message: `could not convert string to float: '${text.replace(/_/g, '')}'; quote it if it is text`,
      };
    return { t: 'float', v };
  }
  // PyYAML resolves a lone '=' to tag:yaml.org,2002:value, which SafeLoader cannot construct.
  if (text === '=')
    return {
      t: 'error',
      message: "could not determine a constructor for the tag 'tag:yaml.org,2002:value' (quote the '=')",
    };
  if (text === '???') return { t: 'missing' };
  return { t: 'str', v: text };
}

/** Type an explicitly tagged scalar (`!!int 5`). */
export function resolveTagged(tag: string, text: string): PlainResult {
  const short = tag.replace('tag:yaml.org,2002:', '!!');
  switch (short) {
    case '!!str':
      return text === '???' ? { t: 'missing' } : { t: 'str', v: text };
    case '!!int':
      return INT_RE.test(text) && !Number.isNaN(constructInt(text))
        ? { t: 'int', v: constructInt(text) }
        : { t: 'error', message: `invalid !!int value '${text}'` };
    case '!!float':
      return (FLOAT_RE.test(text) || INT_RE.test(text)) && !(Number.isNaN(constructFloat(text)) && !/nan/i.test(text))
        ? { t: 'float', v: constructFloat(text) }
        : { t: 'error', message: `invalid !!float value '${text}'` };
    case '!!bool':
      if (BOOL_TRUE.has(text)) return { t: 'bool', v: true };
      if (BOOL_FALSE.has(text)) return { t: 'bool', v: false };
      return { t: 'error', message: `invalid !!bool value '${text}'` };
    case '!!null':
      return { t: 'null' };
    default:
      return { t: 'error', message: `could not determine a constructor for the tag '${tag}'` };
  }
}
