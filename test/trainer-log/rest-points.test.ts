// The contract `awrl-tui parse` relies on to cut a big log into parts parsed in parallel:
// atRest() is true only where nothing is open (partial line, pending step, any writer's error
// record), and from such a point a fresh parser emits exactly the events the first one would.
// Also the writer bound (MAX_WRITERS): the oldest writer is forgotten, its open record emitted.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MAX_WRITERS, TrainerLogParser, parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { rec, stepRecords } from './helpers.js';

const DIR = `${SHARED}fixtures/areal-logs/run-a/`;
const T = '20260525-12:00:00.000';
const enc = new TextEncoder();

/** Feeds `buf` a line at a time; returns the byte offsets where the parser is at rest and how
 *  many events it had emitted by then. */
function restPoints(buf: Uint8Array): { at: number; emitted: number }[] {
  const p = new TrainerLogParser();
  const points: { at: number; emitted: number }[] = [];
  let emitted = 0;
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    const next = nl < 0 ? buf.length : nl + 1;
    emitted += p.push(buf.subarray(at, next)).length;
    at = next;
    if (p.atRest()) points.push({ at, emitted });
  }
  return points;
}

describe.each(['main.log', 'merged.log', 'stdout.log'])('rest points of %s', (file) => {
  const buf = new Uint8Array(readFileSync(DIR + file));
  const whole = parseLogBytes(buf);

  it('a fresh parser fed the rest from a rest point emits the same events as the whole parse', () => {
    const points = restPoints(buf);
    expect(points.length).toBeGreaterThan(20);
    // Every 4th point and the last: each one a full parse of the rest.
    const picked = points.filter((_, i) => i % 4 === 0 || i === points.length - 1);
    for (const { at, emitted } of picked) {
      expect(parseLogBytes(buf.subarray(at))).toEqual(whole.slice(emitted));
    }
  });

  it('is never at rest in the middle of a line', () => {
    const p = new TrainerLogParser();
    for (let at = 0; at < buf.length; at += 4093) {
      const end = Math.min(buf.length, at + 4093);
      p.push(buf.subarray(at, end));
      if (end < buf.length && buf[end - 1] !== 10) expect(p.atRest()).toBe(false);
    }
  });
});

describe('atRest', () => {
  it('is false while a step, a worker error or a traceback is open, true once each closes', () => {
    const p = new TrainerLogParser();
    const step = stepRecords(T, 1, [['a', '1.0000e+00']]).split('\n');
    expect(p.atRest()).toBe(true);
    p.push(enc.encode(step.slice(0, -1).join('\n') + '\n'));
    expect(p.atRest()).toBe(false);
    expect(p.push(enc.encode(step[step.length - 1] + '\n')).map((e) => e.type)).toEqual(['step']);
    expect(p.atRest()).toBe(true);

    p.push(enc.encode(`[rollout] ${rec(T, 'W', 'ERROR', 'boom')}\n`));
    expect(p.atRest()).toBe(false);
    expect(p.push(enc.encode(`[rollout] ${rec(T, 'W', 'INFO', 'next')}\n`)).map((e) => e.type)).toEqual(['error']);
    expect(p.atRest()).toBe(true);

    p.push(enc.encode('Traceback (most recent call last):\n  File "a.py", line 1, in f\nValueError: x\n'));
    expect(p.atRest()).toBe(false);
    expect(p.push(enc.encode('ordinary output\n')).map((e) => e.type)).toEqual(['error']);
    // The controller's last record was an error: an end record right after it would be a crash's.
    expect(p.atRest()).toBe(false);
    p.push(enc.encode(`${rec(T, 'RolloutController', 'INFO', 'next')}\n`));
    expect(p.atRest()).toBe(true);
    expect(p.writerCount).toBe(1);
  });

  it('is false while a WARNING record is open, whose traceback would follow as part of it', () => {
    // A fresh parser started between the two would read the traceback as a bare error.
    const warning = `(RayRPCServer pid=7, ip=10.0.0.1) ${rec(T, 'W', 'WARNING', 'Could not query cluster capacity')}\n`;
    const traceback =
      '(RayRPCServer pid=7, ip=10.0.0.1) Traceback (most recent call last):\n(RayRPCServer pid=7, ip=10.0.0.1)   File "a.py", line 1, in f\n(RayRPCServer pid=7, ip=10.0.0.1) ValueError: x\n';
    const p = new TrainerLogParser();
    expect(p.push(enc.encode(warning))).toEqual([]);
    expect(p.atRest()).toBe(false);
    expect(p.push(enc.encode(traceback))).toEqual([]);
    expect(parseLogBytes(enc.encode(traceback)).map((e) => e.type)).toEqual(['error']);
    const closed = p.push(enc.encode(`(RayRPCServer pid=7, ip=10.0.0.1) ${rec(T, 'W', 'INFO', 'next')}\n`));
    expect(closed).toEqual([
      {
        type: 'warning',
        message: 'Could not query cluster capacity',
        kind: 'other',
        time: '2026-05-25T12:00:00.000',
        source: 'ray',
        detail: 'Traceback (most recent call last):\n  File "a.py", line 1, in f\nValueError: x',
      },
    ]);
    expect(p.atRest()).toBe(true);
  });
});

describe('MAX_WRITERS', () => {
  it('forgets the oldest writer past the bound, emitting its open record first', () => {
    const p = new TrainerLogParser();
    const name = (i: number) => `w${i}`;
    const lines: string[] = [];
    for (let i = 0; i < MAX_WRITERS + 2; i++) lines.push(`[${name(i)}]`.padEnd(10) + rec(T, 'W', 'ERROR', `e${i}`));
    const events: TrainerEvent[] = p.push(enc.encode(lines.join('\n') + '\n'));
    // The two oldest writers were forgotten, their records emitted as they went.
    expect(events.map((e) => e.type === 'error' && `${e.source}:${e.message}`)).toEqual(['w0:e0', 'w1:e1']);
    expect(p.writerCount).toBe(MAX_WRITERS);
    expect(p.atRest()).toBe(false);
    const rest = p.end();
    expect(rest).toHaveLength(MAX_WRITERS);
    expect(rest[0]).toMatchObject({ type: 'error', source: 'w2', message: 'e2' });
    expect(rest[rest.length - 1]).toMatchObject({ type: 'error', source: name(MAX_WRITERS + 1) });
    expect(p.writerCount).toBe(0);
    expect(p.atRest()).toBe(true);
  });
});
