// Where PyYAML (the trainer's loader) stops on an unclosed quote or bracket. The yaml package
// applies YAML 1.2's indentation rules inside quoted scalars and flow collections and stops at the
// first badly indented line; PyYAML checks no indentation there: it reads on, across lines, to the
// next quote, or parses the flow collection to its end, and fails where its scanner or parser
// meets something it cannot take (the "problem_mark"). This follows PyYAML's scanner.py and
// parser.py from the opening character, just far enough to find that place. Offsets in, offsets out.

export interface PyYamlProblem {
  /** Where PyYAML's problem_mark points (an offset into the text; text.length = end of stream). */
  offset: number;
  /** PyYAML's context ("while scanning a quoted scalar") and where it started. */
  context: string;
  contextOffset: number;
  /** PyYAML's problem text ("found unexpected end of stream"). */
  problem: string;
}

export const BREAKS = '\r\n\x85\u2028\u2029';
export const BLANK_OR_END = ` \t${BREAKS}`; // plus the end of the text (peek gives '')

export const peek = (t: string, i: number): string => (i < t.length ? t[i] : '');
export const blankOrEnd = (c: string): boolean => c === '' || BLANK_OR_END.includes(c);
export const isBreak = (c: string): boolean => c !== '' && BREAKS.includes(c);
export const lineBreakLen = (t: string, i: number): number =>
  t[i] === '\r' && t[i + 1] === '\n' ? 2 : isBreak(peek(t, i)) ? 1 : 0;
const atLineStart = (t: string, i: number): boolean => i === 0 || isBreak(t[i - 1]);
/** `---` or `...` at a line start followed by a blank: PyYAML's document separators. */
export const docSeparator = (t: string, i: number): '---' | '...' | null => {
  const s = t.slice(i, i + 3);
  return atLineStart(t, i) && (s === '---' || s === '...') && blankOrEnd(peek(t, i + 3)) ? s : null;
};

const ESCAPES = new Set('0abt\tnvfre "/\\N_LP'.split(''));
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

/** PyYAML's scan_flow_scalar from the quote at `open`: the offset just past the closing quote, or
 *  the problem it raises (end of stream, a document separator, a bad escape). */
export function scanQuoted(text: string, open: number): { end: number } | PyYamlProblem {
  const q = text[open];
  const double = q === '"';
  const fail = (offset: number, problem: string, context = 'while scanning a quoted scalar'): PyYamlProblem => ({
    offset,
    context,
    contextOffset: open,
    problem,
  });
  let i = open + 1;
  for (;;) {
    const c = peek(text, i);
    if (c === '') return fail(i, 'found unexpected end of stream');
    if (c === q) {
      if (!double && peek(text, i + 1) === "'") {
        i += 2; // '' is an escaped single quote
        continue;
      }
      return { end: i + 1 };
    }
    if (double && c === '\\') {
      const e = peek(text, i + 1);
      if (ESCAPES.has(e)) i += 2;
      else if (e in HEX_ESCAPES) {
        const n = HEX_ESCAPES[e];
        for (let k = 0; k < n; k++) {
          const h = peek(text, i + 2 + k);
          // PyYAML marks the start of the digits, whichever one is wrong.
          if (!/^[0-9A-Fa-f]$/.test(h))
            return fail(
              i + 2,
              `expected escape sequence of ${n} hexadecimal numbers, but found ${pyRepr(h)}`,
              'while scanning a double-quoted scalar',
            );
        }
        i += 2 + n;
      } else if (isBreak(e)) {
        const next = afterBreaks(text, i + 1);
        if (typeof next !== 'number') return next;
        i = next;
      } else return fail(i + 1, `found unknown escape character ${pyRepr(e)}`, 'while scanning a double-quoted scalar');
      continue;
    }
    if (isBreak(c)) {
      const next = afterBreaks(text, i);
      if (typeof next !== 'number') return next;
      i = next;
      continue;
    }
    i++;
  }

  // scan_flow_scalar_breaks: line breaks and indentation; no indentation check, only separators.
  function afterBreaks(t: string, at: number): number | PyYamlProblem {
    let j = at + lineBreakLen(t, at);
    for (;;) {
      if (docSeparator(t, j)) return fail(j, 'found unexpected document separator');
      while (t[j] === ' ' || t[j] === '\t') j++;
      const n = lineBreakLen(t, j);
      if (!n) return j;
      j += n;
    }
  }
}

