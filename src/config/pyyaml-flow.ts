// PyYAML's scanner and parser over a flow collection (`[…]`, `{…}`), from its opening bracket to
// its match or to the first problem, as the trainer's loader meets it: no indentation rules inside,
// plain scalars run across lines, ':' is always a value indicator, a tab cannot start a token.
// See pyyaml-scan.ts for why; offsets in, offsets out.
import {
  BLANK_OR_END,
  BREAKS,
  blankOrEnd,
  docSeparator,
  isBreak,
  lineBreakLen,
  peek,
  pyRepr,
  scanQuoted,
  type PyYamlProblem,
} from './pyyaml-scan.js';

type TokKind =
  | '['
  | ']'
  | '{'
  | '}'
  | ','
  | ':'
  | '-'
  | '<scalar>'
  | '<alias>'
  | '<anchor>'
  | '<tag>'
  | '<document start>'
  | '<document end>'
  | '<stream end>'
  | '<key>';
interface Tok {
  k: TokKind;
  at: number;
}
/** The name PyYAML's parser quotes for a token (%r of token.id). */
const tokName = (t: Tok): string => `'${t.k === '<key>' ? '?' : t.k}'`;

class Found extends Error {
  constructor(readonly p: PyYamlProblem) {
    super(p.problem);
  }
}

/** PyYAML's scanner in flow context, from the `[` or `{` at `open` to its match: the tokens, and
 *  the scanner's problem if it stopped on one (the parser still sees the tokens before it). */
function flowTokens(
  text: string,
  open: number,
): { toks: Tok[]; problem: PyYamlProblem | null; comments: [number, number][]; multiline: boolean } {
  const toks: Tok[] = [];
  const comments: [number, number][] = [];
  let multiline = false; // a scalar running over more than one line
  let level = 0;
  let i = open;
  let line = 0;
  let allowSimpleKey = true;
  // One possible simple key per flow level: where its token is and on which line it started.
  const possible = new Map<number, { tok: number; at: number; line: number }>();
  const save = () => {
    if (allowSimpleKey) possible.set(level, { tok: toks.length, at: i, line });
  };
  const scanError = (offset: number, problem: string, context = 'while scanning for the next token'): never => {
    throw new Found({ offset, context, contextOffset: offset, problem });
  };
  const skipBreak = () => {
    const n = lineBreakLen(text, i);
    i += n;
    if (n) line++;
    return n > 0;
  };
  try {
    scan();
    return { toks, problem: null, comments, multiline };
  } catch (e) {
    if (e instanceof Found) return { toks, problem: e.p, comments, multiline };
    throw e;
  }

  function scan(): void {
    for (;;) {
      // scan_to_next_token: spaces (not tabs), comments, line breaks.
      for (;;) {
        while (text[i] === ' ') i++;
        if (text[i] === '#') {
          const c0 = i;
          while (i < text.length && !isBreak(text[i])) i++;
          comments.push([c0, i]);
        }
        if (!skipBreak()) break;
      }
      // stale_possible_simple_keys: a key must stay on one line and within 1024 characters.
      for (const [lvl, k] of possible) if (k.line !== line || i - k.at > 1024) possible.delete(lvl);
      const c = peek(text, i);
      if (c === '') {
        toks.push({ k: '<stream end>', at: i });
        return;
      }
      const sep = docSeparator(text, i);
      if (sep) {
        toks.push({ k: sep === '---' ? '<document start>' : '<document end>', at: i });
        return;
      }
      if (c === '[' || c === '{') {
        save();
        level++;
        allowSimpleKey = true;
        toks.push({ k: c, at: i++ });
        continue;
      }
      if (c === ']' || c === '}') {
        possible.delete(level);
        level--;
        allowSimpleKey = false;
        toks.push({ k: c, at: i++ });
        if (level === 0) return;
        continue;
      }
      if (c === ',') {
        allowSimpleKey = true;
        possible.delete(level);
        toks.push({ k: ',', at: i++ });
        continue;
      }
      if (c === '-' && blankOrEnd(peek(text, i + 1))) {
        // A block entry in flow context: the scanner lets it through, the parser refuses it.
        allowSimpleKey = true;
        possible.delete(level);
        toks.push({ k: '-', at: i++ });
        continue;
      }
      if (c === '?') {
        allowSimpleKey = false;
        possible.delete(level);
        toks.push({ k: '<key>', at: i++ }); // an explicit key: the same KeyToken as a simple key
        continue;
      }
      if (c === ':') {
        // In flow context ':' is always a value indicator; a possible simple key becomes a key.
        const key = possible.get(level);
        if (key) {
          possible.delete(level);
          toks.splice(key.tok, 0, { k: '<key>', at: key.at });
          allowSimpleKey = false;
        } else {
          allowSimpleKey = false; // `not self.flow_level`
          possible.delete(level);
        }
        toks.push({ k: ':', at: i++ });
        continue;
      }
      if (c === '*' || c === '&') {
        save();
        allowSimpleKey = false;
        const start = i++;
        const nameStart = i;
        while (/^[0-9A-Za-z_-]$/.test(peek(text, i))) i++;
        const what = c === '*' ? 'an alias' : 'an anchor';
        const after = peek(text, i);
        if (i === nameStart || !(after === '' || `${BLANK_OR_END}?:,]}%@\``.includes(after)))
          throw new Found({
            offset: i,
            context: `while scanning ${what}`,
            contextOffset: start,
            problem: `expected alphabetic or numeric character, but found ${pyRepr(after)}`,
          });
        toks.push({ k: c === '*' ? '<alias>' : '<anchor>', at: start });
        continue;
      }
      if (c === '!') {
        save();
        allowSimpleKey = false;
        const start = i;
        while (!blankOrEnd(peek(text, i))) i++;
        toks.push({ k: '<tag>', at: start });
        continue;
      }
      if (c === "'" || c === '"') {
        save();
        allowSimpleKey = false;
        const r = scanQuoted(text, i);
        if ('problem' in r) throw new Found(r);
        for (let j = i; j < r.end; j++)
          if (lineBreakLen(text, j) && !(text[j] === '\r' && text[j + 1] === '\n')) {
            line++;
            multiline = true;
          }
        toks.push({ k: '<scalar>', at: i });
        i = r.end;
        continue;
      }
      // check_plain in flow context.
      const plain = !`\0 \t${BREAKS}-?:,[]{}#&*!|>'"%@\``.includes(c) || (c === '-' && !blankOrEnd(peek(text, i + 1)));
      if (!plain) scanError(i, `found character ${pyRepr(c)} that cannot start any token`);
      save();
      allowSimpleKey = false;
      toks.push({ k: '<scalar>', at: i });
      scanPlain();
    }
  }

  // scan_plain in flow context: words joined by spaces and line breaks, up to an indicator.
  function scanPlain(): void {
    const startLine = line;
    for (;;) {
      if (text[i] === '#') return;
      let n = 0;
      for (;;) {
        const ch = peek(text, i + n);
        if (
          blankOrEnd(ch) ||
          (ch === ':' && (blankOrEnd(peek(text, i + n + 1)) || ',[]{}'.includes(peek(text, i + n + 1)))) ||
          ',?[]{}'.includes(ch)
        )
          break;
        n++;
      }
      if (n === 0) return;
      if (line !== startLine) multiline = true; // a second word on a later line: the scalar folds
      allowSimpleKey = false;
      i += n;
      if (!plainSpaces() || text[i] === '#') return;
    }
  }

  // scan_plain_spaces: spaces only (a tab ends the scalar); after a line break a separator ends it.
  function plainSpaces(): boolean {
    const ws = i;
    while (text[i] === ' ') i++;
    if (!isBreak(peek(text, i))) return i > ws;
    skipBreak();
    allowSimpleKey = true;
    if (docSeparator(text, i)) return false;
    for (;;) {
      if (text[i] === ' ') i++;
      else if (isBreak(peek(text, i))) {
        skipBreak();
        if (docSeparator(text, i)) return false;
      } else return true;
    }
  }
}

