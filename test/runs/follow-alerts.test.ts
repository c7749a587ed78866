// The alerts `--launch --follow` prints next to the events (and the cockpit shows): health and
// metric rules over the same events as RunWatch runs them, each alert once (by id), a stall found on
// the wall-clock tick when no events come, and the lines `follow` prints for them.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { alertClearedJsonLine, alertClearedLine, alertJsonLine, alertLine } from '../../src/watch/follow-alerts.js';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { WatchRules } from './watch-rules.js';

const RUN_A = readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
const events = parseLogBytes(RUN_A);
const WALL = 1e12;

describe('the alerts RunWatch tells', () => {
  it('reports what run-a shows as it fires: nan grad norm at steps 4 and 10, the 2 h hang before the NCCL crash (one alert), the crash', () => {
    const fa = new WatchRules({ maxHeadOffpolicyness: 4 });
    const seen: Array<[string, string]> = [];
    for (const e of events)
      for (const a of fa.push(e, WALL).fired) seen.push([e.type === 'step' ? `step ${e.globalStep}` : e.type, a.id]);
    expect(seen).toEqual([
      ['step 4', 'grad-norm-nonfinite'],
      ['step 4', 'update-unsuccessful'],
      // Found at the error record (its time ends a 2 h gap), dated back to when it crossed 3x the median.
      ['error', 'health/stall/rollout_wait'],
      ['error', 'error:0'],
      // It cleared at step 5; firing again at step 10 is reported again.
      ['step 10', 'grad-norm-nonfinite'],
      ['step 10', 'update-unsuccessful'],
    ]);
    // The run resumed and stepped: the crash no longer stands.
    expect(fa.active.map((a) => a.id)).toEqual([]);
  });

  it('each error gets its own alert', () => {
    const fa = new WatchRules();
    const err = (message: string): TrainerEvent => ({
      type: 'error',
      message,
      detail: '',
      kind: 'other',
      time: '2026-05-01T10:00:00.000',
    });
    const ids = [...fa.push(err('first'), WALL).fired, ...fa.push(err('second'), WALL).fired].map((a) => a.id);
    expect(ids).toEqual(['error:0', 'error:1']);
  });

  it('a run that stops logging mid-step raises a stall alert on the tick, once, whatever the zones', () => {
    const fa = new WatchRules();
    const cut = events.findIndex((e) => e.type === 'step' && e.globalStep === 4);
    // The log's clock says nothing about ours: the events arrive at wall time 1e12 (2001).
    const arrived = 1e12;
    for (const e of events.slice(0, cut + 1)) fa.push(e, arrived);
    expect(fa.tick(arrived + 5_000).fired).toEqual([]);
    const stall = fa.tick(arrived + 3 * 3600_000).fired.filter((a) => a.id.includes('stall'));
    expect(stall).toHaveLength(1);
    expect(stall[0].detail + stall[0].title).toMatch(/3 h/);
    expect(fa.tick(arrived + 4 * 3600_000)).toEqual({ fired: [], cleared: [], ended: [] });
    expect(JSON.parse(alertJsonLine(stall[0]))).toMatchObject({
      type: 'alert',
      id: stall[0].id,
      severity: stall[0].severity,
    });
    expect(alertLine(stall[0])).toMatch(/^alert: \[(warning|error)\] /);
  });

  it('says when a reported alert stops standing, once', () => {
    const fa = new WatchRules({ maxHeadOffpolicyness: 4 });
    const seen: Array<[string, string, string]> = [];
    for (const e of events) {
      const at = e.type === 'step' ? `step ${e.globalStep}` : e.type;
      const told = fa.push(e, WALL);
      for (const a of told.fired) seen.push(['fired', at, a.id]);
      for (const a of told.cleared) seen.push(['cleared', at, a.id]);
      for (const a of told.ended) seen.push(['ended', at, a.id]);
    }
    // Every alert that fired and no longer stands was said to stop (cleared, or ended with the run),
    // after it fired, exactly once.
    const fired = seen.filter((s) => s[0] === 'fired').map((s) => s[2]);
    const stopped = seen.filter((s) => s[0] !== 'fired').map((s) => s[2]);
    expect(stopped.length).toBeGreaterThan(0);
    expect(fa.active.map((a) => a.id)).toEqual([]);
    expect([...stopped].sort()).toEqual([...fired].sort());
    for (const id of new Set(fired)) {
      const order = seen.filter((s) => s[2] === id).map((s) => s[0]);
      expect(order.every((kind, i) => (i % 2 === 0 ? kind === 'fired' : kind !== 'fired'))).toBe(true);
    }
    // The nan grad norm of step 4 is over at step 5.
    expect(seen).toContainEqual(['cleared', 'step 5', 'grad-norm-nonfinite']);
    // The 2 h hang did not clear: the NCCL crash ended it (no step came), and only it ended so.
    expect(seen.filter((s) => s[0] === 'ended')).toEqual([['ended', 'error', 'health/stall/rollout_wait']]);
    expect(fa.tick(WALL).cleared).toEqual([]);
    const a = { id: 'x', severity: 'warning' as const, title: 'reward at 0', detail: '', advice: '' };
    expect(JSON.parse(alertClearedJsonLine(a))).toEqual({
      type: 'alert-cleared',
      id: 'x',
      severity: 'warning',
      title: 'reward at 0',
    });
    expect(alertClearedLine(a)).toBe('alert cleared: reward at 0');
  });

  it('a hang the run dies in (killed, no record) ends with the run: never said to clear; a resumed hang is a new one', () => {
    const fa = new WatchRules();
    const cut = events.findIndex((e) => e.type === 'step' && e.globalStep === 4);
    for (const e of events.slice(0, cut + 1)) fa.push(e, WALL);
    const [stall] = fa.tick(WALL + 3 * 3600_000).fired;
    expect(stall.id).toMatch(/stall/);
    // The state poll says the run failed (SIGKILL: no trainer record): the hang stops standing.
    expect(fa.setEnded(true, WALL + 3 * 3600_000 + 5_000)).toEqual({ fired: [], cleared: [], ended: [stall] });
    const entry = fa.alerts.history.entries().find((e) => e.alert.id === stall.id)!;
    expect(entry).toMatchObject({ active: false, endedWithRun: true });
    expect(alertClearedLine(stall, true)).toBe(`alert ended with the run: ${stall.title}`);
    expect(JSON.parse(alertClearedJsonLine(stall, true))).toEqual({
      type: 'alert-cleared',
      id: stall.id,
      severity: stall.severity,
      title: stall.title,
      endedWithRun: true,
    });
    // Running again (a requeue) with no step since: the hang stands again, and a step then clears
    // it (cleared, not ended).
    expect(fa.setEnded(false, WALL + 4 * 3600_000).fired.map((a) => a.id)).toEqual([stall.id]);
    expect(fa.alerts.history.entries().find((e) => e.alert.id === stall.id)).toMatchObject({ endedWithRun: false });
    const next = events.find((e) => e.type === 'step' && e.globalStep === 5)!;
    expect(fa.push(next, WALL + 8 * 3600_000 + 1000).cleared.map((a) => a.id)).toContain(stall.id);
    expect(fa.alerts.history.entries().find((e) => e.alert.id === stall.id)).toMatchObject({
      active: false,
      endedWithRun: false,
      fired: 2,
    });
  });

  it('no tick alert before any event', () => {
    expect(new WatchRules().tick(WALL)).toEqual({ fired: [], cleared: [], ended: [] });
  });
});
