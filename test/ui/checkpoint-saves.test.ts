// The trainer's checkpoint saves reach the cockpit's records in log order, however the followed
// bytes are cut: the reader (src/trainer-log) gives the same sequence as over the whole log at
// once (the fixture, written by the trainer's own logging: a save at step 4, between steps 4 and 5).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HealthEvent } from '../../src/health/index.js';
import { TrainerLogReader } from '../../src/trainer-log/index.js';

const LOG = readFileSync('/work/shared/fixtures/areal-logs/run-a/main.log');
const brief = (e: HealthEvent) => `${e.type}@${'time' in e ? e.time : ''}`;

/** What the cockpit's follower does with each chunk: one reader, its events in order. */
function followed(cuts: number[]): HealthEvent[] {
  const out: HealthEvent[] = [];
  const reader = new TrainerLogReader({ lines: false });
  let at = 0;
  for (const c of [...cuts, LOG.length]) {
    out.push(...reader.push(LOG.subarray(at, c)).events);
    at = c;
  }
  out.push(...reader.end().events);
  return out;
}

describe('checkpoint saves among the records', () => {
  const whole = followed([]).map(brief);

  it('the fixture has its save, between step 4 and step 5', () => {
    const save = whole.indexOf('save@2026-05-25T13:02:18.087');
    expect(save).toBeGreaterThan(whole.indexOf('step@2026-05-25T12:51:22.519'));
    expect(save).toBeLessThan(whole.indexOf('step@2026-05-25T13:02:20.716'));
  });

  it('in one chunk, in chunks cut inside the save line, and in 4 KiB chunks: the same order as the whole log', () => {
    const saveAt = LOG.indexOf('Saving HF');
    expect(followed([saveAt - 30, saveAt + 5, saveAt + 40]).map(brief)).toEqual(whole);
    const small = Array.from({ length: Math.floor(LOG.length / 4096) }, (_, i) => (i + 1) * 4096);
    expect(followed(small).map(brief)).toEqual(whole);
  });

  it('a save with nothing after it yet is not held back (a trainer stuck while saving is seen saving)', () => {
    const end = LOG.indexOf('\n', LOG.indexOf('Saving HF')) + 1;
    const reader = new TrainerLogReader({ lines: false });
    const events = reader.push(LOG.subarray(0, end)).events;
    expect(events.filter((e) => e.type === 'save').map(brief)).toEqual(['save@2026-05-25T13:02:18.087']);
    expect(events.at(-1)?.type).toBe('save');
  });
});
