// The trainer's checkpoint saves reach the cockpit's records in log order, however the followed
// bytes are cut: the same sequence as src/health's mergeSaves over the whole log at once (the
// fixture, written by the trainer's own logging: a save at step 4, between steps 4 and 5).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CheckpointSaveScanner, mergeSaves, type HealthEvent } from '../../src/health/index.js';
import { TrainerLogParser } from '../../src/trainer-log/index.js';
import { CheckpointSaves } from '../../src/runs/checkpoint-saves.js';

const LOG = readFileSync('/work/shared/fixtures/areal-logs/run-a/main.log');
const brief = (e: HealthEvent) => `${e.type}@${'time' in e ? e.time : ''}`;

/** What the cockpit's follower does with each chunk: saves scanned first, parser records merged, rest flushed. */
function followed(cuts: number[]): HealthEvent[] {
  const out: HealthEvent[] = [];
  const parser = new TrainerLogParser();
  const saves = new CheckpointSaves((e) => out.push(e));
  let at = 0;
  for (const c of [...cuts, LOG.length]) {
    const chunk = LOG.subarray(at, c);
    at = c;
    saves.push(chunk);
    for (const e of parser.push(chunk)) saves.event(e, true);
    saves.flush(true);
  }
  for (const e of parser.end()) saves.event(e, true);
  saves.flush(true);
  return out;
}

describe('CheckpointSaves', () => {
  const whole = (() => {
    const parser = new TrainerLogParser();
    const events = [...parser.push(LOG), ...parser.end()];
    return mergeSaves(events, new CheckpointSaveScanner().push(LOG)).map(brief);
  })();

  it('the fixture has its save, between step 4 and step 5', () => {
    const save = whole.indexOf('save@2026-05-25T13:02:18.087');
    expect(save).toBeGreaterThan(whole.indexOf('step@2026-05-25T12:51:22.519'));
    expect(save).toBeLessThan(whole.indexOf('step@2026-05-25T13:02:20.716'));
  });

  it('in one chunk, in chunks cut inside the save line, and in 4 KiB chunks: the same order as the whole log', () => {
    const saveAt = LOG.indexOf('Saving HF');
    expect(followed([]).map(brief)).toEqual(whole);
    expect(followed([saveAt - 30, saveAt + 5, saveAt + 40]).map(brief)).toEqual(whole);
    const small = Array.from({ length: Math.floor(LOG.length / 4096) }, (_, i) => (i + 1) * 4096);
    expect(followed(small).map(brief)).toEqual(whole);
  });

  it('a save with nothing after it yet is not held back (a trainer stuck while saving is seen saving)', () => {
    const end = LOG.indexOf('\n', LOG.indexOf('Saving HF')) + 1;
    const out: HealthEvent[] = [];
    const saves = new CheckpointSaves((e) => out.push(e));
    saves.push(LOG.subarray(0, end));
    saves.flush(true);
    expect(out.map(brief)).toEqual(['save@2026-05-25T13:02:18.087']);
  });
});
