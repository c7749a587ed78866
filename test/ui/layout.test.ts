import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dashboardLayout, PANEL_ORDER, WIDE_MIN_WIDTH } from '../../src/ui/layout.js';

describe('dashboardLayout', () => {
  it('never uses more rows or columns than it is given, and shows or hides every panel', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 120 }),
        fc.constantFrom(null, ...PANEL_ORDER),
        (w, h, zoom) => {
          const l = dashboardLayout(w, h, zoom);
          const used = l.rows.reduce((s, r) => s + r.height, 0);
          expect(used).toBeLessThanOrEqual(h);
          for (const r of l.rows) {
            const cols = r.cols.reduce((s, c) => s + c.width, 0) + (r.cols.length - 1);
            expect(cols).toBeLessThanOrEqual(w);
          }
          const shown = l.rows.flatMap((r) => r.cols.map((c) => c.id));
          expect([...shown, ...l.hidden].sort()).toEqual([...PANEL_ORDER].sort());
        },
      ),
    );
  });

  it('fills the height exactly when anything is shown', () => {
    for (const [w, h] of [
      [120, 36],
      [80, 20],
      [200, 46],
      [100, 30],
    ]) {
      const l = dashboardLayout(w, h, null);
      expect(l.rows.reduce((s, r) => s + r.height, 0)).toBe(h);
    }
  });

  it('pairs panels side by side when wide and shows all six at 120x40', () => {
    const l = dashboardLayout(120, 36, null);
    expect(120).toBeGreaterThanOrEqual(WIDE_MIN_WIDTH);
    expect(l.hidden).toEqual([]);
    expect(l.rows.map((r) => r.cols.map((c) => c.id))).toEqual([
      ['reward', 'staleness'],
      ['throughput', 'gpu'],
      ['alerts', 'log'],
    ]);
  });

  it('keeps reward, alerts and log first when short', () => {
    const l = dashboardLayout(80, 20, null);
    const shown = l.rows.flatMap((r) => r.cols.map((c) => c.id));
    expect(shown).toEqual(expect.arrayContaining(['reward', 'alerts', 'log']));
    expect(l.hidden.length).toBeGreaterThan(0);
  });

  it('zoom gives one panel the whole body', () => {
    expect(dashboardLayout(80, 20, 'gpu').rows).toEqual([{ height: 20, cols: [{ id: 'gpu', width: 80 }] }]);
  });
});
