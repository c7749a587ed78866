// A parsed step hands its stats to the metrics store and the rules as columns (stepColumns) without
// making its stats object: they must be exactly the object's Object.keys and values, for every
// step of every fixture, and absent when the object's key order differs from the table's (an
// array-index key is enumerated first). Its stats object, made when first read, is a plain one.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, stepColumns, stepValue, type StepEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { parseAll, stepRecords } from './helpers.js';

const FILES = [
  `${SHARED}fixtures/areal-logs/run-a/main.log`,
  `${SHARED}fixtures/areal-logs/run-a/stdout.log`,
  new URL('./golden/edge.log', import.meta.url).pathname,
];

const steps = (events: ReturnType<typeof parseLogBytes>) => events.filter((e): e is StepEvent => e.type === 'step');

describe('stepColumns', () => {
  it.each(FILES)('equals Object.keys and the values of every parsed step (%s)', (file) => {
    let seen = 0;
    for (const e of steps(parseLogBytes(readFileSync(file)))) {
      const c = stepColumns(e);
      if (!c) continue;
      seen++;
      // Read before the object is made (a follow never makes it), then compared with it.
      const values = c.keys.map((_, i) => c.value(i));
      const byKey = c.keys.map((k) => stepValue(e, k));
      expect([...c.keys]).toEqual(Object.keys(e.stats));
      c.keys.forEach((k, i) => {
        expect(Object.is(values[i], e.stats[k])).toBe(true);
        expect(Object.is(byKey[i], e.stats[k])).toBe(true);
        expect(c.index(k)).toBe(i);
      });
      expect(c.values()).toEqual(values);
      expect(stepValue(e, 'no/such/key')).toBeUndefined();
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
    const cols = all.map((e) => stepColumns(e));
    expect(cols[4]?.keys).toBe(cols[3]?.keys);
    expect(cols[4]?.values()).toEqual([1, NaN, -Infinity]);

    const indexed = steps(
      parseAll(
        stepRecords('20260525-00:01:00.000', 1, [
          ['z', '1.0'],
          ['7', '2.0'],
        ]),
      ),
    );
    expect(Object.keys(indexed[0].stats)).toEqual(['7', 'z']);
    expect(stepColumns(indexed[0])).toBeUndefined();
    expect(stepValue(indexed[0], '7')).toBe(2);
  });

  it('a step whose stats are set anew is read from the new stats, in its JSON line too', async () => {
    const { eventToJsonLine } = await import('../../src/trainer-log/index.js');
    const [e] = steps(parseAll(stepRecords('20260525-00:01:00.000', 1, [['a/x', '1.0000e+00']])));
    const copy = { ...e, stats: { ...e.stats } };
    (copy.stats as Record<string, number>)['a/x'] = 2;
    expect(stepValue(copy, 'a/x')).toBe(2);
    (e as { stats: Record<string, number> }).stats = { 'a/x': 3 };
    expect(stepValue(e, 'a/x')).toBe(3);
    expect(eventToJsonLine(e)).toContain('"stats":{"a/x":3}');
  });
});
