// Tabs as the trainer's loader sees them. PyYAML skips only spaces between tokens and ends a plain
// scalar at a tab, so a tab anywhere but inside quotes, a comment or a block scalar's text is
// "found character '\t' that cannot start any token" (`key:\t1`, `1\t# note`, `a\tb`, a line holding
// only a tab). The yaml package takes most of these. This finds the first such tab.
import { CST, Lexer } from 'yaml';

/** Offset of the first tab PyYAML refuses, or null. */
export function firstRefusedTab(text: string): number | null {
  if (!text.includes('\t')) return null;
  let offset = 0;
  let scalarNext = false; // the lexer marks a plain or block scalar's text with a \x1f token first
  let blockNext = false; // … and a block scalar follows its header
  for (const tok of new Lexer().lex(text)) {
    const at = offset;
    if (tok === CST.SCALAR) {
      scalarNext = true;
      continue; // the marker takes no room in the text
    }
    if (tok === CST.DOCUMENT || tok === CST.FLOW_END) continue;
    offset += tok.length;
    const type = CST.tokenType(tok);
    if (scalarNext) {
      scalarNext = false;
      const bad = blockNext ? tabInBlockIndent(tok) : tok.indexOf('\t');
      blockNext = false;
      if (bad >= 0) return at + bad;
      continue;
    }
    if (type === 'block-scalar-header') blockNext = true;
    if (type === 'space' || type === 'newline') {
      const i = tok.indexOf('\t');
      if (i >= 0) return at + i;
    }
  }
  return null;
}

/** A block scalar's text: a tab before the block's indentation ends the block, and PyYAML then
 *  meets the tab as the start of a token. Tabs after the indentation are text. */
function tabInBlockIndent(body: string): number {
  const lines = body.split('\n');
  const first = lines.find((l) => l.trim() !== '');
  const indent = first ? first.length - first.trimStart().length : 0;
  let pos = 0;
  for (const line of lines) {
    const lead = /^[ \t]*/.exec(line)![0];
    const tab = lead.indexOf('\t');
    if (tab >= 0 && tab < indent) return pos + tab;
    if (tab >= 0 && line.trim() === '' && !first) return pos + tab;
    pos += line.length + 1;
  }
  return -1;
}
