// The characters YAML reads as syntax, typed where a config has a value or at a line's start
// (`|`, `>`, `%`, `?`, `&`, `*`, `!`, `#`, `---`, a tab), each asked of real PyYAML + OmegaConf.create:
// the cockpit reads what the trainer reads, with the same typed values, and refuses the rest at
// PyYAML's problem_mark (its ported scanner and parser: src/config/pyyaml-parser.ts).
import { describe, expect, it } from 'vitest';
import { loadYaml } from '../../src/config/yaml-load.js';
import { omegaconfAvailable } from '../harness/omegaconf.js';
import { askPyYaml, compare } from './typo-cases.js';

const CASES: [string, string][] = [
  ['a block scalar value', 'prompt: |\n  You are an agent.\n  Answer briefly.\nseed: 1\n'],
  ['a folded block scalar, stripped', 'folded: >-\n  one\n  two\n\n  three\nseed: 1\n'],
  ['a block scalar kept, with an indentation indicator', 'k: |2+\n    deeper\n  text\n\nseed: 1\n'],
  ["a '|' glued to the value", 'seed: |1\nb: 2\n'],
  ["a '>' before the value", 'path: > /models/qwen3\nb: 2\n'],
  ["a '|' at a line's start", 'a: 1\n|\nb: 2\n'],
  ["a block scalar's indicator 0", 'a: |0\n  x\n'],
  ['a block scalar with nothing under it', 'a: |\nb: 2\n'],
  ["a '%' at a line's start", 'a: 1\n%b: 2\n'],
  ["a '%' directive, then '---'", '%YAML 1.1\n---\na: 1\n'],
  ["a '%' directive of YAML 2", '%YAML 2.0\n---\na: 1\n'],
  ["a '%' directive without '---'", '%YAML 1.1\na: 1\n'],
  ["'?' before a key", '? a\n: 1\nb: 2\n'],
  ["'?' glued to a key", '?a: 1\nb: 2\n'],
  ["'?' alone on a line", 'a: 1\n?\nb: 2\n'],
  ["'?' inside a value", 'a: ? x\n'],
  ["'?' in a flow list", 'stop: [a, ? b]\n'],
  ["'&' before a key", '&a: 1\nb: 2\n'],
  ["'&' alone", 'a: & 1\n'],
  ['an anchor and its alias', 'a: &x 1\nb: *x\n'],
  ['an alias before its anchor', 'b: *x\na: &x 1\n'],
  ["'*' glued to a value", 'a: *.jsonl\n'],
  ["'!' before a value", 'a: !x 1\n'],
  ["'!!' before a value", 'a: !!int 1\nb: !!str 2\n'],
  ["an undefined '!h!' handle", 'a: !h!x 1\n'],
  ["'---' in the middle", 'a: 1\n---\nb: 2\n'],
  ["'...' in the middle", 'a: 1\n...\nb: 2\n'],
  ["'...' at the end", 'a: 1\n...\n'],
  ["'- ' after a value", 'a: 1 - 2\nb: - 3\n'],
  ["'- ' at the key's column", 'a:\n- 1\n- 2\nb: 3\n'],
  ['a tab after the colon', 'a:\t1\n'],
  ['a tab at a line start', 'a: 1\n\tb: 2\n'],
  ['a tab inside a block scalar', 'a: |\n  x\ty\n'],
  ['a key indented deeper', 'a: 1\n  b: 2\n'],
  ['a key less indented', 'a:\n    b: 1\n  c: 2\n'],
  ['a mapping as a key', '? {a: 1}\n: 2\n'],
  ['a block scalar at the end of the file: 1', 'x: |\n  text'],
  ['a block scalar at the end of the file: 2', 'x: |+\n  text'],
  ['a block scalar at the end of the file: 3', 'x: |-\n  text'],
  ['a block scalar at the end of the file: 4', 'x: >\n  a\n  b'],
  ['a block scalar at the end of the file: 5', 'x: |\n  text\n'],
  ['a block scalar at the end of the file: 6', 'x: |\n  text  '],
  ['a block scalar at the end of the file: 7', 'x: |\n  text\n  '],
  ['a block scalar at the end of the file: 8', 'x: |+\n  text\n\n  '],
  ['a block scalar at the end of the file: 9', 'a:\n  x: |\n    t\n  y: 1'],
  ['a quoted string in a flow list broken over lines: 1', 'gconfig:\n  stop: ["</s>", "<|im_en\n|>"]\n  n: 1\n'],
  ['a quoted string in a flow list broken over lines: 2', 'gconfig:\n  stop: ["</s>",\n"<|im_end|>"]\n  n: 1\n'],
  ['a quoted string in a flow list broken over lines: 3', 'a:\n  b: [\'x\n\ny\', "p\n  q"] # c\n  c: 2\n'],
  ['a quoted string in a flow list broken over lines: 4', 'a:\n  b: [it\'s, "p\nq"]\n'],
  ["'#' glued to a quoted value", 'a: "x"#note\nb: 1\n'],
  ["'#' glued to a flow list", 'a: [1, 2]#note\nb: 1\n'],
  ["the non-specific tag '!' types the value as if plain", 'a: ! "1"\nb: ! 2\nc: !\nd: ! [1]\n'],
  ['an unknown tag on a mapping', 'a: !foo {x: 1}\n'],
  ['an unknown tag glued to a dash', 'a: !- 1\n'],
  ['an unknown tag after a valid one', 'a: !!str 1\nb: !!strr 2\n'],
];

describe.skipIf(!omegaconfAvailable())(
  'YAML syntax characters typed into a config read as the trainer reads them',
  () => {
    const py = askPyYaml(CASES.map(([, t]) => t));
    CASES.forEach(([name, text], i) => {
      it(`${name}: ${JSON.stringify(text)}`, () => {
        const m = compare(text, py[i]);
        expect(m, m ? `${m.kind}\n  cockpit ${m.ours}\n  PyYAML  ${m.theirs}` : '').toBeNull();
      });
    });

    it('a refused file says the one error, in words, without a stack trace', () => {
      const { problems } = loadYaml('seed: |x\nb: 2\n');
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ line: 1, col: 8 });
      expect(problems[0].message).toMatch(/block scalar.*quote the value/);
      expect(problems[0].message).not.toMatch(/\n\s+at /);
    });
  },
);
