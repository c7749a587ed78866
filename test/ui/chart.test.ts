import { describe, expect, it } from 'vitest';
import { bucketMean, drawChart, movingAverage } from '../../src/ui/chart.js';
import { bar, fit, formatDuration, formatNumber } from '../../src/ui/format.js';

const widths = [12, 20, 40, 80, 200];
const cases: Record<string, (number | null)[]> = {
  empty: [],
  single: [0.5],
  flat: [0.25, 0.25, 0.25, 0.25],
  flatZero: [0, 0, 0],
  nanHolding: [NaN, null, 0.2, NaN, 0.4, null, 0.1],
  allNaN: [NaN, null, NaN],
  huge: [1e9, 2e9, -3e9],
  tiny: [1e-6, 3e-6, 2e-6],
  long: Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 500)),
};

describe('drawChart', () => {
  for (const [name, values] of Object.entries(cases)) {
    it(`${name}: exactly height lines, none wider than width, at every width`, () => {
      for (const width of widths) {
        for (const height of [1, 2, 5, 12]) {
          const lines = drawChart([{ values }], { width, height });
          expect(lines).toHaveLength(height);
          for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
        }
      }
    });
  }

  it('says there is no data for empty and all-NaN series', () => {
    expect(drawChart([{ values: [] }], { width: 40, height: 4 })[0]).toContain('no data');
    expect(drawChart([{ values: [NaN, null] }], { width: 40, height: 4 })[0]).toContain('no data');
  });

  it('draws a flat series as a horizontal line, labelled with its value', () => {
    const lines = drawChart([{ values: [0.25, 0.25, 0.25] }], { width: 30, height: 5 });
    const withLine = lines.filter((l) => l.includes('─'));
    expect(withLine.length).toBe(1);
    expect(lines.join('\n')).toContain('0.25');
  });

  it('keeps a fixed bound (a budget) inside the axis', () => {
    const lines = drawChart([{ values: [0, 1, 0.5] }], { width: 30, height: 6, max: 4 });
    expect(lines[0]).toMatch(/^\s*4\.0+/);
  });

  it('draws a rising series top-right', () => {
    const lines = drawChart([{ values: Array.from({ length: 50 }, (_, i) => i) }], { width: 40, height: 6 });
    const top = lines[0];
    const bottom = lines[lines.length - 1];
    expect(top.trimEnd().length).toBeGreaterThan(bottom.trimEnd().length - 30);
    expect(top).toMatch(/[╭─╮╯╰│]\s*$/);
  });
});

describe('series helpers', () => {
  it('bucketMean averages buckets and skips NaN', () => {
    expect(bucketMean([1, 3, NaN, 5, null, 7], 3)).toEqual([2, 5, 7]);
    expect(bucketMean([NaN, NaN, 1, 1], 2)).toEqual([NaN, 1]);
    expect(bucketMean([1, 2], 10)).toEqual([1, 2]);
  });
  it('movingAverage skips NaN and trails the window', () => {
    expect(movingAverage([1, NaN, 3, 5], 2)).toEqual([1, 1, 2, 4]);
    expect(movingAverage([NaN], 3)).toEqual([NaN]);
  });
});

describe('format helpers', () => {
  it('formats durations, numbers, bars and fits text', () => {
    expect(formatDuration(4)).toBe('4 s');
    expect(formatDuration(192)).toBe('3 min 12 s');
    expect(formatDuration(7500)).toBe('2 h 05 min');
    expect(formatDuration(null)).toBe('—');
    expect(formatNumber(0.123456)).toBe('0.1235');
    expect(formatNumber(5e-6)).toBe('5.00e-6');
    expect(formatNumber(NaN)).toBe('nan');
    expect(formatNumber(null)).toBe('—');
    expect(bar(0.5, 10)).toBe('█████░░░░░');
    expect(bar(NaN, 4)).toBe('░░░░');
    expect(fit('abcdef', 4)).toBe('abc…');
  });
});

describe('mergeColorRuns', () => {
  it('collapses per-character colours into runs, keeping the visible text and colours', async () => {
    const { mergeColorRuns } = await import('../../src/ui/chart.js');
    const C = '\x1b[36m';
    const Y = '\x1b[33m';
    const R = '\x1b[0m';
    const line = `0.5┤${C}─${R}${C}─${R}${C}╮${R}  ${Y}╭${R}${Y}─${R}`;
    const merged = mergeColorRuns(line);
    expect(merged).toBe(`0.5┤${C}──╮${R}  ${Y}╭─${R}`);
    expect(merged.replace(/\x1b\[[0-9;]*m/g, '')).toBe(line.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(mergeColorRuns('plain')).toBe('plain');
  });
});
