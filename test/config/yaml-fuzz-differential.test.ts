// Short random documents built from YAML's syntax pieces (indicators, quotes, brackets, anchors,
// tags, directives, separators, tabs, indentation), each asked of real PyYAML + OmegaConf.create:
// the same verdict, the same typed values, the first error at PyYAML's problem_mark. Where the
// typo differential tries what a user types into a real config, this reaches the scanner's and
// parser's corners.
import { describe, expect, it } from 'vitest';
import { omegaconfAvailable } from '../harness/omegaconf.js';
import { askPyYaml, compare } from './typo-cases.js';

const PIECES = [
  'a',
  'b',
  ':',
  ' ',
  ' ',
  '\n',
  '\n  ',
  '- ',
  '? ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '"',
  "'",
  '#',
  ' #',
  '&a',
  '*a',
  '!',
  '!!str ',
  '|',
  '>',
  '-',
  '%',
  '---',
  '...',
  '\t',
  '1',
  'x: ',
  '  y: ',
  '\\',
  '@',
  '`',
  '\n- ',
  '\n---\n',
];

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!omegaconfAvailable())('random YAML pieces read as real PyYAML reads them', () => {
  it('2,000 seeded documents', () => {
    const rnd = mulberry32(20261129);
    const texts = Array.from({ length: 2000 }, () => {
      let t = '';
      for (let n = 1 + Math.floor(rnd() * 16); n > 0; n--) t += PIECES[Math.floor(rnd() * PIECES.length)];
      return t;
    });
    const py = askPyYaml(texts);
    const bad = texts.flatMap((t, i) => {
      const m = compare(t, py[i]);
      return m
        ? [
            `${m.kind}: ${JSON.stringify(t)}\n    cockpit ${m.ours.slice(0, 200)}\n    PyYAML  ${m.theirs.slice(0, 200)}`,
          ]
        : [];
    });
    expect(bad).toEqual([]);
  }, 120_000);
});
