// Chunk boundaries anywhere (inside a UTF-8 character, an ANSI code, a table row) must not change
// the events; random bytes and truncations must never throw.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { TrainerLogParser, parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const DIR = `${SHARED}fixtures/areal-logs/run-a/`;

function parseChunked(buf: Uint8Array, cuts: number[]): TrainerEvent[] {
  const p = new TrainerLogParser();
  const out: TrainerEvent[] = [];
  let at = 0;
  for (const c of [...new Set(cuts)].sort((a, b) => a - b)) {
    out.push(...p.push(buf.subarray(at, c)));
    at = c;
  }
  out.push(...p.push(buf.subarray(at)));
  out.push(...p.end());
  return out;
}

describe.each(['main.log', 'merged.log', 'stdout.log'])('chunking %s', (file) => {
  const buf = new Uint8Array(readFileSync(DIR + file));
  const whole = parseLogBytes(buf);

  it('gives identical events for 200 random chunkings', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: buf.length }), { minLength: 1, maxLength: 300 }), (cuts) => {
        expect(parseChunked(buf, cuts)).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('gives identical events fed one byte at a time', () => {
    const cuts = Array.from({ length: buf.length }, (_, i) => i);
    expect(parseChunked(buf, cuts)).toEqual(whole);
  });
});

describe('fuzz', () => {
  const fixture = new Uint8Array(readFileSync(DIR + 'stdout.log'));

  it('random bytes never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000 }), fc.array(fc.nat(), { maxLength: 20 }), (bytes, cuts) => {
        const events = parseChunked(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        );
        expect(Array.isArray(events)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('random truncations and splices of a real log never throw and keep the steps before the cut', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: fixture.length }),
        fc.uint8Array({ maxLength: 2_000 }),
        fc.nat({ max: fixture.length }),
        (cut, junk, resume) => {
          const tail = fixture.subarray(resume);
          const spliced = new Uint8Array(cut + junk.length + tail.length);
          spliced.set(fixture.subarray(0, cut), 0);
          spliced.set(junk, cut);
          spliced.set(tail, cut + junk.length);
          const events = parseLogBytes(spliced);
          const before = parseLogBytes(fixture.subarray(0, cut)).filter((e) => e.type === 'step');
          // Every step completed before the cut is still reported, in order (junk can only add).
          const steps = events.filter((e) => e.type === 'step');
          expect(steps.slice(0, before.length)).toEqual(before);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('survives adversarial shapes: endless table rows, prefixes, escapes, lone CRs', () => {
    const enc = new TextEncoder();
    const shapes = [
      '│ k │ 1 '.repeat(200_000),
      '╒\n' + '│ a │ 1 │\n'.repeat(100_000),
      '[x]        \n'.repeat(50_000),
      '(X pid=1) Traceback (most recent call last):\n'.repeat(50_000),
      '\x1b['.repeat(300_000),
      '\r'.repeat(500_000),
      Array.from({ length: 20_000 }, (_, i) => `(A${i} pid=${i}) (AReaL) 20260101-00:00:00.000 L ERROR: e`).join('\n'),
    ];
    for (const s of shapes) {
      const events = parseLogBytes(enc.encode(s));
      expect(events.length).toBeLessThan(100_000);
    }
  });
});

describe('buffer reuse', () => {
  it('gives the same events when the caller reuses one read buffer (as the CLI does)', () => {
    const buf = new Uint8Array(readFileSync(DIR + 'merged.log'));
    const whole = parseLogBytes(buf);
    for (const size of [997, 4096, 65_536]) {
      const p = new TrainerLogParser();
      const scratch = new Uint8Array(size);
      const out: TrainerEvent[] = [];
      for (let at = 0; at < buf.length; at += size) {
        const n = Math.min(size, buf.length - at);
        scratch.set(buf.subarray(at, at + n));
        out.push(...p.push(scratch.subarray(0, n)));
        scratch.fill(0x41); // whatever the parser kept must not be a view of this
      }
      out.push(...p.end());
      expect(out).toEqual(whole);
    }
  });
});
