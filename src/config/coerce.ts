// Scalar coercion into a typed field, as OmegaConf's IntegerNode/FloatNode/BooleanNode/StringNode
// do it (checked against OmegaConf 2.2.2): an int field takes '42' but not 1.0 or True, a float
// field takes 1 and '1e-5', a bool field takes yes/off/1/'2', a str field takes str() of a scalar.
import { pyFloatRepr, pyStrVal, type Val } from './values.js';

export type ScalarKind = 'int' | 'float' | 'bool' | 'str';
export type CoerceResult = { ok: true; value: Val } | { ok: false; message: string };

const PY_INT = /^[+-]?\d(?:_?\d)*$/;
const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_FLOAT_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

// A container reaches the field as an OmegaConf node: its type is named ListConfig/DictConfig and
// its value printed as Python prints a list/dict ("Value '[1, 2]' of type 'ListConfig'").
const typeName = (v: Val): string =>
  v.t === 'str'
    ? 'str'
    : v.t === 'map'
      ? 'DictConfig'
      : v.t === 'list'
        ? 'ListConfig'
        : v.t === 'null'
          ? 'NoneType'
          : v.t;
const pyText = (v: Val): string =>
  v.t === 'str'
    ? v.v
    : v.t === 'float'
      ? pyFloatRepr(v.v)
      : v.t === 'bool'
        ? v.v
          ? 'True'
          : 'False'
        : v.t === 'int'
          ? String(v.v)
          : pyStrVal(v);

/** Python's int()/float() read any Unicode decimal digit (Nd: '٣', '１２'); JS Number() only 0-9. */
function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (d) => {
    // Nd digits come in runs of ten, 0 to 9, from the start of their run.
    const cp = d.codePointAt(0)!;
    let start = cp;
    while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
    return String((cp - start) % 10);
  });
}

/** Python's int(str). */
export function pyInt(s: string): number | null {
  const t = asciiDigits(s.trim());
  return PY_INT.test(t) ? Number(t.replace(/_/g, '')) : null;
}

/** Python's float(str). */
export function pyFloat(s: string): number | null {
  const t = asciiDigits(s.trim());
  if (PY_FLOAT_SPECIAL.test(t)) {
    const neg = t.startsWith('-');
    return /nan/i.test(t) ? NaN : neg ? -Infinity : Infinity;
  }
  return PY_FLOAT.test(t) ? Number(t.replace(/_/g, '')) : null;
}

export function coerceScalar(kind: ScalarKind, v: Val): CoerceResult {
  const origin = v.origin;
  switch (kind) {
    case 'int': {
      if (v.t === 'int') return { ok: true, value: v };
      if (v.t === 'str') {
        const n = pyInt(v.v);
        if (n !== null) return { ok: true, value: { t: 'int', v: n, origin } };
      }
      return { ok: false, message: `Value '${pyText(v)}' of type '${typeName(v)}' could not be converted to Integer` };
    }
    case 'float': {
      if (v.t === 'float') return { ok: true, value: v };
      if (v.t === 'int') return { ok: true, value: { t: 'float', v: v.v, origin } };
      if (v.t === 'str') {
        const n = pyFloat(v.v);
        if (n !== null) return { ok: true, value: { t: 'float', v: n, origin } };
      }
      return { ok: false, message: `Value '${pyText(v)}' of type '${typeName(v)}' could not be converted to Float` };
    }
    case 'bool': {
      if (v.t === 'bool') return { ok: true, value: v };
      if (v.t === 'int') return { ok: true, value: { t: 'bool', v: v.v !== 0, origin } };
      if (v.t === 'str') {
        const n = pyInt(v.v);
        if (n !== null) return { ok: true, value: { t: 'bool', v: n !== 0, origin } };
        const l = v.v.toLowerCase();
        if (['y', 'yes', 'on', 'true'].includes(l)) return { ok: true, value: { t: 'bool', v: true, origin } };
        if (['n', 'no', 'off', 'false'].includes(l)) return { ok: true, value: { t: 'bool', v: false, origin } };
      }
      return { ok: false, message: `Value '${pyText(v)}' is not a valid bool (type ${typeName(v)})` };
    }
    case 'str': {
      if (v.t === 'str') return { ok: true, value: v };
      if (v.t === 'int' || v.t === 'float' || v.t === 'bool')
        return { ok: true, value: { t: 'str', v: pyText(v), origin } };
      return { ok: false, message: `Cannot convert '${typeName(v)}' to string: '${pyText(v)}'` };
    }
  }
}

/** What to write instead of a value the field's type refuses (said after the trainer's message). */
export function writeInstead(kind: 'int' | 'float' | 'bool' | 'str'): string {
  return {
    int: 'write a whole number, e.g. 8',
    float: 'write a number, e.g. 5e-6',
    bool: 'write true or false',
    str: "write a string (quote it: 'text')",
  }[kind];
}
