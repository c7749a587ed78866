// Load the trainer's YAML: typed like OmegaConf's loader, with the position of every key, and the
// parsed Document kept (comments included) so an edited file can be written back.
import {
  Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  isPair,
  LineCounter,
  parseDocument,
  visit,
  type Node as YNode,
} from 'yaml';
import { resolvePlain, resolveTagged } from './yaml-scalars.js';
import { pyyamlErrorMessage } from './pyyaml-message.js';
import { pyyamlFirstError } from './pyyaml-parser.js';
import { firstProblem, pyyamlRewrite } from './yaml-syntax.js';
import { COPIES, inputTooBig, MAX_CONFIG_VALUES, TOO_BIG } from './yaml-limits.js';
import { pyFloatRepr, type Origin, type Val } from './values.js';

export interface YamlProblem {
  message: string;
  line: number;
  col: number;
  key?: string;
}

export interface LoadedYaml {
  doc: Document;
  lineCounter: LineCounter;
  /** null when the file cannot be read as a mapping (syntax error, wrong top-level type). */
  root: Extract<Val, { t: 'map' }> | null;
  problems: YamlProblem[];
}

export { MAX_CONFIG_CHARS, MAX_CONFIG_VALUES } from './yaml-limits.js';

export function loadYaml(text: string, nested = false): LoadedYaml {
  const tooBig = inputTooBig(text);
  if (tooBig) {
    const lineCounter = new LineCounter();
    lineCounter.addNewLine(0);
    return { doc: new Document(null), lineCounter, root: null, problems: [tooBig] };
  }
  const source = text; // `text` is also each scalar's text below
  // Duplicate keys are found here, not by the yaml package: its check compares each key with
  // every earlier one (quadratic: 30,000 keys took seconds), ours is one pass with a Map.
  const parse = (src: string) =>
    parseDocument(src, { schema: 'failsafe', uniqueKeys: false, keepSourceTokens: true, prettyErrors: false });
  // PyYAML's own scanner, parser and composer (ported) decide whether the file reads and where the
  // first error is: the yaml package (YAML 1.2) refuses and accepts other files, and stops elsewhere.
  const pyError = pyyamlFirstError(text);
  let src = text;
  let doc = parse(src);
  // PyYAML reads a flow collection or a quoted string continued on lines indented less than YAML
  // 1.2 asks; the yaml package stops there. Rewrite each on one line (same length: every offset,
  // line and column stays the file's) and parse again.
  for (let n = 0; n < 100 && !pyError && doc.errors.length; n++) {
    const rw = pyyamlRewrite(doc, src);
    if (!rw) break;
    src = src.slice(0, rw.start) + rw.replacement + src.slice(rw.end);
    doc = parse(src);
  }
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineCounter.addNewLine(i + 1);
  const problems: YamlProblem[] = [];
  // PyYAML does not count a leading BOM as a column (its reader skips it).
  const bom = text.startsWith('\ufeff');
  const at = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return bom && p.line === 1 && offset > 0 ? { line: 1, col: p.col - 1 } : p;
  };
  // Like PyYAML, report the first syntax error only: the next ones are mostly its consequences.
  let syntax: { offset: number; message: string } | null = null;
  if (pyError) syntax = { offset: pyError.offset, message: pyyamlErrorMessage(pyError, doc, src, at) };
  // PyYAML reads it, the yaml package cannot (it gives the values): still refused, said as well as we can.
  else if (doc.errors[0]) syntax = firstProblem(doc, src, at);
  // PyYAML's reader refuses control characters (its error gives a character index, not a line).
  const np = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.exec(text);
  if (np && (!syntax || np.index < syntax.offset))
    syntax = {
      offset: np.index,
      message: `unacceptable character #x${np[0].codePointAt(0)!.toString(16).padStart(4, '0')}: special characters are not allowed (position ${[...text.slice(0, np.index)].length}); delete it`,
    };
  if (syntax) {
    // PyYAML stops at its first error: a duplicate key (found when it builds the values) is said
    // once the file reads.
    const p = at(syntax.offset);
    problems.push({ message: syntax.message, line: p.line, col: p.col });
    return { doc, lineCounter, root: null, problems };
  }
  for (const [offset, d] of duplicateKeys(doc)) {
    const p = at(offset);
    problems.push({
      message: `duplicate key '${d.name}' (first defined at line ${at(d.first).line}); the trainer refuses a key defined twice: remove one`,
      line: p.line,
      col: p.col,
      key: d.key,
    });
  }
  // PyYAML's composer refuses a second anchor of the same name; the yaml package lets the later win.
  const anchors = new Map<string, number>();
  visit(doc, (_, node) => {
    const n = node as YNode | null;
    if (!n || typeof n !== 'object' || !('anchor' in n) || !n.anchor || !n.range) return;
    // PyYAML marks an anchored node at its '&' (the yaml package's range starts at the value).
    const amp = anchorOffset(text, n.anchor, n.range[0]);
    const firstAt = anchors.get(n.anchor);
    if (firstAt === undefined) anchors.set(n.anchor, amp);
    else {
      const p = at(amp);
      problems.push({
        message: `found duplicate anchor '${n.anchor}' (first occurrence at line ${at(firstAt).line}); rename one`,
        line: p.line,
        col: p.col,
      });
    }
  });
  problems.sort((a, b) => a.line - b.line || a.col - b.col);
  if (problems.length) return { doc, lineCounter, root: null, problems };

  let values = 0; // after alias expansion: the bound on work and memory
  let tooMany = false;
  const convert = (node0: unknown, keyPath: string[], keyOffset: number, depth = 0): Val => {
    if (tooMany) return { t: 'null' };
    if (++values > MAX_CONFIG_VALUES) {
      tooMany = true;
      const ap = at(keyOffset);
      const what = `the file expands to more than ${MAX_CONFIG_VALUES.toLocaleString('en')} values (aliases included, at ${keyPath.join('.') || 'the top'})`;
      problems.push({ message: TOO_BIG(what, COPIES), line: ap.line, col: ap.col });
      return { t: 'null' };
    }
    const p = at(keyOffset);
    const origin = { kind: 'file' as const, line: p.line, col: p.col };
    // PyYAML's SafeLoader resolves anchors/aliases; the value is the anchored node's. PyYAML
    // refuses an alias with no anchor before it, and anchor names beyond [A-Za-z0-9_-]; the yaml
    // package takes both (an undefined alias would silently become null).
    const badName = (
      n: { range?: unknown } | null | undefined,
      kind: 'an alias' | 'an anchor',
      name: string,
    ): boolean => {
      if (/^[A-Za-z0-9_-]+$/.test(name)) return false;
      // PyYAML stops at the first character that cannot be in a name, just after the '*' or '&'.
      const start = (n?.range as number[] | undefined)?.[0] ?? keyOffset;
      const sigil = kind === 'an alias' ? start : anchorOffset(text, name, start);
      const valid = /^[A-Za-z0-9_-]*/.exec(name)![0].length;
      const np = at(sigil + 1 + valid);
      problems.push({
        message: `while scanning ${kind}: expected alphabetic or numeric character, but found '${name[valid]}' ('${name}' is not a valid name: letters, digits, '_' and '-' only; quote the value if the ${kind === 'an alias' ? '*' : '&'} is text)`,
        line: np.line,
        col: np.col,
        key: keyPath.join('.'),
      });
      return true;
    };
    if (isAlias(node0) && badName(node0, 'an alias', node0.source)) return { t: 'null', origin };
    const node = isAlias(node0) ? node0.resolve(doc) : node0;
    if (isAlias(node0) && node === undefined) {
      const np = at(node0.range?.[0] ?? keyOffset);
      problems.push({
        message: `found undefined alias '${node0.source}': define the anchor (&${node0.source}) before using it`,
        line: np.line,
        col: np.col,
        key: keyPath.join('.'),
      });
      return { t: 'null', origin };
    }
    if (
      node &&
      !isAlias(node0) &&
      (node as YNode).anchor &&
      badName(node as YNode, 'an anchor', (node as YNode).anchor!)
    )
      return { t: 'null', origin };
    if (node === null || node === undefined) return { t: 'null', origin };
    if (depth > 200) {
      problems.push({ message: 'aliases nest too deeply (a recursive anchor?)', line: p.line, col: p.col });
      return { t: 'null', origin };
    }
    if (isMap(node)) {
      const m = new Map<string, Val>();
      // Merge keys (`<<: *base`, `<<: [*a, *b]`): entries of the merged maps come first and the
      // map's own keys win, as in PyYAML's flatten_mapping.
      const merged = new Map<string, Val>();
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key) || pair.key.value !== '<<' || pair.key.type !== 'PLAIN') continue;
        const srcs = isSeq(pair.value) ? pair.value.items : [pair.value];
        for (const src of [...srcs].reverse()) {
          const v = convert(src, keyPath, pair.key.range?.[0] ?? keyOffset, depth + 1);
          if (v.t !== 'map') {
            const kp = at(pair.key.range?.[0] ?? keyOffset);
            problems.push({
              message: 'a merge key (<<) needs a mapping or a list of mappings',
              line: kp.line,
              col: kp.col,
            });
            continue;
          }
          for (const [k, x] of v.m) merged.set(k, x);
        }
      }
      for (const [k, x] of merged) m.set(k, x);
      for (const pair of node.items) {
        if (isPair(pair) && isScalar(pair.key) && pair.key.value === '<<' && pair.key.type === 'PLAIN') continue;
        if (!isPair(pair)) continue;
        const k = pair.key as YNode | null;
        let name: string;
        if (isScalar(k)) {
          // The non-specific tag '!' makes PyYAML resolve even a quoted scalar as a plain one.
          const r =
            (k.type === 'PLAIN' && !k.tag) || k.tag === '!'
              ? resolvePlain(String(k.value))
              : { t: 'str' as const, v: String(k.value) };
          // Non-string keys by their Python str() (True, 1.5); OmegaConf refuses a None key.
          if (r.t === 'null') {
            const kp = at(k.range?.[0] ?? keyOffset);
            problems.push({
              message: "Incompatible key type 'NoneType': a key cannot be null (quote it: 'null': …)",
              line: kp.line,
              col: kp.col,
              key: keyPath.join('.'),
            });
            continue;
          }
          name =
            r.t === 'str'
              ? r.v
              : r.t === 'bool'
                ? r.v
                  ? 'True'
                  : 'False'
                : r.t === 'float'
                  ? pyFloatRepr(r.v)
                  : r.t === 'int'
                    ? (r.digits ?? String(r.v))
                    : String(k.value);
        } else {
          // PyYAML marks the key node's start: a block mapping's first key (the yaml package's
          // range of that mapping starts at its first ':').
          const first = isMap(k) && !k.flow ? (k.items[0]?.key as YNode | null)?.range?.[0] : undefined;
          const kp = at(Math.min(first ?? Infinity, k?.range?.[0] ?? keyOffset));
          problems.push({
            message:
              'found unhashable key: a mapping key must be a scalar (a list or mapping was written where a key goes)',
            line: kp.line,
            col: kp.col,
          });
          continue;
        }
        const ko = k.range?.[0] ?? keyOffset;
        m.delete(name); // an explicit key placed after merged ones keeps file order
        m.set(name, convert(pair.value, [...keyPath, name], ko, depth + 1));
      }
      return { t: 'map', m, origin };
    }
    if (isSeq(node)) {
      return {
        t: 'list',
        a: node.items.map((item, i) =>
          convert(item, [...keyPath, String(i)], (item as YNode | null)?.range?.[0] ?? keyOffset, depth + 1),
        ),
        origin,
      };
    }
    if (isScalar(node)) {
      const tag = node.tag;
      let text = String(node.value);
      // A block scalar whose last line ends the file without a line break: PyYAML adds no final
      // newline (there is no break to keep); the yaml package adds one.
      if (
        (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') &&
        text.endsWith('\n') &&
        (node.range?.[1] ?? 0) >= source.length &&
        /[^\s]$/.test(source.replace(/[ \t]+$/, '')) &&
        !/[\r\n\x85\u2028\u2029][ \t]*$/.test(source)
      )
        text = text.slice(0, -1);
      const r =
        tag && tag !== '!'
          ? resolveTagged(tag, text)
          : (node.type === 'PLAIN' && !tag) || tag === '!'
            ? resolvePlain(text)
            : text === '???'
              ? { t: 'missing' as const }
              : { t: 'str' as const, v: text };
      if (r.t === 'error') {
        // PyYAML places a tag's error at the tag (`!custom`), the yaml package's range at the value.
        const vp = at(
          tag && tag !== '!' ? tagOffset(source, node.range?.[0] ?? keyOffset) : (node.range?.[0] ?? keyOffset),
        );
        problems.push({ message: r.message, line: vp.line, col: vp.col, key: keyPath.join('.') });
        return { t: 'null', origin };
      }
      return { ...r, origin } as Val;
    }
    const vp = at(keyOffset);
    problems.push({ message: 'unsupported YAML node', line: vp.line, col: vp.col, key: keyPath.join('.') });
    return { t: 'null', origin };
  };

  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && (contents.value === '' || contents.value === null))) {
    return { doc, lineCounter, root: { t: 'map', m: new Map() }, problems };
  }
  if (!isMap(contents)) {
    const p = at(contents.range?.[0] ?? 0);
    const v = isScalar(contents) ? convert(contents, [], contents.range?.[0] ?? 0) : null;
    // OmegaConf.load → OmegaConf.create(str) reads a string as YAML once more; a string again is
    // {string: None}, so the trainer says `Key 'hello' not in 'WebGymConfig'` (the merge says it here).
    if (v?.t === 'str' && !problems.length) {
      const origin = { kind: 'file' as const, line: p.line, col: p.col };
      const inner = nested ? null : loadYaml(v.v, true);
      const root: Extract<Val, { t: 'map' }> =
        inner?.root && isMap(inner.doc.contents)
          ? relocated(inner.root, origin)
          : { t: 'map', m: new Map([[v.v, { t: 'null', origin }]]) };
      return { doc, lineCounter, root, problems: [] };
    }
    const what =
      v && v.t !== 'str'
        ? `a single ${v.t === 'bool' ? 'bool' : v.t === 'float' ? 'float' : v.t === 'int' ? 'int' : 'value'}`
        : isSeq(contents)
          ? 'a list'
          : 'not a mapping';
    const trainer = v ? `Invalid loaded object type: ${v.t}` : 'must be a Dictionary, got ListConfig';
    problems.push({
      message: `the config must be a mapping of keys to values; this file is ${what} (the trainer stops with "${trainer}")`,
      line: p.line,
      col: p.col,
    });
    return { doc, lineCounter, root: null, problems };
  }
  const root = convert(contents, [], contents.range?.[0] ?? 0) as Extract<Val, { t: 'map' }>;
  root.origin = undefined;
  return { doc, lineCounter, root: problems.length ? null : root, problems };
}

