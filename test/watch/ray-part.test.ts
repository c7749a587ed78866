// The watch's Ray bring-up part (src/watch/part-ray.ts) after an attach: the history's records (a
// digest's, handed on before following; none through a watch snapshot) came before any line the
// follower tells, so a bring-up line in the first delivery starts the phase whichever way the
// history was read, and only a record the follower reads after it ends the phase.
import { describe, expect, it } from 'vitest';
import { RayPhasePart } from '../../src/watch/part-ray.js';
import type { WatchCore } from '../../src/watch/watch-core.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import type { HealthEvent } from '../../src/health/index.js';
import type { LogLine } from '../../src/trainer-log/index.js';

const step: HealthEvent = {
  type: 'step',
  epoch: 1,
  epochs: 1,
  step: 1,
  stepsPerEpoch: 8,
  globalStep: 1,
  totalSteps: 8,
  time: '2026-12-01T00:00:00.000',
  stats: {},
};
const line = (text: string) => ({ text }) as LogLine;

function part(): { ray: RayPhasePart; told: WatchOutput[] } {
  const told: WatchOutput[] = [];
  const core = { emit: (o: WatchOutput) => void told.push(o) } as unknown as WatchCore;
  return { ray: new RayPhasePart(core), told };
}

describe('the Ray bring-up part after an attach', () => {
  it('counts only the records the follower read, not a backfilled history', () => {
    const lines = [line('awrl: starting Ray: 1/2 nodes joined'), line('(raylet) a worker line')];
    // Through a digest: the history's records first, backfilled.
    const viaDigest = part();
    for (let i = 0; i < 3; i++) viaDigest.ray.onRecord(step, true);
    viaDigest.ray.onLines(lines);
    // Through a snapshot: no record of the history at all.
    const viaSnapshot = part();
    viaSnapshot.ray.onLines(lines);
    for (const p of [viaDigest, viaSnapshot]) {
      expect(p.ray.current?.text).toBe('starting Ray: 1/2 nodes joined');
      expect(p.told.map((o) => (o.type === 'ray' ? (o.update?.text ?? null) : o.type))).toEqual([
        'starting Ray: 1/2 nodes joined',
      ]);
      // The trainer's first record the follower reads ends it.
      p.ray.onRecord(step, false);
      expect(p.ray.current).toBeNull();
    }
  });
});
