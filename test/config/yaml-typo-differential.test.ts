// Random single-character typos anywhere in a config (inserted, replaced, deleted), each asked of
// real PyYAML: the cockpit must accept exactly what the trainer's loader accepts (with the same
// typed values) and place the first error at PyYAML's problem_mark.
import { describe, expect, it } from 'vitest';
import { omegaconfAvailable } from '../harness/omegaconf.js';
import { REFERENCE } from './helpers.js';
import { askPyYaml, compare, SHAPES, typos, type Mismatch } from './typo-cases.js';

const N = Number(process.env.AWRL_TYPOS ?? 1000);

describe.skipIf(!omegaconfAvailable())('single-character typos agree with real PyYAML', () => {
  it(`${N} typos on the reference config and ${N / 2} on each other shape`, () => {
    const cases = [
      ...typos(REFERENCE, 11, N).map((t) => ({ ...t, shape: 'reference' })),
      ...Object.entries(SHAPES).flatMap(([name, text], i) => typos(text, 101 + i, N / 2).map((t) => ({ ...t, shape: name }))),
    ];
    const py = askPyYaml(cases.map((c) => c.text));
    const groups = new Map<Mismatch, string[]>();
    cases.forEach((c, i) => {
      const m = compare(c.text, py[i]);
      if (!m) return;
      const g = groups.get(m.kind) ?? [];
      g.push(`${c.shape}: ${c.what}\n    cockpit ${m.ours}\n    PyYAML  ${m.theirs}`);
      groups.set(m.kind, g);
    });
    const summary = [...groups].map(([k, v]) => `${k}: ${v.length}`).join(', ');
    if (process.env.AWRL_TYPOS_SHOW) for (const [k, v] of groups) console.log(`== ${k} (${v.length})\n${v.join('\n')}`);
    console.log(`typos: ${cases.length}, mismatches: ${[...groups.values()].reduce((n, v) => n + v.length, 0)} (${summary || 'none'})`);
    expect(groups.get('we accept, PyYAML refuses') ?? []).toEqual([]);
  }, 120_000);
});
