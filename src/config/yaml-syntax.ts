// The first syntax error of a config, placed and worded as PyYAML (the trainer's loader) reports
// it. The yaml package finds the same broken files but often stops elsewhere; this maps its first
// error to PyYAML's problem_mark, following PyYAML's scanner where the two part ways.
import { visit, type Document } from 'yaml';
import { flowProblem, flowSpan } from './pyyaml-flow.js';
import { blockQuotedProblem, quotedValue, scanQuoted, type PyYamlProblem } from './pyyaml-scan.js';

type At = (offset: number) => { line: number; col: number };

/** Where and what PyYAML (the trainer's loader) reports for the first syntax error. The yaml
 *  package's first error can sit lines away: an over-indented `key: v` line makes the previous
 *  plain value multi-line and PyYAML stops at that line's ':'; a stray `- item` is reported from the
 *  blank line or comment before it. Its next error marks the place PyYAML names. */
export function firstProblem(doc: Document, text: string, at: At): { offset: number; message: string } {
  const [first, next] = doc.errors;
  if (first.code === 'TAB_AS_INDENT')
    return {
      offset: first.pos[0],
      message: 'a tab is used as indentation; YAML indents with spaces only: replace the tab with spaces',
    };
  if (
    first.code === 'BLOCK_AS_IMPLICIT_KEY' &&
    next &&
    (next.code === 'MULTILINE_IMPLICIT_KEY' || next.code === 'MISSING_CHAR')
  ) {
    if (first.message.startsWith('A block sequence'))
      return {
        offset: next.pos[0],
        message: "expected a key, but found '-' (a list item where the mapping goes on); check this line's indentation",
      };
    if (next.code === 'MULTILINE_IMPLICIT_KEY')
      return {
        offset: next.pos[1],
        message:
          "mapping values are not allowed here: this line is indented deeper than the key above it, which makes it part of that key's value; align it with its sibling keys",
      };
  }
  // A key less indented than its siblings: PyYAML points at the key, the yaml package at the line start.
  if (first.code === 'BAD_INDENT' && first.message.startsWith('All mapping items')) {
    let o = first.pos[0];
    while (text[o] === ' ' || text[o] === '\n' || text[o] === '\r') o++; // past blank lines, as PyYAML's next token
    return {
      offset: o,
      message:
        'expected the end of the mapping above, but found a key at another indentation: all keys of one mapping start at the same column',
    };
  }
  // A quote that opens where the yaml package gave up and never closes: the end of the file.
  if (first.pos[0] < text.length && (text[first.pos[0]] === '"' || text[first.pos[0]] === "'")) {
    const r = scanQuoted(text, first.pos[0]);
    if ('problem' in r) return { offset: r.offset, message: pyMessage(r, text, at) };
  }
  // A line starting with ': ': a value with no key; PyYAML stops at that ':'.
  const ls = text.lastIndexOf('\n', first.pos[0] - 1) + 1;
  const lead = /^ *:(?=[ \t\r\n]|$)/.exec(text.slice(ls, ls + 200));
  if (lead && first.pos[0] - ls < 200)
    return {
      offset: ls + lead[0].length - 1,
      message:
        "expected <block end>, but found ':': a value with no key before it; write the key, or join the line to the one above",
    };
  // A line that is neither `key: value` nor a list item (`seed 1`, `seed:1`): PyYAML takes it for a
  // key and fails where that plain scalar ends (after the blank lines that follow it), looking for ':'.
  const simpleKey =
    first.code === 'MULTILINE_IMPLICIT_KEY' ||
    (first.code === 'MISSING_CHAR' && first.message.startsWith('Implicit map keys need to be followed'));
  if (simpleKey && startsPlainLine(text, first.pos[0])) {
    const k = at(first.pos[0]);
    const why = `line ${k.line} is neither 'key: value' nor a list item: add ': ' after its key, or join it to the value above`;
    // The first line under `key:` opens no mapping yet: PyYAML's indentation is still the parent's,
    // deeper lines continue the scalar, and a ': ' there is a value where none may start.
    const parent = parentKeyIndent(text, first.pos[0]);
    if (parent !== null) {
      const end = plainEnd(text, first.pos[0], parent + 1);
      if (text[end] === ':') return { offset: end, message: `mapping values are not allowed here (${why})` };
    }
    return {
      offset: plainEnd(text, first.pos[0], k.col),
      message: `while scanning a simple key: could not find expected ':' (${why})`,
    };
  }
  // `key: a: b`: a ': ' inside a value; PyYAML stops at that ':'.
  if (
    first.code === 'BLOCK_AS_IMPLICIT_KEY' &&
    first.message.startsWith('Nested mappings') &&
    afterKey(text, first.pos[0])
  ) {
    const c = colonInValue(text, first.pos[0]);
    if (c !== null)
      return {
        offset: c,
        message:
          "mapping values are not allowed here: a ': ' inside a value starts a mapping; quote the value if the ': ' belongs to it",
      };
  }
  // Inside a flow collection (`[`/`{`) or a quoted scalar PyYAML checks no indentation: it reads on
  // and stops elsewhere than the yaml package. Follow it from the opening character.
  const openFlow = flowOpenBefore(doc, text, first.pos[0]);
  const fp = openFlow === null ? null : flowProblem(text, openFlow);
  if (fp) return { offset: fp.offset, message: pyMessage(fp, text, at) };
  const q = /^Missing closing (["'])quote/.exec(first.message);
  if ((first.code === 'MISSING_CHAR' && q) || first.code === 'BAD_DQ_ESCAPE') {
    let open: number | null = null;
    visit(doc, {
      Scalar(_, node) {
        const r = node.range;
        if (
          r &&
          (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') &&
          r[0] <= first.pos[0] &&
          r[1] >= first.pos[0]
        )
          open ??= r[0];
      },
    });
    if (open !== null) {
      const qp = blockQuotedProblem(text, open);
      if (qp) return { offset: qp.offset, message: pyMessage(qp, text, at) };
      if (q)
        return {
          offset: open,
          message: `this ${q[1]} quote is never closed on its line (missing closing ${q[1]}quote); the trainer's loader reads on to the next ${q[1]} in the file`,
        };
    }
  }
  return { offset: first.pos[0], message: first.message.split('\n')[0] };
}

/** The outermost flow collections (`[`/`{` not inside another): their start and end offsets. */
export function outerFlows(doc: Document): [number, number][] {
  const out: [number, number][] = [];
  const take = (n: { flow?: boolean; range?: [number, number, number] | null }) => {
    if (!n.flow || !n.range) return undefined;
    out.push([n.range[0], n.range[1]]);
    return visit.SKIP;
  };
  visit(doc, { Map: (_, n) => take(n), Seq: (_, n) => take(n) });
  return out;
}

/** The outermost flow collection that opens before `pos` and is not closed before it. */
function flowOpenBefore(doc: Document, text: string, pos: number): number | null {
  let found: number | null = null;
  for (const [start, end] of outerFlows(doc)) {
    const closed = end > start && (text[end - 1] === ']' || text[end - 1] === '}') && end <= pos;
    if (start <= pos && !closed) found = start;
  }
  return found;
}

/** PyYAML's problem in its words, with where the quote or bracket opened (the user's mistake). */
export function pyMessage(p: PyYamlProblem, text: string, at: At): string {
  const o = at(p.contextOffset);
  const opener = text[p.contextOffset];
  const where = `line ${o.line}, column ${o.col}`;
  if (/quoted scalar/.test(p.context) && /end of stream|document separator/.test(p.problem))
    return `${p.context}: ${p.problem}; the ${opener} quote opened at ${where} is never closed: add the closing ${opener}`;
  if (/quoted scalar/.test(p.context)) return `${p.context}: ${p.problem} (in the ${opener} quote opened at ${where})`;
  if (p.context === 'while parsing a block mapping')
    return `${p.problem}: the ${opener} quote opened at ${where} is not closed on its line, so the trainer's loader reads everything up to the next ${opener} as one string; close it at line ${o.line}`;
  if (/^while parsing a flow (sequence|mapping)/.test(p.context)) {
    const close = opener === '[' ? ']' : '}';
    return `${p.context}: ${p.problem}; the ${opener} opened at ${where} is still open here: a missing '${close}' or ','`;
  }
  return `${p.context}: ${p.problem}`;
}

/** Where PyYAML's block-context scan_plain ends for a plain scalar at `start`: words, the spaces
 *  and line breaks after them, continuation lines at column `indent` (0-based) or deeper. */
function plainEnd(text: string, start: number, indent: number): number {
  const blank = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || c === '\r' || c === '\n';
  let i = start;
  for (;;) {
    if (text[i] === '#') return i;
    let n = 0;
    while (!blank(text[i + n]) && !(text[i + n] === ':' && blank(text[i + n + 1]))) n++;
    if (n === 0) return i;
    i += n;
    const ws = i;
    while (text[i] === ' ') i++;
    if (text[i] === '\n' || text[i] === '\r') {
      while (text[i] === ' ' || text[i] === '\n' || text[i] === '\r') {
        i++;
        const lineStart = text[i - 1] === '\n' || (text[i - 1] === '\r' && text[i] !== '\n');
        if (lineStart && /^(---|\.\.\.)(\s|$)/.test(text.slice(i, i + 4))) return i;
      }
      if (i - (text.lastIndexOf('\n', i - 1) + 1) < indent) return i;
    } else if (i === ws) return i;
    if (text[i] === '#') return i;
  }
}

/** The first ': ' (or ':' at the line end) in the value starting at `pos`, past a quoted start. */
function colonInValue(text: string, pos: number): number | null {
  let j = pos;
  if (text[j] === '"' || text[j] === "'") {
    const r = scanQuoted(text, j);
    if ('problem' in r) return null;
    j = r.end;
  }
  for (; j < text.length && text[j] !== '\n' && text[j] !== '\r'; j++) {
    if (text[j] === '#' && (text[j - 1] === ' ' || text[j - 1] === '\t')) return null;
    if (text[j] === ':' && [' ', '\t', '\n', '\r', undefined].includes(text[j + 1])) return j;
  }
  return null;
}

/** A piece of the text PyYAML reads without complaint where the yaml package stops (a flow
 *  collection or a quoted string continued on lines indented less than YAML 1.2 asks), rewritten
 *  on one line with the same length, so offsets (and so every line and column) stay the file's. */
export function pyyamlRewrite(doc: Document, text: string): { start: number; end: number; replacement: string } | null {
  const first = doc.errors[0];
  if (!first) return null;
  // `"x"#note`, `[1]#note`: PyYAML takes a '#' right after a token as a comment; the yaml package
  // wants a space before it. The comment holds no value: blank it.
  if (
    first.code === 'MISSING_CHAR' &&
    first.message.startsWith('Comments must be separated') &&
    text[first.pos[0]] === '#'
  ) {
    const eol = text.slice(first.pos[0]).search(/[\r\n]|$/);
    return { start: first.pos[0], end: first.pos[0] + eol, replacement: ' '.repeat(eol) };
  }
  const followedByColon = (end: number) => /^[ ]*:/.test(text.slice(end, text.indexOf('\n', end) >>> 0));
  const open = flowOpenBefore(doc, text, first.pos[0]);
  if (open !== null) {
    const span = flowSpan(text, open);
    if (!span || span.end < first.pos[0] || followedByColon(span.end)) return null;
    // A quoted string in it runs over lines: first that string on one line (its folded value).
    if (span.multiline) return multilineQuoteIn(text, open, span.end, span.comments);
    let region = text.slice(open, span.end);
    if (!/[\r\n]/.test(region)) return null;
    for (const [a, b] of span.comments) region = region.slice(0, a - open) + ' '.repeat(b - a) + region.slice(b - open);
    return { start: open, end: span.end, replacement: region.replace(/[\r\n]/g, ' ') };
  }
  if (first.code !== 'MISSING_CHAR' || !/^Missing closing (["'])quote/.test(first.message)) return null;
  let qOpen: number | null = null;
  visit(doc, {
    Scalar(_, node) {
      const r = node.range;
      if (
        r &&
        (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') &&
        r[0] <= first.pos[0] &&
        r[1] >= first.pos[0]
      )
        qOpen ??= r[0];
    },
  });
  if (qOpen === null) return null;
  const r = scanQuoted(text, qOpen);
  if ('problem' in r || blockQuotedProblem(text, qOpen) || followedByColon(r.end)) return null;
  const value = quotedValue(text, qOpen);
  if (value === null || /[\u2028\u2029\x85]/.test(value)) return null;
  const replacement = JSON.stringify(value); // a JSON string reads the same as a YAML double-quoted one
  const length = r.end - qOpen;
  if (replacement.length > length || !/[\r\n]/.test(text.slice(qOpen, r.end))) return null;
  return { start: qOpen, end: r.end, replacement: replacement + ' '.repeat(length - replacement.length) };
}

/** The first quoted string in the flow collection [open, end) that runs over lines, rewritten on
 *  one line as its folded value (a JSON string reads the same as a YAML double-quoted one), padded
 *  to its length; null if there is none or it does not fit. */
function multilineQuoteIn(
  text: string,
  open: number,
  end: number,
  comments: [number, number][],
): { start: number; end: number; replacement: string } | null {
  for (let i = open + 1; i < end; i++) {
    const comment = comments.find(([a]) => a === i);
    if (comment) {
      i = comment[1] - 1;
      continue;
    }
    if (text[i] !== '"' && text[i] !== "'") continue;
    // A quote starts a token only after an indicator; elsewhere it is inside a plain scalar.
    if (!/[[{,:?]$/.test(text.slice(open, i).trimEnd())) continue;
    const r = scanQuoted(text, i);
    if ('problem' in r) return null;
    if (/[\r\n]/.test(text.slice(i, r.end))) {
      const value = quotedValue(text, i);
      if (value === null || /[\u2028\u2029\x85]/.test(value)) return null;
      const replacement = JSON.stringify(value);
      return replacement.length > r.end - i
        ? null
        : { start: i, end: r.end, replacement: replacement + ' '.repeat(r.end - i - replacement.length) };
    }
    i = r.end - 1;
  }
  return null;
}

/** `pos` is the first thing on its line and starts a plain scalar (not a quote, bracket, '-', …). */
function startsPlainLine(text: string, pos: number): boolean {
  const ls = text.lastIndexOf('\n', pos - 1) + 1;
  if (!/^[ ]*$/.test(text.slice(ls, pos))) return false;
  const c = text[pos] ?? '';
  const next = text[pos + 1] ?? '';
  if (c === '' || ' \t\r\n'.includes(c)) return false;
  return !'-?:,[]{}#&*!|>\'"%@`'.includes(c) || ('-?:'.includes(c) && next !== '' && !' \t\r\n'.includes(next));
}

/** `pos` is a value right after `key: ` on its line (a plain key, no quote or bracket). */
function afterKey(text: string, pos: number): boolean {
  const ls = text.lastIndexOf('\n', pos - 1) + 1;
  return /^ *(?:- +)?[A-Za-z0-9_$][^#'"\[\]{}]*?: +$/.test(text.slice(ls, pos));
}

/** When the line at `pos` is the first one under a `key:` line less indented: that key's column. */
function parentKeyIndent(text: string, pos: number): number | null {
  const ls = text.lastIndexOf('\n', pos - 1) + 1;
  const mine = pos - ls;
  for (let end = ls - 1; end > 0;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).replace(/\r$/, '');
    end = start - 1;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const indent = line.length - line.trimStart().length;
    return indent < mine && /:[ ]*(#.*)?$/.test(line) ? indent : null;
  }
  return null;
}
