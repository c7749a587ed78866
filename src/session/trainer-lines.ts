// The trainer's own lines for the log pane, like `tail -f`: the last N lines of the followed log.
// The lines are read (split once, decoded, ANSI stripped, tables collapsed, a level each) by the
// one reader of the log's bytes, src/trainer-log's TrainerLogReader (its LogLineReader); this is
// only the ring that keeps them, with the notes the cockpit adds. Memory is constant over days.
import type { LogLine } from '../trainer-log/index.js';
import type { TrainerLine, TrainerLinesView } from './types.js';

export const TRAINER_RING = 500;

export class TrainerLineRing {
  private readonly ring: (TrainerLine | undefined)[];
  private head = 0;
  private size = 0;
  private seq = 0;
  private dropped = 0;
  private startsMidLog = false;
  private cached: TrainerLinesView | null = null;

  constructor(readonly capacity = TRAINER_RING) {
    this.ring = new Array(capacity);
  }

  /** The lines that follow come from the middle of the log (an earlier part was not read). */
  startMidLog(): void {
    this.startsMidLog = true;
    this.cached = null;
  }

  /** Lines the reader completed, in order. */
  add(lines: readonly LogLine[]): void {
    for (const l of lines) this.append(l);
  }

  /** The log was truncated or replaced (the reader dropped what it held of the old one): the pane
   *  says so (`reason` null: silently, e.g. the log appearing before anything was read). */
  reset(reason: string | null): void {
    if (reason)
      this.append({ level: 'warning', text: `— log ${reason}: reading it again from the start —`, kind: 'note' });
  }

  /** A line the cockpit itself adds (backfill figures, a failure to read). */
  note(text: string, level: TrainerLine['level'] = 'info'): void {
    this.append({ level, text, kind: 'note' });
  }

  /** Oldest first; the same object until something changes (one copy per change, not per frame). */
  view(): TrainerLinesView {
    if (this.cached) return this.cached;
    const lines: TrainerLine[] = new Array(this.size);
    const first = (this.head - this.size + this.capacity) % this.capacity;
    for (let i = 0; i < this.size; i++) lines[i] = this.ring[(first + i) % this.capacity]!;
    this.cached = { lines, startsMidLog: this.startsMidLog, dropped: this.dropped };
    return this.cached;
  }

  private append(line: Omit<TrainerLine, 'seq'>): void {
    this.ring[this.head] = { seq: ++this.seq, ...line };
    this.head = (this.head + 1) % this.capacity;
    if (this.size < this.capacity) this.size++;
    else this.dropped++;
    this.cached = null;
  }
}
