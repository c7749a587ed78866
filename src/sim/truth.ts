// Ground truth: what the simulator wrote, as the events a correct parser must give back (the event
// contract of src/trainer-log/events.ts, values exactly as printed). `where` says which outputs carry
// the record, so a test can compare main.log, merged.log and stdout separately. Pure types.
import type { MemoryEvent, TrainerEvent } from '../trainer-log/events.js';
import { eventTime } from './pyfmt.js';

export type Output = 'main' | 'merged' | 'stdout';

export type TruthEvent = TrainerEvent & { where: Output[] };

/** Truth for one output, without the bookkeeping field. */
export function truthFor(all: readonly TruthEvent[], out: Output): TrainerEvent[] {
  return all.filter((e) => e.where.includes(out)).map(({ where: _w, ...e }) => e as TrainerEvent);
}

/** A worker's own Memory-Usage record as the parser gives it back (SimOutput sets its source). */
export function workerMemoryEvent(
  m: { allocatedGB: number; reservedGB: number; usedGB: number; totalGB: number },
  phase: string,
  timeMs: number,
): MemoryEvent {
  return {
    type: 'memory',
    phase,
    allocatedGB: m.allocatedGB,
    reservedGB: m.reservedGB,
    usedGB: m.usedGB,
    totalGB: m.totalGB,
    time: eventTime(timeMs),
  };
}
