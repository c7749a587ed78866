// Single-character typos made at random (seeded) anywhere in a YAML file: a character inserted,
// replaced or deleted. The inserted characters are the ones YAML reads as syntax (`|`, `>`, `%`,
// `?`, `-`, `:`, `#`, quotes, brackets, a tab, a line break…) plus a letter, a digit and a space.
// Each text is asked of real PyYAML (the trainer's loader) and compared with the cockpit's verdict.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '../../src/config/yaml-load.js';
import type { Val } from '../../src/config/values.js';
import { pyFloatRepr } from '../../src/config/values.js';
import { PYTHON } from '../harness/omegaconf.js';

const TYPO_CHARS = [
  '|',
  '>',
  '%',
  '?',
  '-',
  ':',
  '#',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  '&',
  '*',
  '!',
  '@',
  '`',
  '\\',
  '\t',
  '\n',
  ' ',
  'a',
  '1',
  '.',
  '=',
];

/** Other shapes a trainer config takes: block lists, flow collections, block scalars, quotes, anchors. */
export const SHAPES: Record<string, string> = {
  lists: [
    'actor:',
    '  path: /models/qwen3',
    '  layers:',
    '    - Qwen3VLTextDecoderLayer',
    '    - Qwen3VLVisionBlock',
    '  wrap: [a, b, c]',
    'gconfig:',
    '  n_samples: 8',
    '  stop: ["</s>", "<|im_end|>"]',
    '  sampling: {temperature: 1.0, top_p: 0.95}',
    'envs:',
    '- name: web',
    '  port: 8443',
    '- name: shop',
    '  port: 8444',
    '',
  ].join('\n'),
  scalars: [
    '# header comment',
    'prompt: |',
    '  You are an agent.',
    '  Answer briefly.',
    'folded: >-',
    '  one line',
    '  continued',
    "quoted: 'it''s here'",
    'dq: "tab\\there: ok"',
    'base: &base',
    '  lr: 5e-6',
    '  eps: 1.0e-8',
    'copy: *base',
    'empty:',
    'n: null',
    'flag: yes',
    'ref: ${base.lr}',
    '',
  ].join('\n'),
};

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export interface Typo {
  text: string;
  what: string;
}

/** `n` seeded single-character typos of `text`; with `codeOnly`, none inside a comment-only line
 *  (most of the reference config is comments, where a typo rarely matters). */
export function typos(text: string, seed: number, n: number, codeOnly = false): Typo[] {
  const rnd = rng(seed);
  const out: Typo[] = [];
  const inComment = (pos: number) => /^\s*#/.test(text.slice(text.lastIndexOf('\n', pos - 1) + 1, pos + 1));
  for (let k = 0; k < n; k++) {
    let pos = Math.floor(rnd() * text.length);
    while (codeOnly && inComment(pos)) pos = Math.floor(rnd() * text.length);
    const op = Math.floor(rnd() * 3);
    const ch = TYPO_CHARS[Math.floor(rnd() * TYPO_CHARS.length)];
    const line = text.slice(0, pos).split('\n').length;
    const col = pos - text.lastIndexOf('\n', pos - 1);
    if (op === 0)
      out.push({
        text: text.slice(0, pos) + ch + text.slice(pos),
        what: `insert ${JSON.stringify(ch)} at ${line}:${col}`,
      });
    else if (op === 1)
      out.push({
        text: text.slice(0, pos) + ch + text.slice(pos + 1),
        what: `replace ${JSON.stringify(text[pos])} by ${JSON.stringify(ch)} at ${line}:${col}`,
      });
    else
      out.push({
        text: text.slice(0, pos) + text.slice(pos + 1),
        what: `delete ${JSON.stringify(text[pos])} at ${line}:${col}`,
      });
  }
  return out;
}

type PyTyped = { t: 'map'; m: [string, PyTyped][] } | { t: 'list'; a: PyTyped[] } | { t: string; v?: unknown };
type PyAnswer =
  | { value: PyTyped }
  | { problem: string; context: string | null; line: number; col: number }
  | { other: string; message: string };

const SCRIPT = fileURLToPath(new URL('./pyyaml_values.py', import.meta.url));
export function askPyYaml(texts: string[]): PyAnswer[] {
  const r = spawnSync(PYTHON, [SCRIPT], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 1 << 29 });
  if (r.status !== 0) throw new Error(`pyyaml_values.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PyAnswer[];
}

/** Our tree in the Python script's form. */
function typedOf(v: Val): PyTyped {
  switch (v.t) {
    case 'map':
      return { t: 'map', m: [...v.m].map(([k, x]) => [k, typedOf(x)]) };
    case 'list':
      return { t: 'list', a: v.a.map(typedOf) };
    case 'int':
      return { t: 'int', v: v.digits ?? String(v.v) };
    case 'float':
      return { t: 'float', v: pyFloatRepr(v.v) };
    case 'missing':
      return { t: 'str', v: '???' };
    case 'null':
      return { t: 'null' };
    default:
      return { t: v.t, v: v.v };
  }
}

export type Mismatch =
  'we accept, PyYAML refuses' | 'we refuse, PyYAML accepts' | 'other line' | 'other column' | 'other value';

/** Compare one typo's verdict: null when the cockpit agrees with PyYAML. */
export function compare(text: string, py: PyAnswer): { kind: Mismatch; ours: string; theirs: string } | null {
  const loaded = loadYaml(text);
  const first = loaded.problems[0];
  const mapping = /must be a mapping/.test(first?.message ?? '');
  // The trainer refuses it without a YAML position (OmegaConf.create refuses a None key, say): any
  // refusal of ours agrees; a later stage may refuse it too, so accepting here is not counted.
  if ('other' in py) return null;
  if ('value' in py && py.value.t !== 'map') {
    // PyYAML loads it, but not as a mapping: the trainer refuses it, and so may we, as long as we
    // do not place a syntax error in it.
    if (!first || mapping) return null;
    return {
      kind: 'we refuse, PyYAML accepts',
      ours: `${first.line}:${first.col} ${first.message}`,
      theirs: `a ${py.value.t}`,
    };
  }
  if ('value' in py) {
    if (first)
      return {
        kind: 'we refuse, PyYAML accepts',
        ours: `${first.line}:${first.col} ${first.message}`,
        theirs: 'loads',
      };
    const ours = JSON.stringify(typedOf(loaded.root!));
    const theirs = JSON.stringify(py.value);
    return ours === theirs ? null : { kind: 'other value', ours, theirs };
  }
  const theirs = `${py.line}:${py.col} ${py.context ?? ''}: ${py.problem}`;
  if (!first) return { kind: 'we accept, PyYAML refuses', ours: 'loads', theirs };
  const ours = `${first.line}:${first.col} ${first.message}`;
  if (first.line !== py.line) return { kind: 'other line', ours, theirs };
  if (first.col !== py.col) return { kind: 'other column', ours, theirs };
  return null;
}
