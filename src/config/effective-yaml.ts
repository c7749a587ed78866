// The effective YAML: the user's file with the overrides written in, each changed value marked
// `# override N`, and secret values replaced by <redacted>. What a user reads (`config show`) must
// be their file: every line an override does not touch stays byte for byte (blank lines, comments,
// spacing, quoting), so the common case (overrides of existing scalars) splices new value text
// into the original source. Overrides that change the file's shape (add, delete, a list or map in
// place of a scalar) go through the parsed Document, which re-prints the file. Either result is
// read back and must load to the effective tree; if it does not, the tree itself is printed
// (comments lost, values right).
import { isAlias, isMap, isScalar, isSeq, type Document, type Node as YNode } from 'yaml';
import type { ParsedOverride } from './overrides-grammar.js';
import { REDACTED } from './secret-keys.js';
import { toTyped, type Val } from './values.js';
import { emitYaml, scalarText, toYNode } from './yaml-emit.js';
import { loadYaml } from './yaml-load.js';

export interface AppliedOverride {
  override: ParsedOverride;
  index: number; // 1-based, as in `# override N`
}

export interface EffectiveInput {
  text: string;
  /** The file's Document as parsed, never edited (cloned here when needed). */
  doc: Document;
  overrides: readonly AppliedOverride[];
  /** The effective tree (file + overrides) with secrets already redacted: what the output must load to. */
  expected: Extract<Val, { t: 'map' }>;
  /** Paths of secret values (redacted in the output). */
  secretPaths: readonly string[][];
}

interface Edit {
  path: string[];
  overrideIndex?: number;
}

type Located = { node: YNode; inFlow: boolean } | null;

/** The node at a path, walking maps by key text and sequences by index; null through an alias or a
 *  merged (`<<`) key, where an in-place edit would not mean what the override means. */
function locate(doc: Document, path: readonly string[]): Located {
  let n: unknown = doc.contents;
  let inFlow = false;
  for (const seg of path) {
    if (isMap(n)) {
      inFlow ||= !!n.flow;
      const pair = n.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) return null;
      n = pair.value;
    } else if (isSeq(n) && /^\d+$/.test(seg)) {
      inFlow ||= !!n.flow;
      n = n.items[Number(seg)];
    } else return null;
  }
  if (isAlias(n) || !n) return null;
  return { node: n as YNode, inFlow };
}

function valAt(root: Val, path: readonly string[]): Val | undefined {
  let n: Val | undefined = root;
  for (const seg of path) {
    if (n?.t === 'map') n = n.m.get(seg);
    else if (n?.t === 'list' && /^\d+$/.test(seg)) n = n.a[Number(seg)];
    else return undefined;
  }
  return n;
}

/** The leaf paths an override writes when it only replaces existing scalars; null when it changes shape. */
function scalarPaths(
  doc: Document,
  path: string[],
  value: Val | undefined,
  kind: ParsedOverride['kind'],
): string[][] | null {
  if (kind === 'delete' || !value) return null;
  const at = locate(doc, path);
  if (!at) return null;
  if (value.t === 'map' && isMap(at.node)) {
    const out: string[][] = [];
    for (const [k, x] of value.m) {
      const sub = scalarPaths(doc, [...path, k], x, kind);
      if (!sub) return null;
      out.push(...sub);
    }
    return out;
  }
  if (value.t === 'map' || value.t === 'list' || !isScalar(at.node)) return null;
  return [path];
}

/** Value text that reads back as `v` where it stands (inside `{…}`/`[…]` a plain string could hold a `,`). */
function valueText(v: Val, inFlow: boolean): string {
  if (v.t === 'str' && inFlow && !v.v.includes('\n')) return `'${v.v.replace(/'/g, "''")}'`;
  return scalarText(v);
}

/** Splice new value texts into the source; null if some edit cannot be made in place. */
function splice(input: EffectiveInput, edits: Map<string, Edit>): string | null {
  const { text, doc, expected } = input;
  const cuts: { start: number; end: number; text: string }[] = [];
  for (const e of edits.values()) {
    const at = locate(doc, e.path);
    const v = valAt(expected, e.path);
    if (!at || !isScalar(at.node) || !at.node.range || !v || v.t === 'map' || v.t === 'list') return null;
    const [start, end] = at.node.range;
    const comment = e.overrideIndex !== undefined && !at.inFlow ? ` # override ${e.overrideIndex}` : '';
    // `key:` with no value: the node is empty, right after the colon.
    const lead = start === end && start > 0 && !/\s/.test(text[start - 1]) ? ' ' : '';
    const newText = lead + valueText(v, at.inFlow);
    const block = at.node.type === 'BLOCK_LITERAL' || at.node.type === 'BLOCK_FOLDED';
    if (block) {
      // A block scalar's source runs to the end of its last line, newline included.
      const src = text.slice(start, end);
      const eol = src.endsWith('\r\n') ? '\r\n' : src.endsWith('\n') ? '\n' : '';
      cuts.push({ start, end, text: `${newText}${comment}${eol}` });
      continue;
    }
    if (at.inFlow) {
      cuts.push({ start, end, text: newText });
      continue;
    }
    // The rest of the value's last line is blank or a comment: keep a comment, mark the override.
    let lineEnd = text.indexOf('\n', end);
    if (lineEnd < 0) lineEnd = text.length;
    if (text[lineEnd - 1] === '\r') lineEnd--;
    const rest = text.slice(end, lineEnd);
    const tail = !comment ? rest : rest.includes('#') ? `${rest.trimEnd()}${comment}` : comment;
    cuts.push({ start, end: Math.max(end, lineEnd), text: newText + tail });
  }
  cuts.sort((a, b) => b.start - a.start);
  let out = text;
  let limit = Infinity;
  for (const c of cuts) {
    if (c.end > limit) return null; // overlapping edits (cannot happen for distinct scalars)
    out = out.slice(0, c.start) + c.text + out.slice(c.end);
    limit = c.start;
  }
  return out;
}

