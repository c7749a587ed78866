// JSON Lines form of an event: `type` first, then the fields in contract order (the parser builds
// every event with `type` as its first property, so JSON.stringify keeps that order).
// Non-finite numbers (inf in a stats table) become null, as JSON has no spelling for them.
import type { TrainerEvent } from './events.js';

export function eventToJsonLine(e: TrainerEvent): string {
  return JSON.stringify(e);
}
