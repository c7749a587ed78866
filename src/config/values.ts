// The typed value tree the engine works on. JS numbers cannot tell 1 from 1.0, but the trainer
// can (an int field rejects 1.0), so every scalar keeps its Python type next to its value.

/** Where a value came from: a file position, an override (1-based index) or a dataclass default. */
export type Origin =
  { kind: 'file'; line: number; col: number } | { kind: 'override'; index: number } | { kind: 'default' };

export type Val =
  | { t: 'map'; m: Map<string, Val>; origin?: Origin }
  | { t: 'list'; a: Val[]; origin?: Origin }
  // `digits`: the exact decimal text when the int is beyond 2^53 (Python ints are exact, JS numbers
  // are not): what launch argv, YAML and str() print, so `seed=12345678901234567890` stays itself.
  | { t: 'int'; v: number; digits?: string; origin?: Origin }
  | { t: 'float'; v: number; origin?: Origin }
  | { t: 'str'; v: string; origin?: Origin }
  | { t: 'bool'; v: boolean; origin?: Origin }
  | { t: 'null'; origin?: Origin }
  | { t: 'missing'; origin?: Origin }; // OmegaConf's '???'

export type Scalar = Extract<Val, { t: 'int' | 'float' | 'str' | 'bool' | 'null' | 'missing' }>;

export const isInterpolation = (v: Val): boolean => v.t === 'str' && hasInterpolation(v.v);

/** A string OmegaConf treats as an interpolation: contains an unescaped `${`. */
export function hasInterpolation(s: string): boolean {
  for (let i = s.indexOf('${'); i >= 0; i = s.indexOf('${', i + 1)) {
    let bs = 0;
    for (let j = i - 1; j >= 0 && s[j] === '\\'; j--) bs++;
    if (bs % 2 === 0) return true;
  }
  return false;
}

/** Python's repr() of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expS] = x.toExponential().split('e');
  const exp = Number(expS);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const sign = neg ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** Python's str() of a plain value, as an embedded interpolation renders it. */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : pyFloatRepr(v);
  if (typeof v === 'string') return v;
  if (v instanceof PyFloat) return pyFloatRepr(v.v);
  return JSON.stringify(v);
}

/** Python's str() of a typed value (floats keep their '.0'; containers print like dict/list). */
export function pyStrVal(v: Val): string {
  if (v.t === 'int' && v.digits) return v.digits;
  if (v.t === 'float') return pyFloatRepr(v.v);
  if (v.t === 'map' || v.t === 'list') return pyRepr(v);
  if (v.t === 'missing') return '???';
  return pyStr(v.t === 'null' ? null : v.v);
}

function pyRepr(v: Val): string {
  switch (v.t) {
    case 'map':
      return `{${[...v.m].map(([k, x]) => `${pyRepr({ t: 'str', v: k })}: ${pyRepr(x)}`).join(', ')}}`;
    case 'list':
      return `[${v.a.map(pyRepr).join(', ')}]`;
    case 'str':
      return v.v.includes("'") && !v.v.includes('"')
        ? `"${v.v}"`
        : `'${v.v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    case 'missing':
      return "'???'";
    default:
      return pyStrVal(v);
  }
}

/** An int Val from Python's int() of decimal text: exact digits kept when a JS number cannot hold them. */
export function exactInt(text: string): Extract<Val, { t: 'int' }> {
  const v = Number(text) + 0; // + 0: Python has no int -0
  if (Number.isSafeInteger(v)) return { t: 'int', v };
  const neg = text.startsWith('-');
  const digits = text.replace(/^[+-]/, '').replace(/^0+(?=\d)/, '');
  return { t: 'int', v, digits: `${neg ? '-' : ''}${digits}` };
}

/** Marks a float whose value is integral (5.0) when it must stay a float in plain output. */
export class PyFloat {
  constructor(readonly v: number) {}
}

/** A Val as plain JSON (numbers as numbers; the int/float distinction is dropped). */
export function toPlain(v: Val): unknown {
  switch (v.t) {
    case 'map': {
      const o: Record<string, unknown> = {};
      for (const [k, x] of v.m) o[k] = toPlain(x);
      return o;
    }
    case 'list':
      return v.a.map(toPlain);
    case 'null':
      return null;
    case 'missing':
      return '???';
    default:
      return v.v;
  }
}

/** A Val as JSON that keeps Python types: floats become {"float": repr}. Used by tests against OmegaConf. */
export function toTyped(v: Val): unknown {
  switch (v.t) {
    case 'map': {
      const o: Record<string, unknown> = {};
      for (const [k, x] of v.m) o[k] = toTyped(x);
      return o;
    }
    case 'list':
      return v.a.map(toTyped);
    case 'null':
      return null;
    case 'missing':
      return '???';
    case 'float':
      return { float: pyFloatRepr(v.v) };
    default:
      return v.v;
  }
}

export function cloneVal(v: Val): Val {
  if (v.t === 'map') return { t: 'map', m: new Map([...v.m].map(([k, x]) => [k, cloneVal(x)])), origin: v.origin };
  if (v.t === 'list') return { t: 'list', a: v.a.map(cloneVal), origin: v.origin };
  return { ...v };
}

/** Path segments to the dotted form used in messages and diagnostics (`a.b.0.c`). */
export const dotted = (path: readonly (string | number)[]): string => path.join('.');