/** Python's repr() of a one-character string, as PyYAML's messages quote it. */
export function pyRepr(c: string): string {
  if (c === '') return "'\\x00'";
  if (c === '\t') return "'\\t'";
  if (c === '\n') return "'\\n'";
  if (c === '\r') return "'\\r'";
  if (c === "'") return '"\'"';
  if (c === '\\') return "'\\\\'";
  return `'${c}'`;
}

/** A quote in block context that the yaml package calls unclosed: PyYAML's problem for it, or null
 *  when PyYAML may well read on without one (the quote closes at the end of a later line). */
export function blockQuotedProblem(text: string, open: number): PyYamlProblem | null {
  const r = scanQuoted(text, open);
  if ('problem' in r) return r;
  // The next quote in the file closed it; what follows on that line is the next token, and
  // after a mapping value in block context only a line end or a comment may follow.
  let j = r.end;
  while (text[j] === ' ') j++;
  const c = peek(text, j);
  if (c === '' || isBreak(c) || c === '#' || c === ':') return null;
  if (c === '\t')
    return {
      offset: j,
      context: 'while scanning for the next token',
      contextOffset: j,
      problem: "found character '\\t' that cannot start any token",
    };
  const found =
    c === '[' || c === '{'
      ? c
      : c === '&'
        ? '<anchor>'
        : c === '*'
          ? '<alias>'
          : c === '!'
            ? '<tag>'
            : c === "'" || c === '"'
              ? '<scalar>'
              : '|>%@`-?'.includes(c)
                ? null
                : '<scalar>';
  if (!found) return null;
  return {
    offset: j,
    context: 'while parsing a block mapping',
    contextOffset: open,
    problem: `expected <block end>, but found '${found}'`,
  };
}

const REPLACEMENTS: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\x08',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\x0b',
  f: '\x0c',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
/** PyYAML's scan_line_break: \r\n, \r and \x85 read as \n; \u2028/\u2029 stay. */
const normBreak = (t: string, i: number): string => (t[i] === '\u2028' || t[i] === '\u2029' ? t[i] : '\n');

/** The value PyYAML gives a quoted scalar that closes (scan_flow_scalar): escapes, `''`, and line
 *  folding (a break between words is a space, n blank lines are n newlines, indentation dropped). */
export function quotedValue(text: string, open: number): string | null {
  const q = text[open];
  const double = q === '"';
  let out = '';
  let i = open + 1;
  // scan_flow_scalar_breaks: the breaks after a first one; spaces and tabs around them dropped.
  const breaks = (): string | null => {
    let b = '';
    for (;;) {
      if (docSeparator(text, i)) return null;
      while (text[i] === ' ' || text[i] === '\t') i++;
      const n = lineBreakLen(text, i);
      if (!n) return b;
      b += normBreak(text, i);
      i += n;
    }
  };
  for (;;) {
    const c = peek(text, i);
    if (c === '') return null;
    if (c === q && !(!double && peek(text, i + 1) === "'")) return out;
    if (!double && c === "'") {
      out += "'";
      i += 2;
    } else if (double && c === '\\') {
      const e = peek(text, i + 1);
      if (e in REPLACEMENTS) {
        out += REPLACEMENTS[e];
        i += 2;
      } else if (e in HEX_ESCAPES) {
        const n = HEX_ESCAPES[e];
        const hex = text.slice(i + 2, i + 2 + n);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) return null;
        out += String.fromCodePoint(parseInt(hex, 16));
        i += 2 + n;
      } else if (isBreak(e)) {
        i += 1 + lineBreakLen(text, i + 1);
        const b = breaks();
        if (b === null) return null;
        out += b;
      } else return null;
    } else if (c === ' ' || c === '\t' || isBreak(c)) {
      const ws = i;
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (!isBreak(peek(text, i))) {
        if (peek(text, i) === '') return null;
        out += text.slice(ws, i);
        continue;
      }
      const first = normBreak(text, i);
      i += lineBreakLen(text, i);
      const b = breaks();
      if (b === null) return null;
      out += first !== '\n' ? first + b : b ? b : ' ';
    } else {
      out += c;
      i++;
    }
  }
}
