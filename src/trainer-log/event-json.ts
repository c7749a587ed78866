// JSON Lines form of events: `type` first, then the fields in contract order (the parser builds
// every event with `type` as its first property, so JSON.stringify keeps that order). A step from
// the parser carries the printed bytes of its values (`1.2345e-03` is already a JSON number, and
// nan, inf, -inf are written as the strings the trainer printed): its line is copied from those
// bytes, several times cheaper than formatting 200 doubles or joining 400 strings.
import type { StepEvent, TrainerEvent } from './events.js';
import { JsonSink, nonFiniteText } from './json.js';
import { printedStatsOf } from './stats-shapes.js';
import { writeStepJson } from './step-json.js';

/** Where eventToJsonLine writes a step's line before it becomes a string. */
const scratch = new JsonSink();

export function eventToJsonLine(e: TrainerEvent): string {
  if (e.type !== 'step') return JSON.stringify(e);
  if (writePrinted(scratch, e)) {
    const line = scratch.take();
    // Without its newline; UTF-8 (keys may be any text).
    return Buffer.from(line.buffer, line.byteOffset, line.length - 1).toString('utf8');
  }
  const stats = e.stats;
  return JSON.stringify(e, function (this: unknown, _key: string, v: unknown) {
    return this === stats && typeof v === 'number' && !Number.isFinite(v) ? nonFiniteText(v) : v;
  });
}

/** The event's JSON line and its newline, as UTF-8 bytes into `sink`: what eventToJsonLine gives,
 *  without a string for a step the parser read. */
export function writeEventJson(sink: JsonSink, e: TrainerEvent): void {
  if (e.type === 'step' && writePrinted(sink, e)) return;
  sink.line(eventToJsonLine(e));
}

/** A step with its printed values (stats-shapes.ts): its line written from them. */
function writePrinted(sink: JsonSink, e: StepEvent): boolean {
  const raw = printedStatsOf(e);
  if (raw === undefined) return false;
  writeStepJson(sink, e, raw.prefixes, raw.printed, { buf: raw.printed.bytes });
  return true;
}
