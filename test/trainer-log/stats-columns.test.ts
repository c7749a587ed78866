// A parsed step hands its stats to the metrics store as two arrays (statsColumns): they must be
// exactly the object's Object.keys and values, for every step of every fixture, and absent when
// the object's key order differs from the table's (an array-index key is enumerated first).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, statsColumns, type StepEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { parseAll, stepRecords } from './helpers.js';

const FILES = [
  `${SHARED}fixtures/areal-logs/run-a/main.log`,
  `${SHARED}fixtures/areal-logs/run-a/stdout.log`,
  new URL('./golden/edge.log', import.meta.url).pathname,
];

const steps = (events: ReturnType<typeof parseLogBytes>) => events.filter((e): e is StepEvent => e.type === 'step');

describe('statsColumns', () => {
  it.each(FILES)('equals Object.keys and the values of every parsed step (%s)', (file) => {
    let seen = 0;
    for (const e of steps(parseLogBytes(readFileSync(file)))) {
      const c = statsColumns(e.stats);
      if (!c) continue;
      seen++;
      expect([...c.keys]).toEqual(Object.keys(e.stats));
      c.keys.forEach((k, i) => expect(Object.is(c.values[i], e.stats[k])).toBe(true));
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('is the same key array for every step of a key set, and absent with an array-index key', () => {
    const stats: [string, string][] = [
      ['a/x', '1.0000e+00'],
      ['b/y', 'nan'],
      ['c/z', '-inf'],
    ];
    let text = '';
    for (let g = 1; g <= 5; g++) text += stepRecords(`20260525-00:0${g}:00.000`, g, stats) + '\n';
    const all = steps(parseAll(text));
    expect(all).toHaveLength(5);
    const cols = all.map((e) => statsColumns(e.stats));
    expect(cols[4]?.keys).toBe(cols[3]?.keys);
    expect(cols[4]?.values).toEqual([1, NaN, -Infinity]);

    const indexed = steps(
      parseAll(
        stepRecords('20260525-00:01:00.000', 1, [
          ['z', '1.0'],
          ['7', '2.0'],
        ]),
      ),
    );
    expect(Object.keys(indexed[0].stats)).toEqual(['7', 'z']);
    expect(statsColumns(indexed[0].stats)).toBeUndefined();
  });
});
