// Hydra's override lexer in value mode (OverrideLexer.g4): ANTLR longest-match tokens, with the
// whitespace around brackets, commas and colons belonging to those tokens.

export class OverrideSyntaxError extends Error {
  constructor(
    message: string,
    readonly col: number, // 1-based column in the override text
  ) {
    super(message);
  }
}

export type Tok =
  | { k: 'ws' | 'id' | 'int' | 'float' | 'bool' | 'null' | 'uc' | 'colon' | 'esc' | 'interp'; s: string; at: number }
  | { k: 'quoted'; s: string; value: string; at: number }
  | { k: '[' | ']' | '{' | '}' | ',' | '(' | ')' | '='; s: string; at: number };

/** Value-mode lexer. Whitespace around brackets, commas and colons belongs to those tokens, as in Hydra. */
export function lex(src: string, base: number): Tok[] {
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
      // Hydra's INTERPOLATION token is '${' ~('}')+ '}': it ends at the FIRST '}', so a nested
      // `${a.${b}}` leaves a stray '}' (Hydra refuses it unquoted; quoted it is just a string).
      const close = src.indexOf('}', i + 2);
      if (close > i + 2) {
        toks.push({ k: 'interp', s: src.slice(i, close + 1), at });
        i = close + 1;
        continue;
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
  tryRe(
    'float',
    /^[+-]?(?:(?:(?:0|[1-9](?:_?[0-9])*)|(?:0|[1-9](?:_?[0-9])*)\.|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*)[eE][+-]?[0-9](?:_?[0-9])*|(?:0|[1-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|(?:0|[1-9](?:_?[0-9])*)\.|[Ii][Nn][Ff]|[Nn][Aa][Nn])/,
  );
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
