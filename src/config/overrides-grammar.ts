// Hydra's override grammar (OverrideLexer/OverrideParser .g4): `key=v`, `+key=v`, `++key=v`,
// `~key`, `~key=v`, typed values, quoted strings with Hydra's backslash rules, lists, dicts,
// interpolations. Command-line typing is NOT the file's typing: see docs/omegaconf-typing.md col 4.
import type { Val } from './values.js';

export type OverrideKind = 'set' | 'add' | 'force' | 'delete';

export interface ParsedOverride {
  kind: OverrideKind;
  /** Path segments; all-digit segments address list elements. */
  path: string[];
  key: string;
  /** Absent for `~key` without a value. */
  value?: Val;
  text: string;
}

export class OverrideSyntaxError extends Error {
  constructor(
    message: string,
    readonly col: number, // 1-based column in the override text
  ) {
    super(message);
  }
}

const KEY_SEG = /^(?:[A-Za-z_$][A-Za-z0-9_\-$]*|0|[1-9](?:_?[0-9])*)$/;
const INT_RE = /^[+-]?(?:0|[1-9](?:_?[0-9])*)$/;
const FLOAT_RE = /^[+-]?(?:(?:(?:0|[1-9](?:_?[0-9])*)\.|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*)|(?:(?:0|[1-9](?:_?[0-9])*)|(?:0|[1-9](?:_?[0-9])*)\.|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*)[eE][+-]?[0-9]+|[Ii][Nn][Ff]|[Nn][Aa][Nn])$/;

type Tok =
  | { k: 'ws' | 'id' | 'int' | 'float' | 'bool' | 'null' | 'uc' | 'colon' | 'esc' | 'interp'; s: string; at: number }
  | { k: 'quoted'; s: string; value: string; at: number }
  | { k: '[' | ']' | '{' | '}' | ',' | '(' | ')' | '='; s: string; at: number };

const ID_START = /[A-Za-z_]/;
const ID_CHAR = /[A-Za-z0-9_]/;

/** Value-mode lexer. Whitespace around brackets, commas and colons belongs to those tokens, as in Hydra. */
function lex(src: string, base: number): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    const at = base + i;
    if (c === ' ' || c === '\t') {
      let j = i;
      while (j < n && (src[j] === ' ' || src[j] === '\t')) j++;
      const next = src[j];
      // Whitespace before a closing bracket, a comma or a colon is part of that token.
      if (next === ',' || next === ']' || next === '}' || next === ':' || next === ')' || next === '=') {
        i = j;
        continue;
      }
      toks.push({ k: 'ws', s: src.slice(i, j), at });
      i = j;
      continue;
    }
    if ('[]{},()=:'.includes(c)) {
      const k = c === ':' ? 'colon' : (c as '[' | ']' | '{' | '}' | ',' | '(' | ')' | '=');
      toks.push({ k, s: c, at } as Tok);
      i++;
      // Whitespace after an opening bracket, a comma, a colon or '=' is part of that token.
      if ('[{,(:='.includes(c)) while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const r = readQuoted(src, i);
      if (!r) throw new OverrideSyntaxError(`unterminated quoted string starting at column ${at + 1}`, at + 1);
      toks.push({ k: 'quoted', s: src.slice(i, r.end), value: r.value, at });
      i = r.end;
      continue;
    }
    if (c === '$' && src[i + 1] === '{') {
      const close = src.indexOf('}', i + 2);
      if (close > i + 2) {
        // Nested interpolations `${a.${b}}`: extend to the matching brace.
        let depth = 0;
        let j = i;
        for (; j < n; j++) {
          if (src[j] === '$' && src[j + 1] === '{') {
            depth++;
            j++;
          } else if (src[j] === '}') {
            depth--;
            if (depth === 0) break;
          }
        }
        if (j < n) {
          toks.push({ k: 'interp', s: src.slice(i, j + 1), at });
          i = j + 1;
          continue;
        }
      }
    }
    if (c === '\\') {
      let j = i;
      while (j + 1 < n && src[j] === '\\' && '\\()[]{}:=, \t'.includes(src[j + 1])) j += 2;
      if (j > i) {
        toks.push({ k: 'esc', s: src.slice(i, j), at });
        i = j;
        continue;
      }
      toks.push({ k: 'uc', s: c, at });
      i++;
      continue;
    }
    // Numbers, bools, null and identifiers: take the longest run of word-ish characters, then
    // classify it the way Hydra's lexer would (longest match among FLOAT/INT/BOOL/NULL/ID).
    if (/[A-Za-z0-9_+\-.]/.test(c)) {
      const m = matchWord(src, i);
      if (m) {
        toks.push({ ...m, at } as Tok);
        i += m.s.length;
        continue;
      }
    }
    if ('/-\\+.$%*@?|'.includes(c)) {
      toks.push({ k: 'uc', s: c, at });
      i++;
      continue;
    }
    throw new OverrideSyntaxError(`character '${c}' at column ${at + 1} is not allowed here; quote the value`, at + 1);
  }
  return toks;
}

