// Bytes in, health out: the trainer-log parser and the checkpoint-save scanner read the same bytes,
// their events are merged in record order and fed to a HealthMonitor. For a caller that has bytes
// (a followed log); a caller that already has parser events can ingest them into HealthMonitor
// directly (without save records the save phase is then counted in update_weights).
import { TrainerLogParser } from '../trainer-log/index.js';
import type { TrainerEvent } from '../trainer-log/events.js';
import { HealthMonitor } from './monitor.js';
import type { HealthEvent } from './phases.js';
import { CheckpointSaveScanner, type CheckpointSaveEvent } from './save-records.js';

/**
 * Interleaves save events into parser events by time. The parser holds a record until the next
 * header arrives while the scanner reports a save line at once, so a save can come out of a push
 * before the record that precedes it does; ordering by timestamp undoes that. Saves left over
 * (nothing later in this push) go last: a trainer stuck while saving must be seen in `save`.
 */
export function mergeSaves(events: readonly TrainerEvent[], saves: readonly CheckpointSaveEvent[]): HealthEvent[] {
  if (saves.length === 0) return [...events];
  const out: HealthEvent[] = [];
  let i = 0;
  for (const e of events) {
    const t = e.time;
    while (t !== null && i < saves.length && saves[i].time < t) out.push(saves[i++]);
    out.push(e);
  }
  while (i < saves.length) out.push(saves[i++]);
  return out;
}

export class HealthFeed {
  readonly monitor: HealthMonitor;
  private readonly parser: TrainerLogParser;
  private readonly saves = new CheckpointSaveScanner();

  constructor(monitor = new HealthMonitor(), parser = new TrainerLogParser()) {
    this.monitor = monitor;
    this.parser = parser;
  }

  /** Feeds a chunk; returns the parser's events (for a store that wants them too). */
  push(chunk: Uint8Array): TrainerEvent[] {
    const events = this.parser.push(chunk);
    this.monitor.ingestAll(mergeSaves(events, this.saves.push(chunk)));
    return events;
  }

  end(): TrainerEvent[] {
    const events = this.parser.end();
    this.monitor.ingestAll(mergeSaves(events, this.saves.end()));
    return events;
  }

  /** The followed file was truncated or replaced: drop partial records and lines. */
  reset(): void {
    this.parser.reset();
    this.saves.reset();
  }
}
