// JSON Lines form of an event: `type` first, then the fields in contract order (the parser builds
// every event with `type` as its first property, so JSON.stringify keeps that order).
// Non-finite numbers (inf in a stats table) become null, as JSON has no spelling for them.
// Step events from the parser carry the printed text of their values (`1.2345e-03` is already a
// JSON number): writing those texts is several times cheaper than formatting 200 doubles.
import type { StepEvent, TrainerEvent } from './events.js';
import { rawStatsOf } from './stats-shapes.js';
import { jsonNum as num, stepHeadJson } from './json-sink.js';

export function eventToJsonLine(e: TrainerEvent): string {
  if (e.type === 'step') {
    const raw = rawStatsOf(e.stats);
    if (raw !== undefined) return stepJson(e, raw.prefixes, raw.raws, raw.values);
  }
  return JSON.stringify(e);
}

function stepJson(e: StepEvent, prefixes: string[], raws: (string | undefined)[], values: (number | null)[]): string {
  // One flat string from an array join: `+=` would build a rope of 400 pieces per step.
  const parts: string[] = new Array(prefixes.length * 2 + 2);
  parts[0] = stepHeadJson(e);
  let j = 1;
  for (let i = 0; i < prefixes.length; i++) {
    const r = raws[i];
    parts[j++] = i > 0 ? ',' + prefixes[i] : prefixes[i];
    parts[j++] = r !== undefined ? r : num(values[i]);
  }
  parts[j] = '}}';
  return parts.join('');
}
