// How one run's log is read: a long log backfilled through the target-side filter, then followed
// from that byte; every followed byte also feeds the trainer-lines ring (the log pane's default
// view) through one stream. Apart from the feed because reading the log is one concern (offsets,
// the parser, the seam after a backfill) and deciding when to read it (the run ended, was resumed)
// is another: the feed pauses and resumes this, and it picks up where it stopped.
import type { FollowEvent, FollowProblem, Transport } from '../../remote/transport.js';
import { followRun, type RunFollower } from '../../runs/index.js';
import type { TrainerLogParser } from '../../trainer-log/index.js';
import type { HealthEvent } from '../../health/index.js';
import type { TrainerEvent } from '../../trainer-log/events.js';
import { CheckpointSaves } from '../../runs/checkpoint-saves.js';
import { backfill, readTail } from './backfill.js';
import { errorText } from './error-text.js';
import { TrainerLineRing } from './trainer-lines.js';
import type { LogLine, LogReadEnd, TrainerLinesView } from './types.js';

/** Raw log read before the backfill's seam for the trainer-lines pane (the filter drops table rows). */
const TAIL_BYTES = 256 * 1024;

/** The transport, with every `follow` delivery also handed to `tap` first (the parser's follower and
 *  the trainer-lines ring read the same bytes: one stream over the network, not two). A Proxy, so
 *  the Transport contract can grow without this wrapper falling behind. */
