// The health rules on the real-format fixture (AReaL's own logging code): run-a crashes after step 6
// with an NCCL watchdog timeout two hours into waiting, then resumes at step 7 and finishes at 12.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HealthFeed, HealthMonitor, evaluateHealth } from '../../src/health/index.js';
import { TrainerLogReader, type ReaderEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const FIX = `${SHARED}fixtures/areal-logs/run-a`;

function eventsOf(name: string) {
  const bytes = readFileSync(`${FIX}/${name}`);
  const reader = new TrainerLogReader({ lines: false });
  return [...reader.push(bytes).events, ...reader.end().events];
}

/** The stream up to (not including) the first event matching `stop`. */
function until(name: string, stop: (e: ReaderEvent) => boolean) {
  const all = eventsOf(name);
  const i = all.findIndex(stop);
  return i < 0 ? all : all.slice(0, i);
}

describe('health on fixture run-a', () => {
  it.each(['main.log', 'merged.log', 'stdout.log'])('measures the phases of %s from record timestamps', (name) => {
    const m = new HealthMonitor();
    m.ingestAll(eventsOf(name));
    const phases = (m as unknown as { phases: { stats(p: string): { medianS: number | null; samples: number } } })
      .phases;
    // Steps 1–12 minus the first after each (re)start, which begins at the start record.
    expect(phases.stats('rollout_wait').samples).toBe(12);
    expect(phases.stats('update_weights').samples).toBe(12);
    // The two saves: 13:02:18.087 → 13:02:20.716 and 16:18:39.120 → 16:18:41.582.
    expect(phases.stats('save')).toEqual({ medianS: (2.629 + 2.462) / 2, samples: 2 });
    expect(m.currentPhase()).toBeNull(); // finished
  });

  it('names the phase when the trainer hangs after step 6 (before the NCCL timeout is logged)', () => {
    const events = until('main.log', (e) => e.type === 'error');
    const alerts = evaluateHealth(events, { now: '2026-05-25T13:45:00' });
    expect(alerts.map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
    expect(alerts[0].step).toBe(7);
    expect(alerts[0].detail).toMatch(/^rollout_wait has run 33 min \(median 9 min\): /);
    expect(evaluateHealth(events, { now: '2026-05-25T13:35:00' })).toEqual([]);
  });

  it('after the resume, waits 3× the median step for step 7', () => {
    const events = until('main.log', (e) => e.type === 'step' && e.globalStep === 7);
    expect(evaluateHealth(events, { now: '2026-05-25T15:50:00' }).map((a) => a.id)).toEqual([]);
    const late = evaluateHealth(events, { now: '2026-05-25T16:10:00' });
    expect(late.map((a) => a.id)).toContain('health/resume/no-progress');
    expect(late.find((a) => a.id === 'health/resume/no-progress')!.step).toBe(7);
  });

  it('the finished run raises nothing', () => {
    expect(evaluateHealth(eventsOf('merged.log'), { now: '2026-05-26T00:00:00', maxHeadOffpolicyness: 2 })).toEqual([]);
  });

  it('HealthFeed over random chunkings gives the same verdicts as the whole file', () => {
    const bytes = readFileSync(`${FIX}/stdout.log`);
    const cut = bytes.indexOf(Buffer.from('Training step failed'));
    const head = bytes.subarray(0, bytes.lastIndexOf(10, cut) + 1);
    let seed = 11;
    const rnd = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 10; round++) {
      const feed = new HealthFeed();
      for (let i = 0; i < head.length;) {
        const n = 1 + Math.floor(rnd() * 20000);
        feed.push(head.subarray(i, i + n));
        i += n;
      }
      const a = feed.monitor.evaluate({ now: '2026-05-25T13:45:00' });
      expect(a.map((x) => x.id)).toEqual(['health/stall/rollout_wait']);
      expect(feed.monitor.currentPhase()?.step).toBe(7);
    }
  });
});
