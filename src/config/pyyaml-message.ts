// PyYAML's first error (found by pyyaml-parser.ts at PyYAML's problem_mark) in words a user can act
// on. Where the yaml package stopped at the same place, yaml-syntax.ts already has a message that
// names the mistake; otherwise PyYAML's own texts, with what usually causes them.
import type { Document } from 'yaml';
import type { PyYamlError } from './pyyaml-reader.js';
import { firstProblem, pyMessage } from './yaml-syntax.js';

type At = (offset: number) => { line: number; col: number };

export function pyyamlErrorMessage(e: PyYamlError, doc: Document, text: string, at: At): string {
  const first = doc.errors[0];
  if (first) {
    const fp = firstProblem(doc, text, at);
    // firstProblem's last resort is the yaml package's own message: PyYAML's wording is better then.
    if (fp.offset === e.offset && fp.message !== first.message.split('\n')[0]) return fp.message;
  }
  const ctx = e.contextOffset ?? e.offset;
  const c = at(ctx);
  const line = (o: number) => at(o).line;
  if (/found character '\\t' that cannot start any token/.test(e.problem))
    return "found character '\\t' that cannot start any token: the trainer's loader takes a tab only inside quotes, comments and block text; replace it with spaces";
  if (e.context === 'while scanning a simple key')
    return `while scanning a simple key: could not find expected ':' (line ${c.line} is neither 'key: value' nor a list item: add ': ' after its key, or join it to the value above)`;
  if (e.problem === 'mapping values are not allowed here')
    return "mapping values are not allowed here: a ': ' inside a value starts a mapping, or this line is indented deeper than the key above it; quote the value, or align the line with its sibling keys";
  if (e.context && /quoted scalar|^while parsing a flow (sequence|mapping)/.test(e.context))
    return pyMessage({ offset: e.offset, context: e.context, contextOffset: ctx, problem: e.problem }, text, at);
  if (e.context === 'while parsing a block mapping' || e.context === 'while parsing a block collection') {
    const what = e.context.endsWith('mapping') ? 'mapping' : 'list';
    return `${e.context}: ${e.problem}: this does not continue the ${what} that starts at line ${c.line}, column ${c.col}; check its indentation (keys of one mapping start at the same column)`;
  }
  if (e.context?.startsWith('found duplicate anchor'))
    return `found duplicate anchor (first occurrence at line ${c.line}): rename one`;
  if (e.context === 'expected a single document in the stream')
    return "expected a single document in the stream, but found another document: the trainer reads one document; remove the '---' or '...' line";
  const where = e.context && line(ctx) !== line(e.offset) ? ` (at line ${c.line}, column ${c.col})` : '';
  const hint = HINTS.find(([re]) => re.test(`${e.context ?? ''}: ${e.problem}`))?.[1];
  return `${e.context ? `${e.context}${where}: ` : ''}${e.problem}${hint ? `: ${hint}` : ''}`;
}

/** What usually causes PyYAML's other errors in a hand-edited config. */
const HINTS: [RegExp, string][] = [
  [
    /block scalar/,
    "a '|' or '>' starting a value opens a block of text on the lines below; quote the value if the character belongs to it",
  ],
  [/directive/, "a '%' at the start of a line is a YAML directive; delete it, or quote the value it belongs to"],
  [
    /an anchor|an alias|undefined alias/,
    "'&name' defines an anchor and '*name' refers to one; quote the value if the '&' or '*' belongs to it",
  ],
  [
    /a tag|tag handle|constructor for the tag/,
    "'!' starts a tag (a type) and the trainer's loader knows only !!str, !!int, !!float, !!bool, !!null, !!seq, !!map…; quote the value if the '!' belongs to it",
  ],
  [
    /sequence entries are not allowed here/,
    "a '- ' list item cannot follow a value on the same line; put it on a line of its own",
  ],
  [/mapping keys are not allowed here/, "a '? ' starts a complex key; delete it, or quote the value it belongs to"],
  [/expected the node content/, 'a value is missing here'],
  [/document/, "a '---' or '...' line separates YAML documents; the trainer reads one: delete that line"],
];
