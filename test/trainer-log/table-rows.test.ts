// The byte-level row reader (one pass per cell against the keys of two remembered layouts)
// against a plain oracle: the general rule of reading a `│ key │ value │ …` row, applied to each
// row on its own. Random tables alternate layouts and are perturbed: extra or missing padding,
// spaces inside values, non-ASCII keys and values, bars inside keys, empty cells, CR line ends.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  JsonLinesParser,
  eventToJsonLine,
  parseLogBytes,
  parseNumber,
  type StepEvent,
} from '../../src/trainer-log/index.js';
import { rec, table } from './helpers.js';

const BAR = '\xe2\x94\x82';
const utf8 = new TextDecoder();
const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const decode = (l: string) => utf8.decode(Buffer.from(l, 'latin1'));

/** The rule, with no cache: pairs between bars, trimmed of spaces; the first row fixes the
 *  number of columns; cells beyond it and empty keys are skipped; column-major order. */
function oracle(rows: string[]): { keys: string[]; values: (number | null)[] } {
  const grid: ({ k: string; v: number | null } | undefined)[][] = [];
  let cols = 0;
  for (const s of rows) {
    let p = s.indexOf(BAR);
    if (p < 0) continue;
    p += 3;
    const cells: ({ k: string; v: number | null } | undefined)[] = [];
    for (;;) {
      const kEnd = s.indexOf(BAR, p);
      if (kEnd < 0) break;
      const vEnd = s.indexOf(BAR, kEnd + 3);
      if (vEnd < 0) break;
      const k = s.slice(p, kEnd).replace(/^ +| +$/g, '');
      const v = s.slice(kEnd + 3, vEnd).replace(/^ +| +$/g, '');
      if (grid.length === 0 || cells.length < cols)
        cells.push(k ? { k: decode(k), v: parseNumber(v, 0, v.length) } : undefined);
      else cells.push(undefined);
      p = vEnd + 3;
    }
    if (grid.length === 0) {
      if (cells.length === 0) continue;
      cols = cells.length;
    }
    grid.push(cells.slice(0, cols));
  }
  const keys: string[] = [];
  const values: (number | null)[] = [];
  for (let j = 0; j < cols; j++) {
    for (const r of grid) {
      const c = r[j];
      if (c) {
        keys.push(c.k);
        values.push(c.v);
      }
    }
  }
  return { keys, values };
}

const KEYS = [
  'rollout/reward',
  'timeperf/train_step',
  'ppo_actor/n_tokens',
  'ppo_actor/update/grad_norm',
  'ключ/α',
  'a│b',
  'x',
  'ppo_actor/k10/avg',
  'ppo_actor/k11/max',
  'ppo_actor/k12/min',
  'ppo_actor/k13/avg',
  'eval/extra',
];
const VALUES = ['1.2345e-03', '-7.0000e+00', 'nan', 'inf', '1 2', 'é', '', '0', '12', '1.', 'True'];

const perturb = fc.record({
  row: fc.nat(),
  kind: fc.constantFrom('pad', 'unpad', 'inner', 'cr', 'cut', 'none'),
});

describe('table rows read on bytes', () => {
  it('match the plain rule for random tables, layouts and perturbations', () => {
    const stepArb = fc.record({
      layout: fc.nat({ max: 2 }),
      values: fc.array(fc.constantFrom(...VALUES), { minLength: 14, maxLength: 14 }),
      perturbs: fc.array(perturb, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 8 }), (steps) => {
        const lines: string[] = [];
        const oracles: ReturnType<typeof oracle>[] = [];
        steps.forEach((st, g) => {
          const n = [6, 9, 12][st.layout];
          const stats = KEYS.slice(0, n).map((k, i) => [k, st.values[i]] as [string, string]);
          const t = table(stats).split('\n');
          for (const p of st.perturbs) {
            const i = 1 + 2 * (p.row % Math.max(1, (t.length - 1) >> 1));
            if (i >= t.length - 1) continue;
            if (p.kind === 'pad') t[i] = t[i].replace('│ ', '│   ');
            else if (p.kind === 'unpad') t[i] = t[i].replace(' │', '│');
            else if (p.kind === 'inner') t[i] = t[i].replace(/(\d) /, '$1 3 ');
            else if (p.kind === 'cr') t[i] = t[i] + '\r';
            else if (p.kind === 'cut') t[i] = t[i].slice(0, Math.floor(t[i].length / 2));
          }
          const T = `20260525-12:00:${String(g).padStart(2, '0')}.000`;
          lines.push(rec(T, 'StatsLogger', 'INFO', `Epoch 1/1 Step ${g + 1}/9 Train step ${g + 1}/9 done.`));
          lines.push(rec(T, 'StatsLogger', 'INFO', 'Stats (1/1):'));
          lines.push(`\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[92m${T} StatsLogger INFO: `);
          lines.push(...t);
          const rows = t
            .slice(1, -1)
            .map((l) => latin1(l.endsWith('\r') ? l.slice(0, -1) : l))
            .filter((l) => l.startsWith(BAR));
          oracles.push(oracle(rows));
        });
        const bytes = Buffer.from(lines.join('\n') + '\n', 'utf8');
        const events = parseLogBytes(bytes).filter((e): e is StepEvent => e.type === 'step');
        expect(events.length).toBe(steps.length);
        events.forEach((e, i) => {
          const want: Record<string, number | null> = {};
          oracles[i].keys.forEach((k, j) => (want[k] = oracles[i].values[j]));
          expect(e.stats).toEqual(want);
        });
        // The JSON Lines path gives the same lines as the events.
        const p = new JsonLinesParser();
        const out = Buffer.concat([Buffer.from(p.push(bytes)), Buffer.from(p.end())]).toString('utf8');
        expect(out).toBe(
          parseLogBytes(bytes)
            .map((e) => eventToJsonLine(e) + '\n')
            .join(''),
        );
      }),
      { numRuns: 300 },
    );
  });
});
