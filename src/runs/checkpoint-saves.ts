// The trainer's `Saving … checkpoints (…, step=N)` records, merged into the parser's records in log
// order. They are INFO records the event contract has no event for, but the health rules need them:
// they date the last recover checkpoint (the Slurm wall-time rule: without them the recover timer
// would seem to run from the trainer's start, and a checkpoint due in ~50 min would read as due
// now) and start the save phase. src/health's scanner finds them in the same bytes the parser
// reads; the parser holds each record until the next header while the scanner reports at once, so
// a save waits for the first record after it (mergeSaves' rule), or the end of the chunk.
// Used by the cockpit's follower and by `follow` (followRun's onSave).
import { CheckpointSaveScanner, type CheckpointSaveEvent, type HealthEvent } from '../health/index.js';
import type { TrainerEvent } from '../trainer-log/events.js';

export class CheckpointSaves {
  private readonly scanner = new CheckpointSaveScanner();
  private pending: CheckpointSaveEvent[] = [];

  constructor(private readonly ingest: (e: HealthEvent, notify: boolean) => void) {}

  /** Log bytes, in order, before the parser reads them. */
  push(bytes: Uint8Array): void {
    this.pending.push(...this.scanner.push(bytes));
  }

  /** A parser record: the saves written before it go first. */
  event(e: TrainerEvent, notify: boolean): void {
    while (this.pending.length && e.time !== null && this.pending[0].time < e.time) this.ingest(this.pending.shift()!, notify);
    this.ingest(e, notify);
  }

  /** The parser has read the chunk: saves after its last record go now (a trainer stuck while
   *  saving must be seen saving). */
  flush(notify: boolean): void {
    const saves = this.pending;
    this.pending = [];
    for (const s of saves) this.ingest(s, notify);
  }

  /** End of input (the parser's end() was read): a last save line without its newline counts. */
  end(notify: boolean): void {
    this.pending.push(...this.scanner.end());
    this.flush(notify);
  }

  /** The log was truncated or replaced: a partial line is dropped with the parser's. */
  reset(): void {
    this.scanner.reset();
    this.pending = [];
  }
}
