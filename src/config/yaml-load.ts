// Load the trainer's YAML: typed like OmegaConf's loader, with the position of every key, and the
// parsed Document kept (comments included) so an edited file can be written back.
import { Document, isMap, isScalar, isSeq, isPair, LineCounter, parseDocument, type Node as YNode } from 'yaml';
import { resolvePlain, resolveTagged } from './yaml-scalars.js';
import type { Val } from './values.js';

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

export function loadYaml(text: string): LoadedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true, keepSourceTokens: true, lineCounter, prettyErrors: false });
  const problems: YamlProblem[] = [];
  const at = (offset: number) => lineCounter.linePos(offset);
  for (const e of doc.errors) {
    const p = at(e.pos[0]);
    const msg = e.code === 'DUPLICATE_KEY' ? 'duplicate key (the trainer refuses a key defined twice)' : e.message.split('\n')[0];
    problems.push({ message: msg, line: p.line, col: p.col });
  }
  if (problems.length) return { doc, lineCounter, root: null, problems };

  const convert = (node: unknown, keyPath: string[], keyOffset: number): Val => {
    const p = at(keyOffset);
    const origin = { kind: 'file' as const, line: p.line, col: p.col };
    if (node === null || node === undefined) return { t: 'null', origin };
    if (isMap(node)) {
      const m = new Map<string, Val>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key as YNode | null;
        let name: string;
        if (isScalar(k)) {
          const r = k.type === 'PLAIN' && !k.tag ? resolvePlain(String(k.value)) : { t: 'str' as const, v: String(k.value) };
          // OmegaConf turns non-string keys into their Python str() for us to compare; keep it simple.
          name = r.t === 'str' ? r.v : r.t === 'int' || r.t === 'float' || r.t === 'bool' ? String(r.v) : r.t === 'null' ? 'None' : String(k.value);
        } else {
          const kp = at(k?.range?.[0] ?? keyOffset);
          problems.push({ message: 'a mapping key must be a scalar', line: kp.line, col: kp.col });
          continue;
        }
        const ko = k.range?.[0] ?? keyOffset;
        m.set(name, convert(pair.value, [...keyPath, name], ko));
      }
      return { t: 'map', m, origin };
    }
    if (isSeq(node)) {
      return {
        t: 'list',
        a: node.items.map((item, i) => convert(item, [...keyPath, String(i)], (item as YNode | null)?.range?.[0] ?? keyOffset)),
        origin,
      };
    }
    if (isScalar(node)) {
      const text = String(node.value);
      const tag = node.tag;
      const r = tag && tag !== '!' ? resolveTagged(tag, text) : node.type === 'PLAIN' && !tag ? resolvePlain(text) : text === '???' ? { t: 'missing' as const } : { t: 'str' as const, v: text };
      if (r.t === 'error') {
        const vp = at(node.range?.[0] ?? keyOffset);
        problems.push({ message: r.message, line: vp.line, col: vp.col, key: keyPath.join('.') });
        return { t: 'null', origin };
      }
      return { ...r, origin } as Val;
    }
    const vp = at(keyOffset);
    problems.push({ message: 'aliases and anchors are not supported here', line: vp.line, col: vp.col, key: keyPath.join('.') });
    return { t: 'null', origin };
  };

  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && (contents.value === '' || contents.value === null))) {
    return { doc, lineCounter, root: { t: 'map', m: new Map() }, problems };
  }
  if (!isMap(contents)) {
    const p = at(contents.range?.[0] ?? 0);
    problems.push({ message: 'the config must be a mapping of keys to values', line: p.line, col: p.col });
    return { doc, lineCounter, root: null, problems };
  }
  const root = convert(contents, [], contents.range?.[0] ?? 0) as Extract<Val, { t: 'map' }>;
  root.origin = undefined;
  return { doc, lineCounter, root: problems.length ? null : root, problems };
}