export function teeFollow(t: Transport, tap: (e: FollowEvent) => void, after?: (e: FollowEvent) => void): Transport {
  const follow: Transport['follow'] = (path, fromOffset, onEvent) =>
    t.follow(path, fromOffset, (e) => {
      tap(e);
      onEvent(e);
      after?.(e);
    });
  return new Proxy(t, {
    get(target, prop) {
      if (prop === 'follow') return follow;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export interface RunLogFollowOptions {
  transport: Transport;
  logPath: string;
  /** Logs larger than this are backfilled through the target-side filter (default 2 MiB). */
  backfillThresholdBytes?: number;
  clock: () => number;
  /** A record read (backfilled ones with notify false: one notification for the whole burst);
   *  checkpoint saves among them, in log order. */
  ingest(e: HealthEvent, notify: boolean): void;
  /** A line for the event log about the reading itself (backfill figures, a reset). */
  note(level: LogLine['level'], text: string): void;
  /** Raw bytes reached the trainer-lines ring (a table still arriving has no record yet). */
  rawArrived(): void;
  /** The raw bytes themselves, once each (null: the log was reset): the Ray bring-up lines. */
  rawBytes?(bytes: Buffer | null): void;
}

export class RunLogFollow {
  private readonly trainer = new TrainerLineRing();
  /** Bytes of the log the trainer ring has read (overlaps after a reconnect are cut by offset). */
  private rawOffset = 0;
  private follower: RunFollower | null = null;
  /** Where a paused follower stopped, with its parser (its open records stay open). */
  private resumeFrom: { offset: number; parser: TrainerLogParser } | null = null;
  private closed = false;
  /** Why the log cannot be followed right now (null: it is, or nothing went wrong). */
  private trouble: FollowProblem | null = null;
  /** Checkpoint saves in the followed bytes, merged into the parser's records. */
  private readonly saves: CheckpointSaves;

  constructor(private readonly o: RunLogFollowOptions) {
    this.saves = new CheckpointSaves((e, notify) => o.ingest(e, notify));
  }

  /** The log cannot be followed although the connection works (the header and status line say so). */
  get problem(): FollowProblem | null {
    return this.trouble;
  }

  /** Backfill a long log through the target-side filter, then follow from where it ended. */
  async attach(): Promise<void> {
    const { transport, logPath } = this.o;
    let fromOffset = 0;
    let parser: TrainerLogParser | undefined;
    const threshold = this.o.backfillThresholdBytes ?? 2 * 1024 * 1024;
    try {
      const st = await transport.stat(logPath);
      if (st && st.size > threshold) {
        const started = this.o.clock();
        const b = await backfill(transport, logPath, st.size);
        for (const e of b.events) this.o.ingest(e, false);
        fromOffset = b.offset;
        parser = b.parser;
        this.o.note('info', `history: ${(b.coveredBytes / 1048576).toFixed(1)} MiB of log backfilled with ${(b.sentBytes / 1048576).toFixed(2)} MiB sent (${b.events.length} records, ${this.o.clock() - started} ms)`);
        await this.loadTail(b.offset);
      }
    } catch (err) {
      // Fall back to reading the whole log: slower, never wrong.
      this.o.note('warning', `backfill failed (${errorText(err)}): reading the whole log`);
      fromOffset = 0;
      parser = undefined;
    }
    if (this.closed) return;
    this.rawOffset = fromOffset;
    this.follow(fromOffset, parser);
  }

  /** A follower exists (a backfill may still be running before it does). */
  get following(): boolean {
    return this.follower !== null;
  }

  /** Bytes of the log the trainer-lines ring has read. */
  get offset(): number {
    return this.rawOffset;
  }

  trainerLines(): TrainerLinesView {
    return this.trainer.view();
  }

  /**
   * Wait (up to 15 s) until everything written is read, then close the records still open: a
   * dying trainer's traceback is the last thing it writes, and the parser closes an error record
   * only when the next record starts, which never comes. Returns the closed records and how far
   * the log was read (the header must not say "read to its end" of a log it could not read); null
   * when closed meanwhile.
   */
  async readToEnd(): Promise<{ closed: TrainerEvent[]; end: LogReadEnd } | null> {
    const deadline = Date.now() + 15_000;
    let end: LogReadEnd = 'incomplete';
    for (;;) {
      if (this.closed) return null;
      const f = this.follower;
      // undefined: stat failed (the connection); null: there is no log.
      const st = f ? await this.o.transport.stat(this.o.logPath).catch(() => undefined) : undefined;
      if (f && st === null) end = 'missing';
      else if (f && st && f.offset >= st.size) end = 'read';
      if (end !== 'incomplete' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Not read to its end while the follower reports why: the log cannot be read.
    if (end === 'incomplete' && this.trouble) end = 'unreadable';
    return { closed: this.follower?.parser.flushIdle() ?? [], end };
  }

  /** Stop following, keeping the offset and parser for `resume`. */
  pause(): void {
    const f = this.follower;
    if (!f) return;
    this.resumeFrom = { offset: f.offset, parser: f.parser };
    f.close();
    this.follower = null;
  }

  /** Follow again from where `pause` stopped. */
  resume(): void {
    const from = this.resumeFrom;
    this.resumeFrom = null;
    this.follow(from?.offset ?? this.rawOffset, from?.parser);
  }

  close(): void {
    this.closed = true;
    this.follower?.close();
  }

  private follow(fromOffset: number, parser: TrainerLogParser | undefined): void {
    // The saves scanner reads each chunk before the parser does, and lets out what is left after.
    const flushSaves = (e: FollowEvent) => e.type === 'data' && !this.closed && this.saves.flush(true);
    this.follower = followRun(teeFollow(this.o.transport, (e) => this.tapRaw(e), flushSaves), this.o.logPath, {
      fromOffset,
      parser,
      onEvent: (e) => this.saves.event(e, true),
      onReset: (reason) => this.o.note('warning', `log ${reason}: following it from the start`),
      onProblem: (p) => (p ? this.problemStarted(p) : this.problemCleared()),
    });
  }

  /** Said once per problem (a follower that starts again with the same error says nothing new);
   *  in the event log and among the trainer's lines (the pane shown by default). */
  private problemStarted(p: FollowProblem): void {
    const same = this.trouble?.text === p.text;
    this.trouble = p;
    if (same) return this.o.rawArrived();
    this.trainer.note(`— ${p.text} —`, 'warning');
    this.o.note('warning', p.text);
  }

  private problemCleared(): void {
    if (!this.trouble) return;
    this.trouble = null;
    this.trainer.note(`— reading ${this.o.logPath} again —`);
    this.o.note('info', `reading ${this.o.logPath} again`);
  }

  /** The raw lines just before `end` (the seam where following starts), for the trainer pane. */
  private async loadTail(end: number): Promise<void> {
    const from = Math.max(0, end - TAIL_BYTES);
    try {
      const { bytes, midLog, insideLine } = await readTail(this.o.transport, this.o.logPath, from, end);
      if (midLog) this.trainer.startMidLog(insideLine);
      this.trainer.push(bytes);
      this.o.rawBytes?.(bytes);
    } catch {
      // Following starts at a line boundary: the pane's lines simply begin there.
      this.trainer.startMidLog(false);
    }
  }

  private tapRaw(e: FollowEvent): void {
    if (this.closed || e.type === 'problem') return;
    // A problem a paused follower left standing (an ended run's log that could not be read) is
    // over once its successor reads: that follower never reported it, so it never clears it.
    if (this.trouble) this.problemCleared();
    if (e.type === 'reset') {
      // A new run's log appears after following started: nothing was shown, nothing to say.
      this.trainer.reset(e.reason === 'appeared' && this.rawOffset === 0 ? null : e.reason);
      this.saves.reset();
      this.rawOffset = 0;
      this.o.rawBytes?.(null);
      return;
    }
    const end = e.offset + e.bytes.length;
    if (end <= this.rawOffset) return;
    const fresh = e.offset < this.rawOffset ? e.bytes.subarray(this.rawOffset - e.offset) : e.bytes;
    this.trainer.push(fresh);
    this.saves.push(fresh);
    this.o.rawBytes?.(fresh);
    this.rawOffset = end;
    // The follower's events mark the view dirty and notify; a chunk without a complete record
    // (a table still arriving) must still reach the pane.
    this.o.rawArrived();
  }
}
