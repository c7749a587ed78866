import type { StepEvent } from '../../src/trainer-log/index.js';

/** Step `g` of a one-epoch run of `total` steps, recorded at `time` (the trainer's local ISO form)
 *  with these stats: the record every rule, store and panel test feeds in. */
export function stepEvent(g: number, total: number, time: string, stats: Record<string, number | null>): StepEvent {
  return {
    type: 'step',
    epoch: 1,
    epochs: 1,
    step: g,
    stepsPerEpoch: total,
    globalStep: g,
    totalSteps: total,
    time,
    stats,
  };
}

/** `HH:MM` of 2026-01-01 for `minute` minutes past midnight, as a record time. */
export function minuteOfDay(minute: number): string {
  const hh = String(Math.floor(minute / 60)).padStart(2, '0');
  const mm = String(minute % 60).padStart(2, '0');
  return `2026-01-01T${hh}:${mm}:00.000`;
}