/** A tree read from a string inside the file: every value placed where that string is. */
function relocated<T extends Val>(v: T, origin: Origin): T {
  if (v.t === 'map') for (const [k, x] of v.m) v.m.set(k, relocated(x, origin));
  if (v.t === 'list') v.a.forEach((x, i) => (v.a[i] = relocated(x, origin)));
  v.origin = origin;
  return v;
}

/** Where the tag of the value at `value` starts: the `!…` word before it on its line. */
function tagOffset(text: string, value: number): number {
  let j = value - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  const end = j + 1;
  while (j >= 0 && !/\s/.test(text[j])) j--;
  return text[j + 1] === '!' && j + 1 < end ? j + 1 : value;
}

/** The `&name` before `before` (the anchored node's start). */
function anchorOffset(text: string, name: string, before: number): number {
  for (let i = text.lastIndexOf(`&${name}`, before); i >= 0; i = text.lastIndexOf(`&${name}`, i - 1)) {
    if (!/[A-Za-z0-9_-]/.test(text[i + name.length + 1] ?? '')) return i;
  }
  return before;
}

/** Each repeated key of every mapping, by the offset of the repetition: its name and the offset of
 *  the first definition (to name both in the message). */
function duplicateKeys(doc: Document): Map<number, { name: string; first: number; key: string }> {
  const out = new Map<number, { name: string; first: number; key: string }>();
  visit(doc, {
    Map(_, node, path) {
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const name = String(pair.key.value);
        // OmegaConf's loader checks only keys tagged str: `true:` or `1:` twice is allowed (last wins).
        if (((pair.key.type === 'PLAIN' && !pair.key.tag) || pair.key.tag === '!') && resolvePlain(name).t !== 'str')
          continue;
        // Merge keys (`<<`) may repeat, as in PyYAML (OmegaConf checks only string keys).
        if (name === '<<' && pair.key.type === 'PLAIN') continue;
        const first = seen.get(name);
        if (first === undefined) seen.set(name, pair.key.range[0]);
        else out.set(pair.key.range[0], { name, first, key: [...dottedPath(path, node), name].join('.') });
      }
    },
  });
  return out;
}

/** The dotted key of a node from its ancestors (keys of pairs, indexes in sequences). */
function dottedPath(path: readonly unknown[], node: unknown): string[] {
  const out: string[] = [];
  const chain = [...path, node];
  chain.forEach((n, i) => {
    if (isPair(n) && isScalar(n.key)) out.push(String(n.key.value));
    else if (isSeq(n)) out.push(String(n.items.indexOf(chain[i + 1] as never)));
  });
  return out;
}
