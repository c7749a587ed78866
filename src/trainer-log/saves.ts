// The controller's `Saving HF + DCP checkpoints (periodic (1200s), step=4)` record, written when it
// starts writing a checkpoint. The event contract (events.ts) has no event for it, but the health
// rules need it (it ends update_weights and starts the save phase; it dates the last recover
// checkpoint for the Slurm wall-time rule): the parser emits it with `checkpointSaves: true`, in
// log order, at its header (a trainer stuck while saving is seen saving). The same records as
// src/health/save-records.ts's line scanner finds: the controller's (unprefixed or merged.log's
// `[main]`), INFO, `Saving … checkpoint(s) …`.
import type { RecordHeader } from './header.js';

/** A controller `Saving … checkpoint(s)` record. */
export interface CheckpointSaveEvent {
  type: 'save';
  time: string;
  /** The `step=N` the record names (0-based, as the trainer prints it), when present. */
  step?: number;
  /** The text after `Saving `, e.g. `HF + DCP checkpoints (periodic (1200s), step=4)`. */
  what: string;
}

const SAVING = /^saving (.*\bcheckpoints?\b.*)$/i;
const STEP = /\bstep=(\d+)/;

/** The save event of a controller record header, or null. */
export function saveEvent(h: RecordHeader): CheckpointSaveEvent | null {
  if (h.level !== 'INFO' || (h.message.charCodeAt(0) | 0x20) !== 0x73 /* s */) return null;
  const m = SAVING.exec(h.message.trimEnd());
  if (!m) return null;
  const what = m[1].trim();
  const ev: CheckpointSaveEvent = { type: 'save', time: h.time, what };
  const step = STEP.exec(what);
  if (step) ev.step = Number(step[1]);
  return ev;
}