/** PyYAML's parser over a flow collection starting at `open` (`[` or `{`): its first problem, or
 *  null when PyYAML reads the collection to its closing bracket. */
export function flowProblem(text: string, open: number): PyYamlProblem | null {
  const { toks, problem: scanProblem } = flowTokens(text, open);
  let p = 0;
  // Past the last token there is the scanner's problem (the flow tokens always end in one or in
  // the closing bracket, which the parser never reads past).
  const beyond = () => {
    if (p >= toks.length)
      throw new Found(
        scanProblem ?? {
          offset: text.length,
          context: 'while parsing a flow node',
          contextOffset: open,
          problem: 'found unexpected end of stream',
        },
      );
  };
  const peekTok = (): Tok => toks[p];
  const next = () => toks[p++];
  const is = (...ks: TokKind[]) => {
    beyond();
    return ks.includes(peekTok().k);
  };
  const node = () => {
    beyond();
    const start = peekTok();
    if (is('<alias>')) return void next();
    let props = false;
    if (is('<anchor>')) {
      next();
      props = true;
      if (is('<tag>')) next();
    } else if (is('<tag>')) {
      next();
      props = true;
      if (is('<anchor>')) next();
    }
    if (is('<scalar>')) return void next();
    if (is('[')) return seq();
    if (is('{')) return map();
    if (props) return;
    const t = peekTok();
    throw new Found({
      offset: t.at,
      context: 'while parsing a flow node',
      contextOffset: start.at,
      problem: `expected the node content, but found ${tokName(t)}`,
    });
  };
  const entries = (close: ']' | '}', what: string) => {
    const openTok = next();
    let first = true;
    for (;;) {
      if (is(close)) return void next();
      if (!first) {
        if (is(',')) next();
        else {
          const t = peekTok();
          throw new Found({
            offset: t.at,
            context: `while parsing a flow ${what}`,
            contextOffset: openTok.at,
            problem: `expected ',' or '${close}', but got ${tokName(t)}`,
          });
        }
      }
      first = false;
      if (is('<key>')) {
        next();
        if (!is(':', ',', close)) node();
        if (is(':')) {
          next();
          if (!is(',', close)) node();
        }
      } else if (!is(close)) {
        node();
        // A mapping entry without '?' or a simple key: a node, then an empty value.
      }
    }
  };
  const seq = () => entries(']', 'sequence');
  const map = () => entries('}', 'mapping');
  try {
    node();
    return null;
  } catch (e) {
    if (e instanceof Found) return e.p;
    throw e;
  }
}

/** A flow collection PyYAML reads to its end: where it ends, its comments, and whether a scalar in
 *  it runs over lines (its value then folds in a way a one-line rewrite would not keep). */
export function flowSpan(
  text: string,
  open: number,
): { end: number; comments: [number, number][]; multiline: boolean } | null {
  if (flowProblem(text, open)) return null;
  const { toks, comments, multiline } = flowTokens(text, open);
  const last = toks[toks.length - 1];
  if (!last || (last.k !== ']' && last.k !== '}')) return null;
  return { end: last.at + 1, comments, multiline };
}