/** ANTLR picks the longest match; ties go to the rule listed first (FLOAT, INT, BOOL, NULL, ..., ID). */
function matchWord(src: string, i: number): { k: Tok['k']; s: string } | null {
  let best: { k: Tok['k']; s: string } | null = null;
  const rest = src.slice(i);
  const tryRe = (k: Tok['k'], re: RegExp) => {
    const m = re.exec(rest);
    if (m && (!best || m[0].length > best.s.length)) best = { k, s: m[0] };
  };
  tryRe('float', /^[+-]?(?:(?:(?:0|[1-9](?:_?[0-9])*)|(?:0|[1-9](?:_?[0-9])*)\.|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*)[eE][+-]?[0-9]+|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|(?:0|[1-9](?:_?[0-9])*)\.|[Ii][Nn][Ff]|[Nn][Aa][Nn])/);
  tryRe('int', /^[+-]?(?:0|[1-9](?:_?[0-9])*)/);
  tryRe('bool', /^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])/);
  tryRe('null', /^[Nn][Uu][Ll][Ll]/);
  tryRe('id', /^[A-Za-z_][A-Za-z0-9_]*/);
  return best;
}

/** Hydra's quoted strings: a quote is escaped by an odd run of backslashes before it; a run of
 *  backslashes before a quote (or the end) is halved; other backslashes are literal. */
function readQuoted(src: string, start: number): { value: string; end: number } | null {
  const q = src[start];
  let out = '';
  let i = start + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') {
      let j = i;
      while (j < src.length && src[j] === '\\') j++;
      const k = j - i;
      if (src[j] === q) {
        out += '\\'.repeat(Math.floor(k / 2));
        if (k % 2 === 1) {
          out += q;
          i = j + 1;
          continue;
        }
        return { value: out, end: j + 1 };
      }
      out += src.slice(i, j);
      i = j;
      continue;
    }
    if (c === q) return { value: out, end: i + 1 };
    out += c;
    i++;
  }
  return null;
}

class Parser {
  i = 0;
  constructor(
    readonly toks: Tok[],
    readonly text: string,
  ) {}
  peek(): Tok | undefined {
    return this.toks[this.i];
  }
  fail(msg: string, t?: Tok): never {
    const at = (t ?? this.peek())?.at ?? this.text.length;
    throw new OverrideSyntaxError(msg, at + 1);
  }
  element(): Val {
    const t = this.peek();
    if (!t) this.fail('missing value');
    if (t.k === '[') return this.list();
    if (t.k === '{') return this.dict();
    if (t.k === 'quoted') {
      this.i++;
      const nx = this.peek();
      if (nx && !(nx.k === ',' || nx.k === ']' || nx.k === '}' || nx.k === 'ws')) this.fail(`unexpected '${nx.s}' after a quoted string`, nx);
      if (nx?.k === 'ws') this.i++;
      return { t: 'str', v: t.value };
    }
    return this.primitive();
  }
  primitive(): Val {
    const start = this.i;
    while (this.i < this.toks.length) {
      const k = this.toks[this.i].k;
      if (k === 'ws' || k === 'id' || k === 'int' || k === 'float' || k === 'bool' || k === 'null' || k === 'uc' || k === 'colon' || k === 'esc' || k === 'interp') this.i++;
      else break;
    }
    let parts = this.toks.slice(start, this.i);
    if (parts.length === 0) {
      const t = this.peek()!;
      if (t.k === '(' || t.k === ')') this.fail(`'${t.s}' at column ${t.at + 1} must be quoted or escaped (functions like choice() or range() are not supported)`, t);
      this.fail(`'${t.s}' at column ${t.at + 1} must be quoted or escaped with a backslash`, t);
    }
    if (parts[0].k === 'ws') parts = parts.slice(1);
    if (parts.length && parts[parts.length - 1].k === 'ws') parts = parts.slice(0, -1);
    if (parts.length === 0) this.fail('a value cannot be only whitespace');
    if (parts.length > 1) return { t: 'str', v: parts.map((p) => (p.k === 'esc' ? unescape(p.s) : p.s)).join('') };
    const p = parts[0];
    switch (p.k) {
      case 'int':
        return { t: 'int', v: Number(p.s.replace(/_/g, '')) + 0 }; // + 0: Python has no int -0
      case 'float': {
        const s = p.s.replace(/_/g, '').toLowerCase();
        const sign = s.startsWith('-') ? -1 : 1;
        const body = s.replace(/^[+-]/, '');
        return { t: 'float', v: body === 'inf' ? sign * Infinity : body === 'nan' ? NaN : Number(s) };
      }
      case 'bool':
        return { t: 'bool', v: p.s.toLowerCase() === 'true' };
      case 'null':
        return { t: 'null' };
      case 'esc':
        return { t: 'str', v: unescape(p.s) };
      default:
        return { t: 'str', v: p.s };
    }
  }
  list(): Val {
    this.i++; // [
    const a: Val[] = [];
    if (this.peek()?.k === ']') {
      this.i++;
      return { t: 'list', a };
    }
    for (;;) {
      a.push(this.element());
      const t = this.peek();
      if (t?.k === ',') {
        this.i++;
        continue;
      }
      if (t?.k === ']') {
        this.i++;
        return { t: 'list', a };
      }
      this.fail(t ? `unexpected '${t.s}' in a list` : "missing ']' at the end of a list", t);
    }
  }
  dict(): Val {
    this.i++; // {
    const m = new Map<string, Val>();
    if (this.peek()?.k === '}') {
      this.i++;
      return { t: 'map', m };
    }
    for (;;) {
      const start = this.i;
      while (this.i < this.toks.length && ['ws', 'id', 'int', 'float', 'bool', 'null', 'uc', 'esc'].includes(this.toks[this.i].k)) this.i++;
      const key = this.toks
        .slice(start, this.i)
        .map((p) => (p.k === 'esc' ? unescape(p.s) : p.s))
        .join('')
        .trim();
      if (!key) this.fail('a dict entry needs a key', this.peek());
      if (this.peek()?.k !== 'colon') this.fail(`missing ':' after dict key '${key}'`, this.peek());
      this.i++;
      m.set(key, this.element());
      const t = this.peek();
      if (t?.k === ',') {
        this.i++;
        continue;
      }
      if (t?.k === '}') {
        this.i++;
        return { t: 'map', m };
      }
      this.fail(t ? `unexpected '${t.s}' in a dict` : "missing '}' at the end of a dict", t);
    }
  }
}

