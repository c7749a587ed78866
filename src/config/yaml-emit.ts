// Writing values back as YAML that the trainer's loader reads with the same type and text:
// a string that would load as something else (yes, 010, 1e-5, null, '') is quoted; floats are
// written as Python writes them (5e-06, 1.0).
import { Pair, Scalar, YAMLMap, YAMLSeq, type Node as YNode } from 'yaml';
import { resolvePlain } from './yaml-scalars.js';
import { pyFloatRepr, type Val } from './values.js';

const SAFE_PLAIN = /^[^\s'"#&*!|>%@`{}[\],?:-][^#]*$/;

// What PyYAML reads literally inside a quoted scalar: its reader refuses every other character
// (even quoted), and \x85 \u2028 \u2029 are line breaks it would fold. A TAB reads in quotes only.
const NOT_LITERAL = /[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

export function needsQuotes(s: string): boolean {
  if (s === '' || s !== s.trim() || NOT_LITERAL.test(s)) return true;
  const r = resolvePlain(s);
  if (r.t !== 'str' || r.v !== s) return true;
  if (!SAFE_PLAIN.test(s) || /: |\s#/.test(s) || s.endsWith(':')) return true;
  // `---` / `...` start or end a document where a key begins a line.
  if (/^(---|\.\.\.)/.test(s)) return true;
  return false;
}

const singleQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;

const ESCAPES: Record<string, string> = {
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
  '\x85': '\\N',
  '\u2028': '\\L',
  '\u2029': '\\P',
  '"': '\\"',
  '\\': '\\\\',
};

/** A YAML double-quoted scalar: every character PyYAML would not read literally as an escape. */
export function doubleQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const e = ESCAPES[ch];
    if (e) out += e;
    else if (NOT_LITERAL.test(ch)) {
      const c = ch.codePointAt(0)!;
      const [esc, width]: [string, number] = c < 0x100 ? ['x', 2] : c < 0x10000 ? ['u', 4] : ['U', 8];
      out += `\\${esc}${c.toString(16).padStart(width, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** A string as YAML that loads back as that same string: plain when it reads so, else quoted. */
export function quoteString(s: string): string {
  if (!needsQuotes(s)) return s;
  return NOT_LITERAL.test(s) ? doubleQuote(s) : singleQuote(s);
}

export function scalarText(v: Val): string {
  switch (v.t) {
    case 'null':
      return 'null';
    case 'missing':
      return "'???'";
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'int':
      return v.digits ?? String(v.v);
    case 'float':
      return Number.isNaN(v.v) ? '.nan' : v.v === Infinity ? '.inf' : v.v === -Infinity ? '-.inf' : pyFloatRepr(v.v);
    case 'str':
      return quoteString(v.v);
    default:
      return '';
  }
}

/** A yaml-package node for a value (the Document was parsed with the failsafe schema, so a
 *  PLAIN scalar holding our text is written verbatim). */
export function toYNode(v: Val): YNode {
  if (v.t === 'map') {
    const m = new YAMLMap();
    for (const [k, x] of v.m) m.items.push(new Pair(new Scalar(k), toYNode(x)));
    return m;
  }
  if (v.t === 'list') {
    const s = new YAMLSeq();
    for (const x of v.a) s.items.push(toYNode(x));
    return s;
  }
  if (v.t === 'missing') {
    // Quoted: the loader (ours and OmegaConf's) reads '???' as missing either way.
    const s = new Scalar('???');
    s.type = 'QUOTE_SINGLE';
    return s;
  }
  if (v.t === 'str' && needsQuotes(v.v)) {
    const s = new Scalar(v.v);
    s.type = NOT_LITERAL.test(v.v) ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE';
    return s;
  }
  const s = new Scalar(scalarText(v));
  s.type = 'PLAIN';
  return s;
}

/** Block-style YAML of a whole tree (the resolved config). */
export function emitYaml(v: Val, indent = ''): string {
  if (v.t === 'map') {
    if (v.m.size === 0) return '{}\n';
    let out = '';
    for (const [k, x] of v.m) {
      const key = quoteString(k);
      if ((x.t === 'map' && x.m.size) || (x.t === 'list' && x.a.length))
        out += `${indent}${key}:\n${emitYaml(x, x.t === 'list' ? indent : `${indent}  `)}`;
      else out += `${indent}${key}: ${x.t === 'map' ? '{}' : x.t === 'list' ? '[]' : scalarText(x)}\n`;
    }
    return out;
  }
  if (v.t === 'list') {
    if (v.a.length === 0) return '[]\n';
    let out = '';
    for (const x of v.a) {
      if (x.t === 'map' && x.m.size) {
        const body = emitYaml(x, `${indent}  `);
        out += `${indent}- ${body.slice(indent.length + 2)}`;
      } else if (x.t === 'list' && x.a.length) out += `${indent}-\n${emitYaml(x, `${indent}  `)}`;
      else out += `${indent}- ${x.t === 'map' ? '{}' : x.t === 'list' ? '[]' : scalarText(x)}\n`;
    }
    return out;
  }
  return `${scalarText(v)}\n`;
}
