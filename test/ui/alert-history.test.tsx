/** @jsxRuntime classic */
// The alert history in the cockpit: an alert that fired and cleared while the cockpit watched is
// still on the Alerts panel afterwards (dimmed, when it cleared, how often it fired); `h` opens the
// whole list, which scrolls and closes with Esc or q.
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertHistory, type Alert } from '../../src/health/index.js';
import { App } from '../../src/ui/app.js';
import { clockTime } from '../../src/ui/format.js';
import { BINDINGS } from '../../src/ui/bindings.js';
import { alertsLines } from '../../src/ui/panels/alerts.js';
import { helpRows } from '../../src/ui/screens/help.js';
import { alertHistoryLines, historyTimes, timeSpan } from '../../src/ui/screens/alert-history.js';
import { lineText } from '../../src/ui/lines.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import { initialUiState, reduceKey, type KeyContext } from '../../src/ui/ui-state.js';
import { drawLines } from './draw-lines.js';
import { maxLineWidth, renderInk, waitForFrame } from './helpers.js';
import { watchSimRun, type WatchedSim } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

const T0 = Date.parse('2026-05-25T03:00:00');
const MIN = 60_000;

function alert(id: string, step: number, severity: Alert['severity'] = 'warning'): Alert {
  return { id, severity, title: `Alert ${id}`, detail: `detail of ${id}`, advice: `do something about ${id}`, step };
}

/** Fired at 03:00 (step 10), cleared at 03:20; fired again at 03:30, cleared 03:40; one still active. */
function historyOf(): AlertHistory {
  const h = new AlertHistory();
  h.observe([alert('nan', 10)], T0);
  h.observe([], T0 + 20 * MIN);
  h.observe([alert('nan', 14)], T0 + 30 * MIN);
  h.observe([alert('stale', 16)], T0 + 40 * MIN);
  return h;
}

describe('Alerts panel with history', () => {
  it('active alerts first with what to do, then cleared ones: "cleared HH:MM, fired N× since HH:MM"', () => {
    const h = historyOf();
    const f = drawLines(alertsLines([alert('stale', 16)], 70, 12, h.entries()), 70, 12);
    const lines = f.split('\n');
    const active = lines.findIndex((l) => l.includes('Alert stale (step 16)'));
    const cleared = lines.findIndex((l) => l.includes('Alert nan (step 14)'));
    expect(active).toBeGreaterThan(0);
    expect(cleared).toBeGreaterThan(active);
    expect(f).toContain('→ do something about stale');
    expect(f).toContain(`cleared ${clockTime(T0 + 40 * MIN)}, fired 2× since ${clockTime(T0)}`);
    expect(clockTime(T0)).toBe('03:00');
    expect(lines[0]).toContain('1 · 1 cleared');
  });

  it('cleared entries are dimmed; with nothing active the panel says so and still lists them', () => {
    const h = new AlertHistory();
    h.observe([alert('nan', 10)], T0);
    h.observe([], T0 + 20 * MIN);
    const lines = alertsLines([], 60, 8, h.entries());
    expect(lineText(lines[1])).toBe('no active alerts');
    const row = lines.find((l) => lineText(l).includes('cleared 03:20'));
    expect(typeof row === 'object' && row.every((s) => s.c === 'dim')).toBe(true);
  });

  it('too many for the panel: the last row names the history key', () => {
    const h = new AlertHistory();
    for (let i = 0; i < 10; i++) {
      h.observe([alert(`a${i}`, i)], T0 + i * MIN);
    }
    h.observe([], T0 + 20 * MIN);
    const f = drawLines(alertsLines([], 60, 6, h.entries()), 60, 6);
    expect(f).toContain('h: alert history');
  });
});

describe('the history list rows', () => {
  it('a stretch that fired once: its time span and steps; fired again: the last span and since when', () => {
    const h = new AlertHistory();
    h.observe([alert('zero', 812)], T0 + 12 * MIN);
    h.observe([alert('zero', 815)], T0 + 18 * MIN);
    h.observe([], T0 + 20 * MIN);
    expect(historyTimes(h.entries()[0])).toBe('05-25 03:12–03:20 (steps 812–815), cleared');
    h.observe([alert('zero', 900)], T0 + 60 * MIN);
    h.observe([], T0 + 62 * MIN);
    expect(historyTimes(h.entries()[0])).toBe(
      'last 05-25 04:00–04:02 (step 900); fired 2× since 05-25 03:12 (step 812)',
    );
    // Across midnight, both days.
    expect(timeSpan(Date.parse('2026-05-25T23:50:00'), Date.parse('2026-05-26T00:10:00'))).toBe(
      '05-25 23:50 – 05-26 00:10',
    );
  });

  it('the title says how many entries the cap dropped', () => {
    const h = new AlertHistory(3);
    for (let i = 0; i < 5; i++) {
      h.observe([alert(`a${i}`, i)], T0 + i * MIN);
      h.observe([], T0 + i * MIN + 1000);
    }
    expect(h.dropped).toBe(2);
    const title = lineText(alertHistoryLines(h.entries(), 100, 20, 0, h.dropped)[0]);
    expect(title).toContain('0 active · 3 cleared · 2 older dropped');
    expect(lineText(alertHistoryLines(h.entries(), 100, 20, 0)[0])).not.toContain('dropped');
  });
});

