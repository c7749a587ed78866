// An unclosed quote or bracket is reported where PyYAML (the trainer's loader) reports it: its
// problem_mark, the place its scanner or parser stopped, not where the yaml package gave up. The
// opening stays in the message as context. Every case is asked of real PyYAML.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { toTyped } from '../../src/config/index.js';
import { loadYaml } from '../../src/config/yaml-load.js';
import { omegaconfAvailable, PYTHON, runOmegaConf } from '../harness/omegaconf.js';
import { evaluate, mutate, REFERENCE } from './helpers.js';

interface PyAnswer {
  ok?: true;
  problem?: string;
  context?: string;
  line?: number;
  col?: number;
  cline?: number | null;
  ccol?: number | null;
}

const SCRIPT = fileURLToPath(new URL('./pyyaml_marks.py', import.meta.url));
function pyyaml(texts: string[]): PyAnswer[] {
  const r = spawnSync(PYTHON, [SCRIPT], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`pyyaml_marks.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PyAnswer[];
}

const QUOTES: [string, string][] = [
  ['double quote, file ends after more lines', 'a: "abc\nb: 1\n'],
  ['single quote, file ends after more lines', "a: 'abc\nb: 1\n"],
  ['double quote, no newline at the end', 'a: "abc'],
  ['single quote, no newline at the end', "a: 'abc"],
  ['blank lines and a comment before the end', "x: 1\na: 'abc\n\n# c\nb: 2\n"],
  ['an escaped quote does not close', 'a: "abc\\"\nb: 1\n'],
  ["'' does not close a single quote", "a: 'it''s\nb: 1\n"],
  ['a document separator stops it', 'a: "abc\n---\nb: 1\n'],
  ["closed by the next value's quote", 'a: "abc\nb: "def"\nc: 3\n'],
  ["single, closed by the next value's quote", "a: 'abc\nb: 'def'\nc: 3\n"],
  [
    'nested, closed by a later quote',
    'webgym:\n  host_ip: "127.0.0.1\n  master_port: 8443\n  model_type: "qwen3-instruct"\n',
  ],
  ['CRLF line ends', 'a: "abc\r\nb: 1\r\n'],
  ['inside a flow sequence', 'a: ["x, 1]\n'],
  ['second item of a flow sequence', 'a: ["x", "y]\n'],
  ['a bad escape', 'a: "ab\\qc"\n'],
  ['in the reference config: host_ip', mutate('host_ip: "127.0.0.1"', 'host_ip: "127.0.0.1')],
  [
    'in the reference config: the last quote of the file',
    mutate(
      'base_url: "https://generativelanguage.googleapis.com/v1beta/openai/"',
      'base_url: "https://generativelanguage.googleapis.com/v1beta/openai/',
    ),
  ],
  [
    'in the reference config: env var value',
    mutate('SGLANG_VLM_CACHE_SIZE_MB: "8192"', "SGLANG_VLM_CACHE_SIZE_MB: '8192"),
  ],
];

const BRACKETS: [string, string][] = [
  ['[ then a key on the next line', 'a: [1, 2\nb: 3\n'],
  ['{ then a key on the next line', 'a: {x: 1\nb: 3\n'],
  ['[ at the end of the file', 'a: [1, 2'],
  ['{ at the end of the file', 'a: {x: 1'],
  ['nested [ inside a mapping', 'a:\n  b: [1,\n     2\n  c: 3\n'],
  ['[ then a flow map then the end', 'a: [1, {x: 2}\n'],
  ['[ closed by a }', 'a: {x: [1, 2}\n'],
  ['[ then a comment then more', 'a: [1 #c\n, 2\n'],
  ['[ then ] on a later line', 'a: [1, 2\nb: 3]\n'],
  ['[ then a document separator', 'a: [x\n---\n'],
  ['an empty entry', 'a: [1, , 2]\n'],
  ['a pair then the end', 'a: [a: 1, b\n'],
  ['a tab after a comma', 'a: [1,\t2]\n'],
  [
    'in the reference config: wrap list',
    mutate('allocation_mode: sglang[rollout]:d48+fsdp[actor]:d16', 'allocation_mode: [sglang, fsdp'),
  ],
  [
    'in the reference config: inline map',
    mutate(
      '  reward_norm:\n    mean_level: group\n    std_level: group\n    group_size: ${gconfig.n_samples}',
      '  reward_norm: {mean_level: group, std_level: group, group_size: ${gconfig.n_samples}',
    ),
  ],
  [
    'in the reference config: a list missing its comma',
    mutate(
      '      transformer_layer_cls_to_wrap:\n        - Qwen3VLTextDecoderLayer\n        - Qwen3VLVisionBlock\n  mb_spec',
      '      transformer_layer_cls_to_wrap: [Qwen3VLTextDecoderLayer Qwen3VLVisionBlock\n  mb_spec',
    ),
  ],
];

// Other lines a user breaks: a key without ': ', a ': ' inside a value, a '*' or '!' starting a value.
const LINES: [string, string][] = [
  ['a key with no colon, then a key', 'a: 1\nseed 1\nb: 2\n'],
  ['a key glued to its value', 'a: 1\nseed:1\nb: 2\n'],
  ['a key with no colon, blank and comment lines after', 'a: 1\nseed 1\n\n# c\n  \nb: 2\n'],
  ['a key with no colon at the end of the file', 'a: 1\nseed 1\n'],
  ['a nested key with no colon', 'c:\n  x: 1\n  seed 1\n  y: 2\n'],
  ['a key with no colon, a deeper line after', 'a: 1\nseed 1\n  more\nb: 2\n'],
  ["': ' inside a value", 'cmd: python3 -m x: y\n'],
  ["': ' inside a nested value", 'a:\n  b: c: d\n'],
  ["': ' after a quoted value", 'a: "x": y\n'],
  ['a glob that reads as an alias', 'path: *.jsonl\n'],
  ['an unknown tag', 'a: !custom 1\n'],
  ['a key less indented than its siblings, after a blank line', 'c:\n  x: 1\n \n y: 2\n'],
  [
    'in the reference config: a line split before a key',
    mutate('  gpu_memory_utilization: 0.9', ' \n gpu_memory_utilization: 0.9'),
  ],
  ['a short \\u escape', 'a: "\\u00"\n'],
  [
    'in the reference config: trial_name without colon',
    mutate('trial_name: intuition-model', 'trial_name intuition-model'),
  ],
  [
    'in the reference config: cmd with ": "',
    mutate(
      '      cmd: python3 -m areal.infra.rpc.rpc_server',
      '      cmd: python3 -m areal.infra.rpc.rpc_server --opt: 1',
    ),
  ],
];

// Flow collections and quotes PyYAML reads without complaint: the checks above must stay silent.
const ACCEPTED: string[] = [
  'a: [1, 2]\n',
  'a: {x: 1, y: [a, b]}\n',
  'a: [a: 1, b]\n',
  "a: [http://x:80/p, \"q\", 'r''s']\n",
  'a: {"k": v, ? z : 1}\n',
  'a: [1, 2, ]\n',
  'a: [&x 1, *x]\n',
  'a: [!!str 1, 2]\n',
  'a: [1\n   , 2]\n',
  'a: {x: "multi\n    line"}\n',
  'a: [-1, -x, a-b]\n',
  'a: [a:b, c]\n',
  'a: [{x: 1}, [2, 3]]\n',
  'a: []\nb: {}\nc: [ ]\n',
  'a: [x # c\n  , y]\n',
  'a: [x,\n  y]   # after\nb: 2\n',
  'a: "x # not a comment"\n',
];

// PyYAML reads these (no indentation rule inside flow collections and quoted strings); YAML 1.2's
// yaml package does not. The trainer runs them: the cockpit must load them, to the same values.
const LESS_INDENTED: string[] = [
  'a: [1,\n2]\nb: 3\n',
  'a:\n  b: [x,\n  y]\n  c: 1\n',
  'a: {x: 1,\ny: 2}\n',
  'a: [x, # c\ny]\n',
  'a: [[1,\n2], {k: v,\nw: 3}]\n',
  'a: "abc\ndef"\nb: 1\n',
  'a:\n  b: "abc\n  def"\n  c: 1\n',
  "a: 'it''s\n\n  here'\nb: 2\n",
  'a: "x\\ty\n  z\\\n  w"\nb: 2\n',
  'a: "abc\r\ndef"\r\nb: 1\r\n',
  mutate(
    '      transformer_layer_cls_to_wrap:\n        - Qwen3VLTextDecoderLayer\n        - Qwen3VLVisionBlock\n  mb_spec',
    '      transformer_layer_cls_to_wrap: [Qwen3VLTextDecoderLayer,\n    Qwen3VLVisionBlock]\n  mb_spec',
  ),
  mutate(
    '  base_url: "https://generativelanguage.googleapis.com/v1beta/openai/"',
    '  base_url: "https://generativelanguage.googleapis.com/\n  v1beta/openai/"',
  ),
];

describe.skipIf(!omegaconfAvailable())(
  'what PyYAML reads though YAML 1.2 would not: loaded, to the same values',
  () => {
    it.each(LESS_INDENTED.map((t) => [t.length > 60 ? `${t.slice(0, 60)}…` : t, t]))('%j', (_, text) => {
      const [ref] = runOmegaConf([{ kind: 'yaml', text }]);
      expect(ref, 'OmegaConf loads it').toHaveProperty('ok');
      const loaded = loadYaml(text);
      expect(loaded.problems).toEqual([]);
      // The reference config's interpolations are resolved by OmegaConf: compare what they do not touch.
      const pick = (v: any) =>
        text.includes('WebGym') ? { wrap: v.actor.fsdp.wrap_policy, url: v.openai_config.base_url } : v;
      expect(pick(toTyped(loaded.root!))).toEqual(pick((ref as { ok: unknown }).ok));
    });
    it("the lines and columns of keys after such a value stay the file's", () => {
      const text = 'a: [1,\n2]\nb: 3\nc: "x\ny"\nd: bogus_unknown\n';
      const loaded = loadYaml(text);
      expect(loaded.root?.m.get('b')?.origin).toEqual({ kind: 'file', line: 3, col: 1 });
      expect(loaded.root?.m.get('d')?.origin).toEqual({ kind: 'file', line: 6, col: 1 });
    });
  },
);

describe.skipIf(!omegaconfAvailable())('yaml-syntax positions agree with PyYAML (unclosed quotes and brackets)', () => {
  let answers: Map<string, PyAnswer>;
  beforeAll(() => {
    const texts = [...QUOTES, ...BRACKETS, ...LINES].map(([, t]) => t);
    const a = pyyaml(texts);
    answers = new Map(texts.map((t, i) => [t, a[i]]));
  });

  for (const [name, text] of [...QUOTES, ...BRACKETS, ...LINES]) {
    it(name, () => {
      const py = answers.get(text)!;
      expect(py.ok).toBeUndefined(); // every case is broken for PyYAML too
      const ds = evaluate(text).diagnostics.filter((d) => d.code === 'yaml-syntax');
      expect(ds.length).toBeGreaterThan(0);
      expect({ line: ds[0].line, col: ds[0].col }).toEqual({ line: py.line, col: py.col });
      // The opening (PyYAML's context mark for a quote or a bracket) is named in the message.
      if (py.cline && /quoted scalar|flow (sequence|mapping)/.test(py.context ?? ''))
        expect(ds[0].message).toContain(`line ${py.cline}, column ${py.ccol}`);
    });
  }

  it('flow collections and quotes PyYAML accepts give no yaml-syntax error', () => {
    const py = pyyaml(ACCEPTED);
    ACCEPTED.forEach((t, i) => {
      expect(py[i], t).toEqual({ ok: true });
      expect(
        evaluate(t).diagnostics.filter((d) => d.code === 'yaml-syntax'),
        t,
      ).toEqual([]);
    });
  });

  it("a control character is refused as PyYAML's reader refuses it, at its place", () => {
    const text = 'a: 1\n\u0001\n';
    expect(pyyaml([text])[0].ok).toBeUndefined();
    const d = evaluate(text).diagnostics.find((x) => x.code === 'yaml-syntax');
    expect(d).toMatchObject({ line: 2, col: 1 });
    expect(d?.message).toContain('unacceptable character #x0001: special characters are not allowed (position 5)');
  });

  it('the reference config itself loads in both', () => {
    expect(pyyaml([REFERENCE])[0].ok).toBe(true);
    expect(evaluate(REFERENCE).diagnostics.filter((d) => d.code === 'yaml-syntax')).toEqual([]);
  });
});
