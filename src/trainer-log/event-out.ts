// Where the parser's events go: returned as objects (TrainerLogParser), or written straight to a
// JsonSink as JSON Lines (JsonLinesParser). One object shared by the parser and its parts (the
// writers' records, the pending step), so they all emit in the one order of the input.
import type { TrainerEvent, WarningEvent, WarningKind } from './events.js';
import { smallEventJson, type JsonSink } from './json.js';
import { eventToJsonLine } from './event-json.js';

export class EventOut {
  /** The events of the current push/end/flushIdle call (when there is no sink). */
  private list: TrainerEvent[] = [];

  /** sink: when set, events are written there as JSON Lines instead of returned. */
  constructor(readonly sink: JsonSink | null) {}

  /** Starts a call's list of events; the parser returns it when the call is done. */
  begin(): TrainerEvent[] {
    return (this.list = []);
  }

  emit(ev: TrainerEvent): void {
    if (this.sink !== null) this.sink.line(smallEventJson(ev) ?? eventToJsonLine(ev));
    else this.list.push(ev);
  }

  warn(kind: WarningKind, message: string, time: string | null, source: string): void {
    const ev: WarningEvent = { type: 'warning', message, kind, time, source };
    this.emit(ev);
  }
}