describe('the full history (h)', () => {
  const ctx: KeyContext = {
    runIds: [],
    configRows: [],
    launchInProgress: false,
    configHasErrors: false,
    page: 10,
    historyScrollMax: 5,
  };

  it('h opens it from the dashboard and the log screen; j k arrows scroll within bounds; Esc and q close it without quitting', () => {
    for (const screen of ['dashboard', 'log'] as const) {
      const open = reduceKey(initialUiState(screen), 'h', {}, ctx).state;
      expect(open.history).toBe(true);
      let s = reduceKey(open, 'j', {}, ctx).state;
      s = reduceKey(s, '', { downArrow: true }, ctx).state;
      expect(s.historyScroll).toBe(2);
      s = reduceKey(s, '', { pageDown: true }, ctx).state;
      expect(s.historyScroll).toBe(5);
      s = reduceKey(s, 'k', {}, ctx).state;
      expect(s.historyScroll).toBe(4);
      // A stray key keeps it open and does nothing else.
      expect(reduceKey(s, 'z', {}, ctx)).toEqual({ state: s, effects: [] });
      const q = reduceKey(s, 'q', {}, ctx);
      expect(q.state.history).toBe(false);
      expect(q.effects).toEqual([]);
      expect(reduceKey(s, '', { escape: true }, ctx).state.history).toBe(false);
    }
  });

  it('is in the help overlay', () => {
    expect(
      BINDINGS.some(
        (b) => b.keys.includes('h') && b.scopes.includes('dashboard') && /alert history/.test(b.description),
      ),
    ).toBe(true);
    expect(
      helpRows(80)
        .map(lineText)
        .some((l) => l.includes('alert history')),
    ).toBe(true);
  });

  it('in the cockpit: the footer names h; h lists every entry, scrolls at 80x24, Esc closes', async () => {
    const h = new AlertHistory();
    for (let i = 0; i < 12; i++) {
      h.observe([alert(`a${i}`, i)], T0 + i * MIN);
      h.observe([], T0 + i * MIN + 30_000);
    }
    h.observe([alert('live', 20, 'error')], T0 + 30 * MIN);
    const run = {
      ...sampleRunView({ steps: 50, now: T0 }),
      alerts: [alert('live', 20, 'error')],
      alertHistory: h.entries(),
    };
    const s = new StaticSession({ run, selectedRunId: run.summary.id });
    const r = renderInk(
      <App session={s} initialScreen="dashboard" size={{ columns: 80, rows: 24 }} colors={false} clock={() => T0} />,
    );
    try {
      const dash = await waitForFrame(r, (x) => x.includes('─ Reward'), 'the dashboard');
      expect(dash).toMatch(/· h (alert )?history/);
      r.stdin.write('h');
      const f = await waitForFrame(r, (x) => x.includes('Alert history'), 'the history list');
      expect(f).toContain('1 active · 12 cleared');
      expect(f).toContain('Alert live');
      expect(f).toMatch(/active since 05-25 03:30 \(step 20\), fired 1×/);
      expect(f).toContain('Esc or q closes');
      expect(maxLineWidth(f)).toBeLessThanOrEqual(80);
      expect(f.split('\n').length).toBeLessThanOrEqual(23);
      // The oldest entry is below the screen; scrolling reaches it.
      expect(f).not.toContain('Alert a0');
      for (let i = 0; i < 60; i++) r.stdin.write('j');
      const end = await waitForFrame(r, (x) => x.includes('Alert a0'), 'the oldest entry after scrolling');
      // When it was active (on the log's clock), at which step, that it cleared.
      expect(end).toContain('05-25 03:00–03:00 (step 0), cleared');
      r.stdin.write('\u001B');
      await waitForFrame(r, (x) => x.includes('─ Reward'), 'the dashboard again');
    } finally {
      r.unmount();
    }
  });
});

describe('a watched run that fires and clears an alert', () => {
  let w: WatchedSim;

  beforeAll(async () => {
    w = await watchSimRun({
      env: { AWRL_SIM_SPEED: '400', AWRL_SIM_FAULT: 'nan-grad@2-3' },
      overrides: ['++trial_name=qa-history'],
      runsPollMs: 1000,
      statePollMs: 500,
    });
  }, 60_000);

  afterAll(async () => {
    await w?.close();
  });

  it('still shows it, cleared, afterwards', async () => {
    await waitFor(() => w.session.getState().run?.alerts.some((a) => a.id === 'grad-norm-nonfinite'), {
      timeoutMs: 90_000,
      what: 'the nan grad alert to fire',
    });
    await waitFor(() => (w.session.getState().run?.summary.step ?? 0) >= 4, { timeoutMs: 90_000, what: 'step 4' });
    const run = w.session.getState().run!;
    expect(run.alerts.some((a) => a.id === 'grad-norm-nonfinite')).toBe(false);
    const e = run.alertHistory!.find((x) => x.key === 'grad-norm-nonfinite')!;
    expect(e).toMatchObject({ active: false, fired: 1 });
    expect(e.firstStep === 2 || e.firstStep === 3).toBe(true);
    const f = await waitForFrame(
      w.r,
      (x) => x.includes('Gradient norm is not finite') && x.includes('fired 1× since'),
      'the cleared alert on the panel',
      10_000,
    );
    expect(f).toContain(`cleared ${clockTime(e.clearedAt!)}, fired 1× since ${clockTime(e.firstSeenAt)}`);
  }, 150_000);
});