/** Replace the node at `path` keeping what the file said around it (blank line, comments). */
function setKeeping(
  doc: Document,
  path: (string | number)[],
  node: YNode & { comment?: string | null; commentBefore?: string | null; spaceBefore?: boolean },
  mark?: string,
): void {
  const old = doc.getIn(path, true) as
    (YNode & { comment?: string | null; commentBefore?: string | null; spaceBefore?: boolean }) | undefined;
  if (old && typeof old === 'object') {
    if (old.spaceBefore) node.spaceBefore = true;
    if (old.commentBefore) node.commentBefore = old.commentBefore;
    if (old.comment && !mark) node.comment = old.comment;
    else if (old.comment && mark) node.comment = `${old.comment} #${mark}`;
    else if (mark) node.comment = mark;
  } else if (mark) node.comment = mark;
  doc.setIn(path, node);
}

const docPath = (path: readonly string[]) => path.map((s) => (/^\d+$/.test(s) ? Number(s) : s));

type Commented = { commentBefore?: string | null; spaceBefore?: boolean; comment?: string | null };

/** The comment (and blank line) above a deleted key is the file's, not the key's: it moves to the
 *  next key of the same mapping, or after the mapping's last one. */
function keepCommentsOfDeleted(doc: Document, path: (string | number)[]): void {
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  if (!isMap(parent)) return;
  const last = String(path[path.length - 1]);
  const i = parent.items.findIndex((p) => isScalar(p.key) && String(p.key.value) === last);
  const key = parent.items[i]?.key as Commented | undefined;
  if (!key || (!key.commentBefore && !key.spaceBefore)) return;
  const next = parent.items[i + 1]?.key as Commented | undefined;
  if (next && typeof next === 'object') {
    if (!key.commentBefore) {
      next.spaceBefore = true;
      return;
    }
    // blank? · deleted key's comment · blank? · next key's comment · next key: a blank line inside
    // a comment is an empty line of it (a trailing one prints before the key).
    const lines = [key.commentBefore];
    if (next.spaceBefore) lines.push('');
    if (next.commentBefore) lines.push(next.commentBefore);
    next.commentBefore = lines.join('\n');
    next.spaceBefore = !!key.spaceBefore;
  } else if (key.commentBefore) {
    const p = parent as Commented;
    p.comment = [p.comment, key.commentBefore].filter((c) => c).join('\n');
  }
}

/** Mirror an applied override in the comment-keeping Document. */
function editDocument(doc: Document, o: ParsedOverride, index: number): void {
  const path = docPath(o.path);
  if (o.kind === 'delete') {
    keepCommentsOfDeleted(doc, path);
    doc.deleteIn(path);
    return;
  }
  const v = o.value!;
  const cur = doc.getIn(path, true);
  if (v.t === 'map' && isMap(cur)) {
    for (const [k, x] of v.m) editDocument(doc, { ...o, path: [...o.path, k], value: x }, index);
    return;
  }
  setKeeping(doc, path, toYNode(v.t === 'str' && v.v === '???' ? { t: 'missing' } : v), ` override ${index}`);
}

function viaDocument(input: EffectiveInput): string | null {
  try {
    const doc = input.doc.clone();
    if (!isMap(doc.contents)) return null;
    for (const a of input.overrides) editDocument(doc, a.override, a.index);
    for (const p of input.secretPaths) {
      const s = toYNode({ t: 'str', v: REDACTED });
      setKeeping(doc, docPath(p), s);
    }
    return doc.toString({ lineWidth: 0 });
  } catch {
    return null;
  }
}

function loadsTo(text: string, expected: Val): boolean {
  const back = loadYaml(text);
  return !!back.root && JSON.stringify(toTyped(back.root)) === JSON.stringify(toTyped(expected));
}

export function renderEffectiveYaml(input: EffectiveInput): string {
  const edits = new Map<string, Edit>();
  let inPlace = true;
  for (const a of input.overrides) {
    const paths = scalarPaths(input.doc, a.override.path, a.override.value, a.override.kind);
    if (!paths) {
      inPlace = false;
      break;
    }
    for (const p of paths) edits.set(JSON.stringify(p), { path: p, overrideIndex: a.index });
  }
  if (inPlace) {
    for (const p of input.secretPaths) {
      const k = JSON.stringify(p);
      if (!edits.has(k)) edits.set(k, { path: p });
    }
    const spliced = edits.size === 0 ? input.text : splice(input, edits);
    if (spliced !== null && loadsTo(spliced, input.expected)) return spliced;
  }
  const viaDoc = viaDocument(input);
  if (viaDoc !== null && loadsTo(viaDoc, input.expected)) return viaDoc;
  return emitYaml(input.expected);
}
