// The alert history: what fired, when it cleared, how often, bounded.
import { describe, expect, it } from 'vitest';
import { AlertHistory, alertHistoryKey, type Alert } from '../../src/health/index.js';

const T0 = Date.parse('2026-05-25T03:00:00');
const MIN = 60_000;

function alert(id: string, step?: number, extra: Partial<Alert> = {}): Alert {
  return {
    id,
    severity: 'warning',
    title: `title ${id}`,
    detail: 'd',
    advice: 'a',
    ...(step !== undefined ? { step } : {}),
    ...extra,
  };
}

describe('AlertHistory', () => {
  it('an alert that fired and cleared is kept, cleared, with first seen, last seen and count', () => {
    const h = new AlertHistory();
    expect(h.observe([alert('grad-norm-nonfinite', 10)], T0)).toBe(true);
    expect(h.observe([alert('grad-norm-nonfinite', 11)], T0 + 5 * MIN)).toBe(true);
    expect(h.observe([], T0 + 20 * MIN)).toBe(true);
    const [e] = h.entries();
    expect(e).toMatchObject({
      key: 'grad-norm-nonfinite',
      active: false,
      fired: 1,
      firstSeenAt: T0,
      firstStep: 10,
      lastSeenAt: T0 + 5 * MIN,
      lastStep: 11,
      clearedAt: T0 + 20 * MIN,
    });
    // Nothing active: observing again changes nothing.
    expect(h.observe([], T0 + 30 * MIN)).toBe(false);
  });

  it('counts each time it fires again; active entries come first, then the latest cleared', () => {
    const h = new AlertHistory();
    h.observe([alert('a', 1)], T0);
    h.observe([], T0 + MIN);
    h.observe([alert('a', 3), alert('b', 3)], T0 + 2 * MIN);
    h.observe([alert('b', 4)], T0 + 3 * MIN);
    h.observe([alert('b', 4), alert('c', 4)], T0 + 4 * MIN);
    const list = h.entries();
    expect(list.map((e) => [e.key, e.active, e.fired])).toEqual([
      ['c', true, 1],
      ['b', true, 1],
      ['a', false, 2],
    ]);
    expect(list[2].clearedAt).toBe(T0 + 3 * MIN);
    expect(list[2].firstSeenAt).toBe(T0);
  });

  it('the same alert seen again at the same step is not a change (frames do not rebuild it)', () => {
    const h = new AlertHistory();
    h.observe([alert('a', 1)], T0);
    const before = h.entries();
    expect(h.observe([alert('a', 1)], T0 + 1000)).toBe(false);
    expect(h.entries()).toBe(before);
  });

  it('error alerts are told apart by time and title, not by their shifting ring index', () => {
    const e1 = alert('error:3', undefined, { title: 'oom: CUDA out of memory', time: '2026-05-25T03:00:01' });
    const shifted = { ...e1, id: 'error:0' };
    expect(alertHistoryKey(e1)).toBe(alertHistoryKey(shifted));
    const h = new AlertHistory();
    h.observe([e1], T0);
    h.observe([shifted], T0 + MIN);
    expect(h.entries()).toHaveLength(1);
    expect(h.entries()[0].fired).toBe(1);
  });

  it('the cap holds: the longest-cleared entries go first, active ones stay', () => {
    const h = new AlertHistory(200);
    h.observe([alert('keeps-firing', 0)], T0);
    for (let i = 0; i < 1000; i++) {
      h.observe([alert('keeps-firing', i), alert(`flap-${i}`, i)], T0 + i * MIN);
      h.observe([alert('keeps-firing', i)], T0 + i * MIN + 1000);
    }
    expect(h.size).toBe(200);
    const list = h.entries();
    expect(list).toHaveLength(200);
    expect(list[0]).toMatchObject({ key: 'keeps-firing', active: true });
    // The newest 199 flaps are kept, newest first.
    expect(list[1].key).toBe('flap-999');
    expect(list[199].key).toBe('flap-801');
  });
});
