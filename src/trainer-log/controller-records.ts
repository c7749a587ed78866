// The controller's records that carry a fact for the dashboard (memory, batch timing, start,
// resume, finish), recognised by their message. Only the controller's own (main) records count:
// a worker writing the same words is not the run starting or ending.
import type { TrainerEvent } from './events.js';
import type { RecordHeader } from './header.js';
import { MEMORY, RECOVER, parseBatch } from './classify.js';

/** The event of a controller record, or null when it is not one of those. */
export function controllerEvent(h: RecordHeader): TrainerEvent | null {
  const msg = h.message;
  const time = h.time;
  if (msg.startsWith('Memory-Usage ')) {
    const m = MEMORY.exec(msg);
    if (m) return { type: 'memory', phase: m[1], allocatedGB: num(m[2]), reservedGB: num(m[3]), usedGB: num(m[4]), totalGB: num(m[5]), time };
  } else if (msg.startsWith('prepare_batch/rollout:')) {
    const b = parseBatch(msg);
    if (b) return { type: 'batch', waitS: b.waitS, totalS: b.totalS, episodes: b.episodes, time };
  } else if (msg.startsWith('Training completes!')) {
    return { type: 'finished', time };
  } else if (msg.startsWith('Resume info not found')) {
    return { type: 'start', time };
  } else if (msg.includes('Recovering from StepInfo(')) {
    const m = RECOVER.exec(msg);
    if (m) return { type: 'resume', resumeStep: Number(m[1]) + 1, time };
  }
  return null;
}

function num(s: string): number {
  return Number(s);
}
