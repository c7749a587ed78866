// The trainer logs `RLTrainer INFO: Saving HF + DCP checkpoints (periodic (1200s), step=4)` when it
// starts writing a checkpoint. The shared event contract has no event for it (it is an INFO record),
// but the health rules need it: it ends the update_weights phase and starts the save phase, and it
// dates the last recover checkpoint for the Slurm wall-time rule. This small scanner finds those
// records in the same bytes the parser reads, so callers can merge its events into the stream.

/** A controller `Saving … checkpoint(s)` record. */
export interface CheckpointSaveEvent {
  type: 'save';
  time: string;
  /** The `step=N` the record names (0-based, as the trainer prints it), when present. */
  step?: number;
  /** The text between `Saving` and the end of the line, e.g. `HF + DCP checkpoints (periodic (1200s), step=4)`. */
  what: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
// Controller records only: no prefix (main.log, stdout) or merged.log's `[main]    `. Worker lines
// (`[actor]   `, Ray's `(RayRPCServer pid=…)`) are other processes' saves of their own shards.
const SAVE = /^(?:\[main\] *)?\(AReaL\) (\d{4})(\d{2})(\d{2})-(\d{2}:\d{2}:\d{2}\.\d{3}) .*? INFO: Saving (.*\bcheckpoints?\b.*)$/i;
const STEP = /\bstep=(\d+)/;

/** Parses one physical line; null unless it is a controller checkpoint-save record. */
export function parseSaveLine(line: string): CheckpointSaveEvent | null {
  if (!line.includes('Saving')) return null; // fast path: almost every line
  const m = SAVE.exec(line.replace(ANSI, '').replace(/\r$/, ''));
  if (!m) return null;
  const what = m[5].trim();
  const step = STEP.exec(what);
  const ev: CheckpointSaveEvent = { type: 'save', time: `${m[1]}-${m[2]}-${m[3]}T${m[4]}`, what };
  if (step) ev.step = Number(step[1]);
  return ev;
}

/** Whole text at once. */
export function findCheckpointSaves(text: string): CheckpointSaveEvent[] {
  const out: CheckpointSaveEvent[] = [];
  for (const line of text.split('\n')) {
    const ev = parseSaveLine(line);
    if (ev) out.push(ev);
  }
  return out;
}

/** Incremental form: chunks cut anywhere; a line longer than `maxLineBytes` is skipped, not held.
 *  It searches the raw bytes for `Saving` and decodes only those lines: the cockpit reads days of
 *  logs, almost none of it checkpoint records. */
export class CheckpointSaveScanner {
  private static readonly NEEDLE = Buffer.from('Saving');
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private skipping = false;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly maxLineBytes = 64 * 1024) {}

  push(chunk: Uint8Array): CheckpointSaveEvent[] {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: CheckpointSaveEvent[] = [];
    let start = 0;
    if (this.partialBytes > 0 || this.skipping) {
      const nl = buf.indexOf(10);
      if (nl < 0) {
        this.take(buf);
        return out;
      }
      this.take(buf.subarray(0, nl));
      if (!this.skipping) this.emit(Buffer.concat(this.partial), out);
      this.reset();
      start = nl + 1;
    }
    const lastNl = buf.lastIndexOf(10);
    if (lastNl >= start) {
      for (let k = buf.indexOf(CheckpointSaveScanner.NEEDLE, start); k >= 0 && k < lastNl; ) {
        const ls = Math.max(start, buf.lastIndexOf(10, k) + 1);
        const le = buf.indexOf(10, k);
        if (le - ls <= this.maxLineBytes) this.emit(buf.subarray(ls, le), out);
        k = buf.indexOf(CheckpointSaveScanner.NEEDLE, le + 1);
      }
      start = lastNl + 1;
    }
    if (start < buf.length) this.take(buf.subarray(start));
    return out;
  }

  /** End of input: a last line without a newline still counts. */
  end(): CheckpointSaveEvent[] {
    const out: CheckpointSaveEvent[] = [];
    if (!this.skipping && this.partialBytes > 0) this.emit(Buffer.concat(this.partial), out);
    this.reset();
    return out;
  }

  /** Drop a partial line (the followed file was truncated or replaced). */
  reset(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.skipping = false;
  }

  private take(bytes: Uint8Array): void {
    if (this.skipping) return;
    if (this.partialBytes + bytes.length > this.maxLineBytes) {
      this.skipping = true;
      this.partial = [];
      this.partialBytes = 0;
      return;
    }
    this.partial.push(Buffer.from(bytes)); // a copy: the caller may reuse its chunk
    this.partialBytes += bytes.length;
  }

  private emit(line: Uint8Array, out: CheckpointSaveEvent[]): void {
    const ev = parseSaveLine(this.decoder.decode(line));
    if (ev) out.push(ev);
  }
}
