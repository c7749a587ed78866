// The log pane's lines as the cockpit makes them (for tests): the one reader of the log's bytes
// (src/trainer-log's LogLineReader, inside the watch's TrainerLogReader) reads, the ring keeps.
import { LogLineReader } from '../../src/trainer-log/index.js';
import { TrainerLineRing } from '../../src/session/trainer-lines.js';
import type { TrainerLinesView } from '../../src/session/types.js';

export class PaneLines {
  readonly ring: TrainerLineRing;
  private readonly reader = new LogLineReader();

  constructor(capacity?: number) {
    this.ring = new TrainerLineRing(capacity);
  }

  push(bytes: Uint8Array): void {
    this.ring.add(this.reader.push(bytes));
  }

  /** The bytes that follow come from the middle of the log (`insideLine`: inside a line). */
  startMidLog(insideLine: boolean): void {
    this.ring.startMidLog();
    if (insideLine) this.reader.startInsideLine();
  }

  reset(reason: string | null): void {
    this.reader.reset();
    this.ring.reset(reason);
  }

  view(): TrainerLinesView {
    return this.ring.view();
  }
}
