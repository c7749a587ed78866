// A baseline overlay's other time axes (`t`): points moved from global steps to their run's
// training hours or samples consumed, a point whose axis value is unknown left out.
import { describe, expect, it } from 'vitest';
import { onAxis, RunSteps, samplesConsumed, trainingHours } from '../../src/metrics/run-steps.js';
import type { TrainerEvent } from '../../src/trainer-log/events.js';
import { stepEvent } from '../harness/step-event.js';

const t = (min: number) => `2026-12-01T10:${String(min).padStart(2, '0')}:00.000`;
const step = (g: number, min: number): TrainerEvent => stepEvent(g, 20, t(min), {});
const batch = (episodes: number | null): TrainerEvent => ({
  type: 'batch',
  waitS: 1,
  totalS: 2,
  episodes,
  time: t(0),
  role: 'rollout',
});

describe('points on another time axis', () => {
  // Steps 1–3 every 6 min from a start at 0; a crash, a resume at minute 50 redoing step 3 at 56.
  const r = new RunSteps({ keys: [] });
  for (const e of [
    { type: 'start', time: t(0) },
    batch(32),
    step(1, 6),
    batch(32),
    step(2, 12),
    batch(32),
    step(3, 18),
    { type: 'resume', time: t(50) },
    batch(16),
    step(3, 56),
    batch(16),
    step(4, 59),
  ] as TrainerEvent[])
    r.ingest(e);
  const v = r.view();

  it('by training hours the downtime between the crash and the resume is not counted', () => {
    const p = onAxis({ steps: [1, 2, 3, 4], values: [0.1, 0.2, 0.3, 0.4] }, v, trainingHours(v));
    expect(p).toEqual({ steps: [0.1, 0.2, 0.3, 0.35], values: [0.1, 0.2, 0.3, 0.4] });
  });

  // 32 + 32 for steps 1–2, then the redone step 3 and step 4 at 16 each (the first step 3's 32 dropped).
  it('by samples consumed the resumed steps count their own batches', () => {
    const p = onAxis({ steps: [2, 4], values: [0.2, 0.4] }, v, samplesConsumed(v));
    expect(p).toEqual({ steps: [64, 96], values: [0.2, 0.4] });
  });

  it('a point whose step the run lacks or whose axis value is unknown is left out, never guessed', () => {
    const noBatch = new RunSteps({ keys: [] });
    for (const e of [
      { type: 'start', time: t(0) },
      batch(8),
      step(1, 1),
      step(2, 2),
      batch(8),
      step(3, 3),
    ] as TrainerEvent[])
      noBatch.ingest(e);
    const w = noBatch.view();
    expect(onAxis({ steps: [1, 2, 3, 7], values: [1, 2, 3, 7] }, w, samplesConsumed(w))).toEqual({
      steps: [8],
      values: [1],
    });
  });
});
