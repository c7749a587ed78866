// Hydra's override grammar (OverrideLexer/OverrideParser .g4): `key=v`, `+key=v`, `++key=v`,
// `~key`, `~key=v`, typed values, quoted strings with Hydra's backslash rules, lists, dicts,
// interpolations. Command-line typing is NOT the file's typing: see docs/omegaconf-typing.md col 4.
import { callFunction, FunctionError, SweepError, type FnArg } from './overrides-functions.js';
import { lex, OverrideSyntaxError, type Tok } from './overrides-lexer.js';
import { exactInt, type Val } from './values.js';

export { OverrideSyntaxError };

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

const KEY_SEG = /^(?:[A-Za-z_$][A-Za-z0-9_\-$]*|0|[1-9](?:_?[0-9])*)$/;

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
    if (t.k === 'id') {
      // ID POPEN is a function call (POPEN takes the whitespace before it: `int (3)`).
      const j = this.toks[this.i + 1]?.k === 'ws' ? this.i + 2 : this.i + 1;
      if (this.toks[j]?.k === '(') return this.call(j);
    }
    if (t.k === 'quoted') {
      this.i++;
      const nx = this.peek();
      if (nx && !(nx.k === ',' || nx.k === ']' || nx.k === '}' || nx.k === ')' || nx.k === 'ws'))
        this.fail(`unexpected '${nx.s}' after a quoted string`, nx);
      if (nx?.k === 'ws') this.i++;
      return { t: 'str', v: t.value };
    }
    return this.primitive();
  }
  primitive(): Val {
    const start = this.i;
    while (this.i < this.toks.length) {
      const k = this.toks[this.i].k;
      if (
        k === 'ws' ||
        k === 'id' ||
        k === 'int' ||
        k === 'float' ||
        k === 'bool' ||
        k === 'null' ||
        k === 'uc' ||
        k === 'colon' ||
        k === 'esc' ||
        k === 'interp'
      )
        this.i++;
      else break;
    }
    let parts = this.toks.slice(start, this.i);
    if (parts.length === 0) {
      const t = this.peek()!;
      if (t.k === '(' || t.k === ')')
        this.fail(
          `'${t.s}' at column ${t.at + 1} must be quoted or escaped with a backslash (Hydra reads NAME(…) as a function call)`,
          t,
        );
      this.fail(`'${t.s}' at column ${t.at + 1} must be quoted or escaped with a backslash`, t);
    }
    if (parts[0].k === 'ws') parts = parts.slice(1);
    if (parts.length && parts[parts.length - 1].k === 'ws') parts = parts.slice(0, -1);
    if (parts.length === 0) this.fail('a value cannot be only whitespace');
    if (parts.length > 1) return { t: 'str', v: parts.map((p) => (p.k === 'esc' ? unescape(p.s) : p.s)).join('') };
    const p = parts[0];
    switch (p.k) {
      case 'int':
        return exactInt(p.s.replace(/_/g, ''));
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
  /** `name(arg, key=arg, …)`, evaluated as Hydra does while it parses. */
  call(open: number): Val {
    const nameTok = this.toks[this.i];
    this.i = open + 1;
    const args: FnArg[] = [];
    while (this.peek()?.k !== ')') {
      if (!this.peek()) this.fail(`missing ')' to close ${nameTok.s}(`);
      const t = this.peek()!;
      const named = t.k === 'id' && this.toks[this.i + 1]?.k === '=';
      if (named) this.i += 2;
      else if (args.some((a) => a.name)) this.fail('positional argument follows keyword argument', t);
      args.push({ name: named ? t.s : undefined, value: this.element() });
      const sep = this.peek();
      if (sep?.k === ',') this.i++;
      else if (sep?.k !== ')')
        this.fail(sep ? `unexpected '${sep.s}' in ${nameTok.s}(…)` : `missing ')' to close ${nameTok.s}(`, sep);
    }
    const close = this.toks[this.i++];
    // Hydra quotes the call as written (ctx.getText(): the tokens, whitespace included).
    const callText = this.text.slice(nameTok.at, close.at + close.s.length);
    try {
      return callFunction(nameTok.s, args);
    } catch (e) {
      if (e instanceof SweepError) throw new SweepOverride(callText, nameTok.at + 1);
      if (!(e instanceof FunctionError)) throw e;
      if (e.kind === 'unsupported') throw new OverrideSyntaxError(`'${callText}': ${e.message}`, nameTok.at + 1);
      if (e.kind === 'random')
        throw new OverrideSyntaxError(
          `'${callText}' gives a random order at each launch: train.py would take some order, the cockpit cannot know which; write the list in the order you want`,
          nameTok.at + 1,
        );
      throw new OverrideSyntaxError(`${e.kind} while evaluating '${callText}': ${e.message}`, nameTok.at + 1);
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
      while (
        this.i < this.toks.length &&
        ['ws', 'id', 'int', 'float', 'bool', 'null', 'uc', 'esc'].includes(this.toks[this.i].k)
      )
        this.i++;
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

/** A sweep function met while parsing; the message needs the whole override. */
class SweepOverride extends Error {
  constructor(
    readonly call: string,
    readonly col: number,
  ) {
    super(call);
  }
}

/** Parse one override. Throws OverrideSyntaxError with Hydra's kind of message on misuse. */
export function parseOverride(text: string): ParsedOverride {
  try {
    return parseOverrideText(text);
  } catch (e) {
    if (!(e instanceof SweepOverride)) throw e;
    throw new OverrideSyntaxError(
      `sweeps are not supported by train.py: '${e.call}' makes a sweep, and Hydra refuses it ("Sweep parameters '${text}' requires --multirun"); train.py runs one config and has no --multirun: give one value`,
      e.col,
    );
  }
}

function parseOverrideText(text: string): ParsedOverride {
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
    throw new OverrideSyntaxError(
      `missing '=': write ${keyText || 'key'}=VALUE (or ~${keyText || 'key'} to delete it)`,
      text.length + 1,
    );
  }
  if (keyText.includes('/') || keyText.includes('@')) {
    throw new OverrideSyntaxError(
      `'${keyText}' is a config-group override; only value overrides (a.b=v) are supported`,
      off + 1,
    );
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
    if (t.k === '}' && /\$\{[^}]*\$\{/.test(body))
      p.fail(
        `a nested interpolation must be quoted: ${keyText}='${body}' ('}' at column ${t.at + 1} ends the first \${)`,
        t,
      );
    p.fail(`'${t.s}' at column ${t.at + 1} must be quoted or escaped with a backslash`, t);
  }
  return { kind, path, key: keyText, value: first, text };
}
