// Hydra's override functions, as train.py meets them (its overrides go through Hydra's compose,
// so `seed=int(3.7)` is 3). The casts int/float/str/bool are evaluated the way Python's
// int(), float(), str() and bool() treat the parsed value; the sweep functions (choice,
// range, interval, glob, tag, and sort/shuffle of several values) make a sweep, which Hydra refuses
// without --multirun and train.py has no --multirun. shuffle() of a list is random at each launch.
import { exactInt, pyFloatRepr, type Val } from './values.js';

export interface FnArg {
  name?: string; // keyword argument
  value: Val;
}

/** A function Hydra refuses, or that raised: `kind` is the Python exception's name. */
export class FunctionError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** A sweep: the whole override is refused (train.py runs one config). */
export class SweepError extends Error {}

const SWEEPS = new Set(['choice', 'range', 'interval', 'glob', 'tag']);
// Hydra 1.4.0.dev1's (AReaL's pin) functions: json_str() and extend_list() come later, so there they
// are 'Unknown function', as for any other name.
const KNOWN = ['bool', 'choice', 'float', 'glob', 'int', 'interval', 'range', 'shuffle', 'sort', 'str', 'tag'];

/** Evaluate `name(args)`. Throws FunctionError (Hydra's "X while evaluating" cases) or SweepError. */
export function callFunction(name: string, args: FnArg[]): Val {
  if (SWEEPS.has(name)) throw new SweepError(`${name}() is a sweep`);
  switch (name) {
    case 'int':
    case 'float':
    case 'str':
    case 'bool':
      return cast(name, castInput(args));
    case 'sort':
      return sort(args);
    case 'shuffle':
      return shuffle(args);
    default:
      throw new FunctionError(
        'HydraException',
        `Unknown function '${name}' (available: ${KNOWN.join(',')}); quote the value if the parentheses are text`,
      );
  }
}

/** One positional argument or `value=`: several positional ones make a choice sweep. */
function castInput(args: FnArg[]): Val {
  const pos = args.filter((a) => !a.name);
  const kw = args.filter((a) => a.name);
  const bad = kw.find((a) => a.name !== 'value');
  if (bad) throw new FunctionError('TypeError', `got an unexpected keyword argument '${bad.name}'`);
  if (pos.length && kw.length) throw new FunctionError('TypeError', 'cannot use both position and named arguments');
  if (kw.length) return kw[0].value;
  if (pos.length === 0) throw new FunctionError('TypeError', 'No positional args or value specified');
  if (pos.length > 1) throw new SweepError('several values make a choice sweep');
  return pos[0].value;
}

function cast(to: 'int' | 'float' | 'str' | 'bool', v: Val): Val {
  if (v.t === 'list') return { t: 'list', a: v.a.map((x) => cast(to, x)) };
  if (v.t === 'map') return { t: 'map', m: new Map([...v.m].map(([k, x]) => [k, cast(to, x)])) };
  if (to === 'bool') {
    if (v.t === 'str') {
      const l = v.v.toLowerCase();
      if (l === 'true' || l === 'false') return { t: 'bool', v: l === 'true' };
      throw new FunctionError('ValueError', `Cannot cast '${v.v}' to bool`);
    }
    if (v.t === 'null') return { t: 'bool', v: false }; // Python's bool(None)
    if (v.t === 'int' || v.t === 'float') return { t: 'bool', v: v.v !== 0 };
    return v;
  }
  // The other casts assert a scalar: null gives an AssertionError with no message.
  if (v.t === 'null' || v.t === 'missing') throw new FunctionError('AssertionError', '');
  if (to === 'str') {
    if (v.t === 'bool') return { t: 'str', v: v.v ? 'true' : 'false' };
    if (v.t === 'int') return { t: 'str', v: v.digits ?? String(v.v) };
    if (v.t === 'float') return { t: 'str', v: pyFloatRepr(v.v) };
    return v;
  }
  if (to === 'int') {
    if (v.t === 'bool') return { t: 'int', v: v.v ? 1 : 0 };
    if (v.t === 'int') return v;
    if (v.t === 'float') {
      if (Number.isNaN(v.v)) throw new FunctionError('ValueError', 'cannot convert float NaN to integer');
      if (!Number.isFinite(v.v)) throw new FunctionError('OverflowError', 'cannot convert float infinity to integer');
      return exactInt(BigInt(Math.trunc(v.v)).toString());
    }
    const s = pyStrip(v.v);
    if (!/^[+-]?[0-9]+(?:_[0-9]+)*$/.test(s))
      throw new FunctionError('ValueError', `invalid literal for int() with base 10: ${pyRepr(v.v)}`);
    return exactInt(s.replace(/_/g, ''));
  }
  // float
  if (v.t === 'bool') return { t: 'float', v: v.v ? 1 : 0 };
  if (v.t === 'float') return v;
  if (v.t === 'int') {
    const x = v.digits ? Number(v.digits) : v.v;
    if (!Number.isFinite(x)) throw new FunctionError('OverflowError', 'int too large to convert to float');
    return { t: 'float', v: x };
  }
  const x = pyFloat(v.v);
  if (x === null) throw new FunctionError('ValueError', `could not convert string to float: ${pyRepr(v.v)}`);
  return { t: 'float', v: x };
}

