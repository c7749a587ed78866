// What of a watch's outputs reaches the person: fired and cleared once each, identical errors one
// alert with a count, a refire within 10 min of clearing counted and not sent, the history's past
// not sent, the run's end, blind after 5 min unable to read and sight again.
import { describe, it, expect } from 'vitest';
import { NotifyPolicy } from '../../src/notify/notify-policy.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import type { Alert } from '../../src/metrics/index.js';
import type { RunSummary } from '../../src/runs/list.js';
import { appriseJson } from '../../src/notify/notify-event.js';

const MIN = 60_000;
const T0 = Date.parse('2026-12-05T10:00:00Z');
const stall: Alert = {
  id: 'health/stall/rollout_wait',
  severity: 'error',
  title: 'stalled waiting for the rollout batch',
  detail: 'no step for 20 min',
  advice: 'look at the rollout workers',
  step: 41,
  time: '2026-12-05T09:40:00.000',
};
const err = (i: number): Alert => ({
  id: `error:${i}`,
  severity: 'error',
  title: 'OOM: CUDA out of memory',
  detail: 'tb',
  advice: 'lower the batch',
});
const fire = (alert: Alert): WatchOutput => ({ type: 'alert', alert });
const clear = (alert: Alert, endedWithRun = false): WatchOutput => ({ type: 'alert-cleared', alert, endedWithRun });
const state = (s: string): WatchOutput =>
  ({ type: 'state', summary: { state: s, detail: '' } as unknown as RunSummary, previous: null }) as WatchOutput;
const settled = (lastLines: string[] = []): WatchOutput => ({
  type: 'settled',
  readEnd: 'read',
  lastLines,
  unreadBytes: null,
  problem: null,
});

function policy(o: { announceEnd?: boolean } = {}) {
  const p = new NotifyPolicy({ runId: 'r1', target: 'gpu1', ...o });
  const take = (w: WatchOutput, at: number, history = false) => p.take(w, T0 + at, history);
  return { p, take };
}

describe('NotifyPolicy', () => {
  it('an alert is sent when it fires and when it clears, same alertId, with its advice and step', () => {
    const { take } = policy();
    const [f] = take(fire(stall), 0);
    expect(f).toMatchObject({ event: 'alert', alertId: stall.id, severity: 'error', advice: stall.advice, step: 41 });
    const [c] = take(clear(stall), 5 * MIN);
    expect(c).toMatchObject({ event: 'alert-cleared', alertId: stall.id, title: `cleared: ${stall.title}` });
    const body = JSON.parse(appriseJson(f));
    expect(body).toMatchObject({
      version: '1.0',
      type: 'failure',
      awrl: { event: 'alert', runId: 'r1', target: 'gpu1', alertId: stall.id, severity: 'error', step: 41 },
    });
  });

  it('a refire within 10 min of clearing is counted, not sent; its count rides on the next message', () => {
    const { p, take } = policy();
    take(fire(stall), 0);
    take(clear(stall), 1 * MIN);
    expect(take(fire(stall), 3 * MIN)).toEqual([]);
    expect(take(clear(stall), 4 * MIN)).toEqual([]);
    expect(take(fire(stall), 6 * MIN)).toEqual([]);
    // Still standing once the window after the last clear is over: sent then, with its count.
    expect(p.tick(T0 + 13 * MIN)).toEqual([]);
    const [late] = p.tick(T0 + 14 * MIN);
    expect(late).toMatchObject({ event: 'alert', alertId: stall.id, count: 3 });
    expect(take(clear(stall), 20 * MIN)[0]).toMatchObject({ event: 'alert-cleared', count: 3 });
    // Past the window: a fresh alert again.
    expect(take(fire(stall), 40 * MIN)[0]).toMatchObject({ event: 'alert' });
  });

  it('identical errors standing together are one alert with a count', () => {
    const { take } = policy();
    expect(take(fire(err(0)), 0)).toHaveLength(1);
    expect(take(fire(err(1)), 1000)).toEqual([]);
    expect(take(fire(err(2)), 2000)).toEqual([]);
    expect(take(clear(err(0)), 3000)).toEqual([]);
    expect(take(clear(err(1)), 3000)).toEqual([]);
    expect(take(clear(err(2)), 3000)[0]).toMatchObject({ event: 'alert-cleared', count: 3 });
  });

  it("the history's past is not sent; what still stands once it is read is", () => {
    const { p, take } = policy();
    const old: Alert = { ...stall, id: 'health/stall/ppo_update' };
    expect(take(fire(old), 0, true)).toEqual([]);
    expect(take(clear(old), 0, true)).toEqual([]);
    expect(take(fire(stall), 0, true)).toEqual([]);
    expect(p.holdsHistory).toBe(true);
    const sent = take({ type: 'phase', phase: 'following' }, 1000, false);
    expect(sent.map((e) => e.alertId)).toEqual([stall.id]);
  });

  it('info alerts are not sent', () => {
    const { take } = policy();
    expect(take(fire({ ...stall, id: 'node', severity: 'info' }), 0)).toEqual([]);
  });

  it("the run's end once its log is read, with a failed run's last lines; an alert it ended under is said so", () => {
    const { take } = policy();
    take(state('running'), 0);
    take(fire(stall), 1000);
    take(state('failed'), 2000);
    const [end] = take(settled(['Traceback', 'RuntimeError: boom']), 3000);
    expect(end).toMatchObject({ event: 'run-end', state: 'failed', lastLines: ['Traceback', 'RuntimeError: boom'] });
    expect(JSON.parse(appriseJson(end)).awrl).toMatchObject({ event: 'run-end', state: 'failed' });
    const [c] = take(clear(stall, true), 4000);
    expect(c).toMatchObject({
      event: 'alert-cleared',
      endedWithRun: true,
      title: `ended with the run: ${stall.title}`,
    });
  });

  it('a run already over when watching began is not announced, unless it was launched to be followed', () => {
    const a = policy();
    a.take(state('finished'), 0);
    expect(a.take(settled(), 1)).toEqual([]);
    const b = policy({ announceEnd: true });
    b.take(state('failed'), 0);
    expect(b.take(settled(), 1)[0]).toMatchObject({ event: 'run-end', state: 'failed' });
  });

  it('blind after 5 min unable to read (connection or log), sight when it reads again', () => {
    const { p, take } = policy();
    take({ type: 'connection', state: 'lost', since: T0, reason: 'ECONNRESET' }, 0);
    expect(p.tick(T0 + 4 * MIN)).toEqual([]);
    const [b] = p.tick(T0 + 5 * MIN);
    expect(b).toMatchObject({ event: 'blind' });
    expect(b.message).toMatch(/5 min.*ECONNRESET/);
    expect(p.tick(T0 + 9 * MIN)).toEqual([]);
    expect(take({ type: 'connection', state: 'restored', since: T0 }, 10 * MIN)[0]).toMatchObject({ event: 'sight' });
    // A short outage: neither.
    take({ type: 'connection', state: 'lost', since: T0 + 11 * MIN }, 11 * MIN);
    expect(take({ type: 'connection', state: 'restored', since: T0 + 11 * MIN }, 12 * MIN)).toEqual([]);
    // The watch gave up (follow's reconnect timeout): blind at once.
    expect(take({ type: 'end', outcome: { kind: 'disconnected', reason: 'timed out' } }, 13 * MIN)[0]).toMatchObject({
      event: 'blind',
    });
  });
});
