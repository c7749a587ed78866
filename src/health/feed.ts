// Bytes in, health out: src/trainer-log's reader gives the parser's events with the checkpoint
// saves among them in log order, fed to a HealthMonitor. For a caller that has bytes (a log read
// offline); a caller that already has the reader's events can ingest them into HealthMonitor
// directly (without save records the save phase is then counted in update_weights).
import { TrainerLogReader, type TrainerEvent } from '../trainer-log/index.js';
import { HealthMonitor } from './monitor.js';
import type { HealthEvent } from './phases.js';

export class HealthFeed {
  readonly monitor: HealthMonitor;
  private readonly reader = new TrainerLogReader({ lines: false });

  constructor(monitor = new HealthMonitor()) {
    this.monitor = monitor;
  }

  /** Feeds a chunk; returns the parser's events, saves left out (for a store that wants them too). */
  push(chunk: Uint8Array): TrainerEvent[] {
    return this.ingest(this.reader.push(chunk).events);
  }

  end(): TrainerEvent[] {
    return this.ingest(this.reader.end().events);
  }

  /** The followed file was truncated or replaced: drop partial records and lines. */
  reset(): void {
    this.reader.reset();
  }

  private ingest(events: HealthEvent[]): TrainerEvent[] {
    this.monitor.ingestAll(events);
    return events.filter((e): e is TrainerEvent => e.type !== 'save');
  }
}
