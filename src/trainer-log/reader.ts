// One pure reader of a followed trainer log: the bytes go in once, and out come the parser's events
// with the controller's checkpoint-save records among them in log order, and the cleaned lines a
// log pane shows, tables collapsed. The only reader of a run's log bytes: src/runs' follower and
// RunWatch, the cockpit's backfill and log pane (src/ui/session), src/health's HealthFeed.
import type { TrainerEvent } from './events.js';
import { TrainerLogParser, type ParserOptions } from './parser.js';
import type { CheckpointSaveEvent } from './saves.js';
import { LogLineReader, type LogLine } from './log-lines.js';

export type ReaderEvent = TrainerEvent | CheckpointSaveEvent;

export interface ReadResult {
  /** The parser's events and the save records, in log order. */
  events: ReaderEvent[];
  /** The lines these bytes completed, cleaned, tables collapsed to one line each. */
  lines: LogLine[];
}

export interface ReaderOptions extends Omit<ParserOptions, 'checkpointSaves'> {
  /** false: no lines (a caller without a log pane). Default true. */
  lines?: boolean;
}

export class TrainerLogReader {
  private parser: TrainerLogParser;
  private readonly lineReader: LogLineReader | null;

  constructor(opts: ReaderOptions = {}) {
    const { lines, ...parserOpts } = opts;
    this.parser = new TrainerLogParser({ ...parserOpts, checkpointSaves: true });
    this.lineReader = lines === false ? null : new LogLineReader();
  }

  push(chunk: Uint8Array): ReadResult {
    return { events: this.parser.push(chunk) as ReaderEvent[], lines: this.lineReader?.push(chunk) ?? [] };
  }

  /** End of input (see TrainerLogParser#end). */
  end(): ReadResult {
    return { events: this.parser.end() as ReaderEvent[], lines: this.lineReader?.end() ?? [] };
  }

  /** A quiet live log: the records still open (see TrainerLogParser#flushIdle). */
  flushIdle(exit?: { completed: boolean }): ReaderEvent[] {
    return this.parser.flushIdle(exit) as ReaderEvent[];
  }

  /** The log was truncated or replaced: partial lines and records are dropped. */
  reset(): void {
    this.parser.reset();
    this.lineReader?.reset();
  }

  /** The bytes that follow start in the middle of the log, inside a line (a backfill that skipped
   *  the log's head): the lines skip to the first newline. The parser needs no telling: a line
   *  it cannot read is not a record. */
  startInsideLine(): void {
    this.lineReader?.startInsideLine();
  }

  /** Bytes the log pane does not show (a backfill's history, filtered on the target: table rows
   *  dropped): their events only. The lines start afresh with `linesBefore`. */
  pushEventsOnly(chunk: Uint8Array): ReaderEvent[] {
    return this.parser.push(chunk) as ReaderEvent[];
  }

  /** The raw log just before where reading goes on (a backfill's seam), for the log pane: its
   *  lines, read afresh (an open table, a traceback's level are the raw log's, not the filtered
   *  history's). `insideLine`: `tail` starts inside a line (skipped to its first newline). The
   *  parser reads these bytes apart (the filtered history, `pushEventsOnly`, before or after this
   *  call): it is not told. */
  linesBefore(tail: Uint8Array, insideLine: boolean): LogLine[] {
    if (!this.lineReader) return [];
    this.lineReader.reset();
    if (insideLine) this.lineReader.startInsideLine();
    return this.lineReader.push(tail);
  }

  /** The parser, whose state a watch's snapshot holds (src/watch/watch-snapshot.ts). */
  get parserState(): TrainerLogParser {
    return this.parser;
  }

  /** Goes on with a parser restored from a snapshot (its callbacks wired again); the lines are
   *  this reader's own (a backfill's seam gives them: `linesBefore`). */
  adoptParser(p: TrainerLogParser): void {
    p.wire();
    this.parser = p;
  }

  /** See TrainerLogParser#atRest. */
  atRest(): boolean {
    return this.parser.atRest();
  }

  get recordCount(): number {
    return this.parser.recordCount;
  }
}