// str.strip() with no argument: Python's whitespace.
const pyStrip = (s: string): string => s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, '');

/** Python's float() of a string: decimal with single underscores between digits, inf/infinity/nan. */
function pyFloat(text: string): number | null {
  const s = pyStrip(text);
  const m = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (m) return /nan/i.test(m[2]) ? NaN : m[1] === '-' ? -Infinity : Infinity;
  const D = '[0-9]+(?:_[0-9]+)*';
  if (!new RegExp(`^[+-]?(?:${D}(?:\\.(?:${D})?)?|\\.${D})(?:[eE][+-]?${D})?$`).test(s)) return null;
  return Number(s.replace(/_/g, ''));
}

/** Python's repr() of a str. */
export function pyRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${q}${out}${q}`;
}

/** sort(list) / sort(x) / sort(list=…, reverse=…); several values or a sweep make a sweep. */
function sort(args: FnArg[]): Val {
  const reverseArg = args.find((a) => a.name === 'reverse');
  const listArg = args.find((a) => a.name === 'list');
  const bad = args.find((a) => a.name && !['reverse', 'list', 'sweep'].includes(a.name));
  if (bad) throw new FunctionError('TypeError', `got an unexpected keyword argument '${bad.name}'`);
  if (args.some((a) => a.name === 'sweep')) throw new SweepError('sort of a sweep');
  const reverse = reverseArg ? reverseArg.value.t === 'bool' && reverseArg.value.v : false;
  if (reverseArg && reverseArg.value.t !== 'bool')
    throw new FunctionError(
      'TypeError',
      `mismatch type argument reverse: ${pyType(reverseArg.value)} is incompatible with bool`,
    );
  const pos = args.filter((a) => !a.name);
  if (listArg) {
    if (listArg.value.t !== 'list')
      throw new FunctionError(
        'TypeError',
        `mismatch type argument list: ${pyType(listArg.value)} is incompatible with Optional[List[Any]]`,
      );
    return sortedList(listArg.value.a, reverse);
  }
  if (pos.length === 0) throw new FunctionError('ValueError', 'empty sort input');
  if (pos.length > 1) throw new SweepError('several values make a choice sweep');
  const v = pos[0].value;
  return v.t === 'list' ? sortedList(v.a, reverse) : v;
}

/** Python's sorted(): numbers (bools too) among themselves, strings among themselves. */
function sortedList(items: Val[], reverse: boolean): Val {
  const num = (x: Val) => (x.t === 'int' || x.t === 'float' ? x.v : x.t === 'bool' ? Number(x.v) : null);
  const allNum = items.every((x) => num(x) !== null);
  const allStr = items.every((x) => x.t === 'str');
  if (!allNum && !allStr) {
    // Python's sort first compares each item with the one before it: the first pair it cannot order.
    const kind = (x: Val) => (num(x) !== null ? 'num' : x.t);
    let i = 1;
    while (
      i < items.length &&
      kind(items[i]) === kind(items[i - 1]) &&
      kind(items[i]) !== 'list' &&
      kind(items[i]) !== 'map' &&
      kind(items[i]) !== 'null'
    )
      i++;
    const [a, b] = i < items.length ? [items[i], items[i - 1]] : [items[0], items[0]];
    throw new FunctionError('TypeError', `'<' not supported between instances of '${pyType(a)}' and '${pyType(b)}'`);
  }
  // A stable sort like Python's; reverse=True keeps equal items in their order too.
  const idx = items.map((x, i) => [x, i] as const);
  const cmp = (x: Val, y: Val): number =>
    allNum ? num(x)! - num(y)! : cmpCodePoints((x as { v: string }).v, (y as { v: string }).v);
  idx.sort((p, q) => (reverse ? cmp(q[0], p[0]) : cmp(p[0], q[0])) || p[1] - q[1]);
  return { t: 'list', a: idx.map(([x]) => x) };
}

function cmpCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++)
    if (x[i] !== y[i]) return x[i].codePointAt(0)! - y[i].codePointAt(0)!;
  return x.length - y.length;
}

/** shuffle(x) is [x]; shuffle(list) is that list in a random order at each launch. */
function shuffle(args: FnArg[]): Val {
  const bad = args.find((a) => a.name && !['list', 'sweep'].includes(a.name));
  if (bad) throw new FunctionError('TypeError', `got an unexpected keyword argument '${bad.name}'`);
  if (args.some((a) => a.name === 'sweep')) throw new SweepError('shuffle of a sweep');
  const listArg = args.find((a) => a.name === 'list');
  const pos = args.filter((a) => !a.name);
  if (!listArg && pos.length !== 1) throw new SweepError('several values make a choice sweep');
  const v = listArg?.value ?? pos[0].value;
  if (v.t !== 'list') return { t: 'list', a: [v] };
  if (v.a.length > 1) throw new FunctionError('random', 'shuffle() of a list gives a random order at each launch');
  return v;
}

const pyType = (v: Val): string =>
  ({
    int: 'int',
    float: 'float',
    str: 'str',
    bool: 'bool',
    null: 'NoneType',
    missing: 'str',
    list: 'list',
    map: 'dict',
  })[v.t];
