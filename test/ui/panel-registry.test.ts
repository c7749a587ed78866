// The panel registry: one record per panel, and everything that used to list panels elsewhere
// derives from it. Pinned: every series key a panel's lines read is one its record declares (so
// the backfill, which keeps the history of the declared keys, never leaves a panel without its
// history after attach), the backfill's keys are the panels' plus the rules', and the layout
// takes its minimums and priorities from the records.
import { describe, it, expect } from 'vitest';
import { PANELS } from '../../src/ui/panels/registry.js';
import { PANEL_ORDER, dashboardLayout } from '../../src/ui/layout.js';
import { BACKFILL_KEYS, BEYOND_PANELS } from '../../src/session/backfill-filter.js';
import { coversKey } from '../../src/session/panel-series.js';
import { ALERT_KEYS } from '../../src/metrics/index.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import type { SeriesSource } from '../../src/session/types.js';
import type { DashboardUi } from '../../src/ui/screens/dashboard.js';

const ui: DashboardUi = {
  zoom: null,
  showDifficulty: true,
  logAll: false,
  logSearch: '',
  logScroll: 0,
  logView: 'events',
  trainerProblemsOnly: false,
};

/** The run's series, noting every key a panel asks for. */
function recording(s: SeriesSource, asked: Set<string>): SeriesSource {
  return {
    get stepCount() {
      return s.stepCount;
    },
    keys: () => s.keys(),
    downsample: (k, n) => (asked.add(k), s.downsample(k, n)),
    latest: (k) => (asked.add(k), s.latest(k)),
  };
}

describe('panel registry', () => {
  it("every key a panel's lines read is declared in its record", () => {
    const run = sampleRunView({ steps: 40, keys: 250 });
    for (const p of PANELS) {
      const asked = new Set<string>();
      const lines = p.lines({ ...run, series: recording(run.series, asked) }, ui, 80, 20, false);
      expect(lines.length, p.id).toBeGreaterThan(0);
      const undeclared = [...asked].filter((k) => !coversKey(p.series, k));
      expect(undeclared, `${p.id} reads keys its record does not declare`).toEqual([]);
    }
    // Not vacuous: the chart panels do read series.
    const asked = new Set<string>();
    PANELS.find((p) => p.id === 'reward')!.lines({ ...run, series: recording(run.series, asked) }, ui, 80, 20, false);
    expect([...asked]).toContain('rollout/easy/reward');
  });

  it("the backfill keeps the panels' declared keys, the rules' and compare's (the store's own derived series aside)", () => {
    const declared = PANELS.flatMap((p) => p.series).filter((k) => !k.startsWith('derived/'));
    expect(new Set(BACKFILL_KEYS)).toEqual(new Set([...declared, ...BEYOND_PANELS, ...Object.values(ALERT_KEYS)]));
  });

  it('the layout derives from the records: order, minimum heights, priority', () => {
    expect(PANEL_ORDER).toEqual(PANELS.map((p) => p.id));
    // Exactly the minimums stacked: every panel shown at its record's height.
    const narrow = PANELS.reduce((a, p) => a + p.minHeight, 0);
    expect(dashboardLayout(80, narrow, null).rows.map((r) => [r.cols[0].id, r.height])).toEqual(
      PANELS.map((p) => [p.id, p.minHeight]),
    );
    // One row short: the panel with the last priority goes first.
    const last = [...PANELS].sort((a, b) => b.priority - a.priority)[0];
    expect(dashboardLayout(80, narrow - 1, null).hidden).toEqual([last.id]);
  });
});
