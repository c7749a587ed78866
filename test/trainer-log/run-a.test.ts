import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const DIR = `${SHARED}fixtures/areal-logs/run-a/`;
const LISTED = new Set(['step', 'memory', 'resume', 'error', 'finished']);
const expected = readFileSync(DIR + 'expected.jsonl', 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The event's fields that `like` lists; a stats value nan is null there (expected.jsonl writes NaN
 *  as null), so NaN is compared as null: the test below checks that run-a has no other null. */
function pick(e: TrainerEvent, like: Record<string, unknown>): Record<string, unknown> {
  const r = e as unknown as Record<string, unknown>;
  const nanAsNull = (s: Record<string, number | null>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Number.isNaN(v) ? null : v]));
  return Object.fromEntries(
    Object.keys(like).map((k) => [k, k === 'stats' && e.type === 'step' ? nanAsNull(e.stats) : r[k]]),
  );
}

describe.each(['main.log', 'merged.log', 'stdout.log'])('run-a %s', (file) => {
  const events = parseLogBytes(readFileSync(DIR + file));
  const listed = events.filter((e) => LISTED.has(e.type));

  it('gives the events of expected.jsonl, same values, same order', () => {
    expect(listed.length).toBe(expected.length);
    listed.forEach((e, i) => expect(pick(e, expected[i])).toEqual(expected[i]));
  });

  it('reads the printed nan as NaN (never null: every cell of run-a holds a number)', () => {
    const values = events.flatMap((e) => (e.type === 'step' ? Object.values(e.stats) : []));
    expect(values.filter((v) => v === null)).toEqual([]);
    expect(values.filter((v) => Number.isNaN(v))).toHaveLength(2);
  });

  it('reads every stats key of every step (160 per table)', () => {
    const steps = events.filter((e) => e.type === 'step');
    expect(steps.map((s) => s.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const s of steps) expect(Object.keys(s.stats)).toHaveLength(160);
    expect(steps[0].time).toBe('2026-05-25T12:19:55.952');
  });

  it('classifies the crash as an NCCL timeout from the controller, with its traceback', () => {
    const errors = events.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      kind: 'nccl-timeout',
      message: 'Training step failed',
      source: 'main',
      time: '2026-05-25T15:12:05.214',
    });
    expect(errors[0].detail).toMatch(
      /^Traceback \(most recent call last\):\n[\s\S]*Watchdog caught collective operation timeout/,
    );
  });

  it('reports the fresh start, the batches and the resume step', () => {
    expect(events.filter((e) => e.type === 'start')).toEqual([{ type: 'start', time: '2026-05-25T12:09:55.899' }]);
    const batches = events.filter((e) => e.type === 'batch');
    expect(batches).toHaveLength(12);
    expect(batches[0]).toEqual({
      type: 'batch',
      waitS: 564.8,
      totalS: 568.9,
      episodes: 128,
      time: '2026-05-25T12:19:20.666',
      role: 'rollout',
    });
  });

  it('prints JSON lines with type first', () => {
    for (const e of events) expect(eventToJsonLine(e).startsWith(`{"type":"${e.type}"`)).toBe(true);
  });
});

describe('run-a stdout.log (Ray-forwarded worker lines)', () => {
  it('turns the worker warnings into episode-timeout warnings from ray', () => {
    const events = parseLogBytes(readFileSync(DIR + 'stdout.log'));
    const warnings = events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(4);
    for (const w of warnings) expect(w).toMatchObject({ kind: 'episode-timeout', source: 'ray' });
    expect(warnings[0].message).toContain('— terminating episode');
  });
});
