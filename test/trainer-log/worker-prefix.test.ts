// The fast path for workers' routine lines finds the writer by a hash of its prefix bytes and then
// compares the bytes: two prefixes with the same hash are still two writers.
import { describe, expect, it } from 'vitest';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { prefixHash } from '../../src/trainer-log/writers.js';
import { rec } from './helpers.js';

const T = '20260525-12:00:00.000';
const enc = new TextEncoder();
const hash = (s: string) => [...s].reduce((h, c) => prefixHash(h, c.charCodeAt(0)), 0);

describe('worker prefixes', () => {
  it('two writers whose prefixes share a hash keep their own records', () => {
    const a = '(Aa pid=1, ip=10.0.0.1)';
    const b = '(BB pid=1, ip=10.0.0.1)';
    expect(hash(a)).toBe(hash(b));
    const log = [
      `${a} ${rec(T, 'W', 'ERROR', 'a failed')}`,
      `${b} ${rec(T, 'W', 'INFO', 'b is fine')}`,
      rec(T, 'main', 'WARNING', 'between'),
      `${a} ${rec(T, 'W', 'INFO', 'a goes on')}`,
      `${b} ${rec(T, 'W', 'INFO', 'b again')}`,
      '',
    ].join('\n');
    // a's record stays open across b's lines: it is closed by a's own next line only (the
    // controller's warning, by the end of the input).
    const events = parseLogBytes(enc.encode(log)).map((e) => `${e.type}:${'message' in e ? e.message : ''}`);
    expect(events).toEqual(['error:a failed', 'warning:between']);
  });

  it('a routine line of a worker whose prefix holds escape codes still closes its record', () => {
    const p = '(RayRPCServer pid=9\x1b[0m, ip=10.0.0.2)';
    const log = [
      `${p} ${rec(T, 'W', 'ERROR', 'boom')}`,
      rec(T, 'main', 'WARNING', 'between'),
      `${p} ${rec(T, 'W', 'INFO', 'next')}`,
      rec(T, 'main', 'WARNING', 'after'),
      '',
    ].join('\n');
    const events = parseLogBytes(enc.encode(log)).map((e) => `${e.type}:${'message' in e ? e.message : ''}`);
    expect(events).toEqual(['error:boom', 'warning:between', 'warning:after']);
  });
});