const unescape = (s: string): string => {
  let out = '';
  for (let i = 1; i < s.length; i += 2) out += s[i];
  return out;
};

/** Parse one override. Throws OverrideSyntaxError with Hydra's kind of message on misuse. */
export function parseOverride(text: string): ParsedOverride {
  let kind: OverrideKind = 'set';
  let rest = text;
  let off = 0;
  if (rest.startsWith('++')) {
    kind = 'force';
    off = 2;
  } else if (rest.startsWith('+')) {
    kind = 'add';
    off = 1;
  } else if (rest.startsWith('~')) {
    kind = 'delete';
    off = 1;
  }
  rest = text.slice(off);
  const eq = rest.indexOf('=');
  const keyText = eq < 0 ? rest : rest.slice(0, eq);
  if (eq < 0 && kind !== 'delete') {
    throw new OverrideSyntaxError(`missing '=': write ${keyText || 'key'}=VALUE (or ~${keyText || 'key'} to delete it)`, text.length + 1);
  }
  if (keyText.includes('/') || keyText.includes('@')) {
    throw new OverrideSyntaxError(`'${keyText}' is a config-group override; only value overrides (a.b=v) are supported`, off + 1);
  }
  const path = keyText.split('.');
  if (!keyText || path.some((s) => !KEY_SEG.test(s)) || (path.length === 1 && /^[0-9]/.test(keyText))) {
    throw new OverrideSyntaxError(`'${keyText}' is not a valid key: use dotted names like actor.optimizer.lr`, off + 1);
  }
  if (eq < 0) return { kind, path, key: keyText, text };
  const valueSrc = rest.slice(eq + 1);
  const base = off + eq + 1;
  // Hydra's EQUAL token swallows the whitespace after it.
  const lead = /^[ \t]*/.exec(valueSrc)![0].length;
  const body = valueSrc.slice(lead);
  if (body === '') return { kind, path, key: keyText, value: { t: 'str', v: '' }, text };
  const toks = lex(body, base + lead);
  const p = new Parser(toks, text);
  const first = p.element();
  if (p.peek()?.k === ',') {
    throw new OverrideSyntaxError(
      `ambiguous value for '${text}': a comma makes it a sweep. For a list write ${keyText}=[${body}], for a string quote it: ${keyText}='${body}'`,
      p.peek()!.at + 1,
    );
  }
  if (p.peek()) {
    const t = p.peek()!;
    p.fail(`'${t.s}' at column ${t.at + 1} must be quoted or escaped with a backslash`, t);
  }
  return { kind, path, key: keyText, value: first, text };
}

// Exposed for tests of the lexer's float/int rules.
export const _internal = { INT_RE, FLOAT_RE };
