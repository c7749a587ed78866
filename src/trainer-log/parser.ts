// The one trainer-log parser: fed chunks of bytes cut anywhere, emits the same events as when fed
// the whole input. Lines are split on bytes; each line is attributed to a writer (controller,
// merged.log role, Ray-forwarded worker), and each writer has its own open record, because
// their lines interleave in merged.log and in the controller's stdout.
// This file is the line loop and the dispatch of records; its parts are the writers and their
// error records (writers.ts; what a closed record tells: open-record.ts), the pending train
// step (pending-step.ts, reading tables with table.ts and writing JSON with step-json.ts), the
// controller's facts (classify.ts), the
// partial line between chunks (line-carry.ts) and where events go (event-out.ts). Each part
// is one class (or plain functions) used from one place, so the hot calls stay monomorphic.
// The parts are few on purpose: every ES module adds a millisecond or two to each command's start.
import type { TrainerEvent } from './events.js';
import {
  cutLineOrigin,
  parseHeader,
  matchLinePrefix,
  rankPrefixLength,
  type Level,
  type RecordHeader,
} from './header.js';
import { controllerEvent, memoryEvent } from './classify.js';
import { EvalRounds } from './eval-rounds.js';
import { wandbEvent } from './wandb-lines.js';
import { EndRecord } from './end-record.js';
import { saveEvent } from './saves.js';
import type { JsonSink } from './json.js';
import {
  HEAD,
  endsWithReset,
  isOldHeaderStart,
  isPlainRoutineMessage,
  lastPlainAscii,
  lastStripStop,
  lineEnds,
  messageState,
  plainTextEnd,
  routineMessageAt,
  strippedMessageAt,
  stripAnsiBytes,
  type HeaderForms,
} from './line-bytes.js';
import { asBuffer, bytesToUtf8, latin1Slice, toIsoTime, utf8Slice } from './text.js';
import { EventOut } from './event-out.js';
import { LineCarry } from './line-carry.js';
import { Writers, prefixHash, type Writer } from './writers.js';
import { Msg } from './open-record.js';
import { StepAssembler } from './pending-step.js';
import { viewOf } from './table.js';

export { MAX_WRITERS } from './writers.js';

/** The line awrl-tui's launch scripts write into stdout.log before each attempt (src/runs). */
const ATTEMPT_MARKER = 'awrl: attempt ';

export interface ParserOptions {
  /** Cap on what one record (a line, a table, a traceback) may hold; more is cut and reported
   *  with a `record-truncated` warning. Default 1 MiB. */
  maxRecordBytes?: number;
  /** false: every line takes the general path (strip, regular expressions, no remembered header
   *  forms, key layouts or stats shapes). The same events, only slower: for the test that proves
   *  the fast paths equal to it. Default true. */
  fastPaths?: boolean;
  /** true: the controller's `Saving … checkpoints` records are emitted too, as CheckpointSaveEvent
   *  objects (type 'save', not part of TrainerEvent: TrainerLogReader gives them their type).
   *  Default false. */
  checkpointSaves?: boolean;
}

export class TrainerLogParser {
  private readonly maxRecord: number;
  /** A line's bytes without escape codes (grown to the record cap at most). */
  private scratch: Buffer = Buffer.allocUnsafe(1 << 12);
  private readonly head: Buffer = Buffer.allocUnsafe(HEAD);
  /** Newline positions of the chunk being read, a batch at a time (see lineEnds). */
  private readonly ends = new Int32Array(4096);
  private readonly out: EventOut;
  private readonly carry: LineCarry;
  private readonly writers: Writers;
  private readonly steps: StepAssembler;
  private readonly endRecord: EndRecord;
  /** webgym's test rollout rounds (eval-rounds.ts). */
  private readonly evals: EvalRounds;
  /** The last wandb run URL this attempt (wandb.finish() prints it again: not a new run). */
  private lastWandb: string | null = null;
  private readonly fast: boolean;
  private readonly saves: boolean;
  /** Record headers read since the parser was made (any writer's; reset() keeps the count). */
  private records = 0;
  /** The controller line being read had no merged.log `[main]` tag (see memoryEvent). */
  private untagged = true;

  /** sink: set by JsonLinesParser, which takes events as JSON Lines bytes instead of objects. */
  constructor(opts: ParserOptions = {}, sink?: JsonSink) {
    this.maxRecord = Math.max(1024, opts.maxRecordBytes ?? 1 << 20);
    this.fast = opts.fastPaths !== false;
    this.saves = opts.checkpointSaves === true;
    this.out = new EventOut(sink ?? null);
    this.carry = new LineCarry(this.maxRecord);
    this.endRecord = new EndRecord(this.out);
    this.writers = new Writers(this.out, this.maxRecord);
    this.steps = new StepAssembler(this.maxRecord, this.out, this.fast);
    this.evals = new EvalRounds(this.out);
    this.wire();
  }

  /** The parser's own callbacks between its parts: set when it is made, and again when its state
   *  was restored from a snapshot (src/watch/watch-snapshot.ts: functions are not written). */
  wire(): void {
    this.steps.beforeStep = (cells, arena) => this.evals.beforeStep(cells, arena);
    this.writers.onMainError = (ev) => this.endRecord.error(ev);
  }

  /** Drops every partial line and record (e.g. after a followed file was truncated). */
  reset(): void {
    this.carry.clear();
    this.writers.reset();
    this.steps.step = null;
    this.endRecord.reset();
    this.evals.reset();
  }

  push(chunk: Uint8Array): TrainerEvent[] {
    const out = this.out.begin();
    if (chunk.length === 0) return out;
    const b = asBuffer(chunk);
    const len = b.length;
    const carry = this.carry;
    let pos = 0;
    if (carry.len > 0 || carry.cut) {
      const nl = b.indexOf(10);
      if (nl < 0) {
        carry.append(b, 0, len);
        return out;
      }
      carry.append(b, 0, nl);
      this.takeCarryLine();
      pos = nl + 1;
    }
    pos = this.lines(b, viewOf(b), pos);
    if (pos < len) carry.append(b, pos, len);
    return out;
  }

  /** Reads the whole lines of `b` from `pos`; returns where the last partial one starts. Apart
   *  from push, whose once-a-chunk code (the event list, the carried line) has no type feedback
   *  yet when this loop is first optimized (on stack, within the first chunk): inlined there, it
   *  threw the optimized loop out at the second chunk, and it was compiled again. `dv`: viewOf(b),
   *  made by the caller for the same reason. */
  private lines(b: Buffer, dv: DataView, pos: number): number {
    const max = this.maxRecord;
    const ends = this.ends;
    for (;;) {
      const n = lineEnds(b, pos, ends);
      for (let i = 0; i < n; i++) {
        const nl = ends[i];
        if (nl - pos > max) this.line(b, dv, pos, pos + max, true);
        else this.line(b, dv, pos, nl, false);
        pos = nl + 1;
      }
      if (n < ends.length) return pos;
    }
  }

  /** Ends the input: the last unterminated line is read, open records are closed, and a table
   *  or step cut by the end is reported as an `incomplete-record` warning. */
  end(): TrainerEvent[] {
    const out = this.out.begin();
    if (this.carry.len > 0 || this.carry.cut) this.takeCarryLine();
    this.steps.close(true);
    this.writers.closeAll();
    this.evals.close();
    this.endRecord.close();
    this.reset();
    return out;
  }

  /** True when nothing is open at this point of the input: no partial line, no pending step, no
   *  open record of any writer. From here on, this parser emits the same events as a fresh one fed
   *  the rest of the input, as long as neither has to forget a writer (MAX_WRITERS): the writers it
   *  knows only speed their lines up. `awrl-tui parse` cuts a big file at such points. */
  atRest(): boolean {
    return (
      this.carry.len === 0 &&
      !this.carry.cut &&
      this.steps.step === null &&
      this.writers.atRest() &&
      this.endRecord.atRest &&
      this.evals.atRest
    );
  }

  /** Record headers (`(AReaL) <time> <logger> <LEVEL>:`, any writer's) read since the parser was
   *  made: none in a non-empty input means it is not a trainer log. */
  get recordCount(): number {
    return this.records;
  }

  /** Error events emitted since the parser was made: a file without a record may still hold a
   *  trainer's crash (one that died before its first record). */
  get errorCount(): number {
    return this.writers.errors;
  }

  /** How many writers (roles, Ray workers) this parser has met since its last reset. */
  get writerCount(): number {
    return this.writers.size;
  }

  /** For a followed, live log that has gone quiet: emits the error records still open (a crash
   *  traceback is the last thing a dying trainer writes, so nothing would ever close it). Lines
   *  of such a record that arrive later are not attached to it. Steps and tables are untouched
   *  (a table is written in one piece). Not part of the chunking guarantee: call it on idle only.
   *  A held end record (see FinishedEvent) stays held, unless `exit` says how the trainer process
   *  ended: completed (exit 0) releases it as `finished`, otherwise it is dropped. */
  flushIdle(exit?: { completed: boolean }): TrainerEvent[] {
    const out = this.out.begin();
    this.writers.closeAll();
    if (exit !== undefined) {
      this.evals.close();
      this.endRecord.settle(exit.completed);
    }
    return out;
  }

  private takeCarryLine(): void {
    const cut = this.carry.cut;
    const line = this.carry.take();
    this.line(line, viewOf(line), 0, line.length, cut);
  }

  private line(b: Buffer, dv: DataView, start: number, end: number, cut: boolean): void {
    if (end > start && b[end - 1] === 13) end--;
    if (cut) {
      const o = cutLineOrigin(b, start, end);
      this.out.warn('record-truncated', `a line longer than ${this.maxRecord} bytes was cut`, o.time, o.source);
    }
    // Fast path: the lines of an open stats table (most of the bytes of a log), never decoded.
    const step = this.steps.step;
    const fast = this.fast;
    if (fast && step !== null && step.inTable && b[start] === 0xe2) {
      this.steps.tableLine(step, b, dv, start, end);
      return;
    }
    // The line without its escape codes, as one flat latin1 string (stripAnsi on bytes).
    if (this.scratch.length < end - start) this.scratch = Buffer.allocUnsafe(end - start);
    if (fast && b[start] === 0x28 /* ( */ && this.routineWorkerLine(b, dv, start, end)) return;
    if (
      fast &&
      b[start] === 0x1b &&
      !this.writers.quoting(this.writers.main) &&
      this.knownControllerHeader(b, dv, start, end)
    )
      return;
    const n = stripAnsiBytes(b, start, end, this.scratch);
    const line = n < 0 ? latin1Slice(b, start, end) : latin1Slice(this.scratch, 0, n);
    let writer = this.writers.main;
    let body = line;
    let untagged = true;
    const c0 = line.charCodeAt(0);
    if (c0 === 0x5b /* [ */ || c0 === 0x28 /* ( */ || (c0 <= 0x39 && c0 >= 0x30)) {
      // The one prefix grammar (header.ts), which the log pane reads too.
      const p = matchLinePrefix(line);
      if (p) {
        body = line.slice(p.length);
        if (p.source !== 'main') writer = this.writers.of(p.key, p.source);
        else if (p.key !== '') untagged = false;
      }
    }
    // torchrun's `[rank0]: ` before a process's lines (a traceback, an error record).
    const rank = rankPrefixLength(body);
    if (rank > 0) body = body.slice(rank);
    if (this.writers.quoting(writer) && !this.quoteEnds(writer, body)) {
      // A worker's log quoted in an exception's text: its records are not the writer's.
      this.writers.continuation(writer, body, endsWithReset(b, start, end));
      return;
    }
    let areal = body.startsWith('(AReaL) ');
    if (!areal && body.indexOf('\r') >= 0) {
      body = afterProgressBar(body);
      areal = body.startsWith('(AReaL) ');
    }
    if (areal || isOldHeaderStart(body)) {
      const h = parseHeader(body);
      if (h) {
        if (!writer.main && (h.level === 'INFO' || h.level === 'DEBUG')) {
          // A worker's ordinary record (most lines of stdout.log): it only ends the open one,
          // unless it is the worker's own GPU memory.
          this.records++;
          this.writers.close(writer);
          if (h.message.startsWith('Memory-Usage ')) this.workerMemory(writer, h);
          return;
        }
        // The controller's next header of this form is read on its bytes (knownControllerHeader),
        // and a worker's (routineWorkerLine) when its prefix is written without escape codes:
        // then the body starts at the same place in the raw bytes.
        if (fast && areal && writer.main && body === line && b[start] === 0x1b)
          writer.heads!.learn(b, start, end, line.length - h.message.length, h.logger, h.level);
        else if (fast && areal && !writer.main && rank === 0 && b[start] === 0x28 && plainUpTo(b, start, body, line))
          writer.heads!.learn(
            b,
            start + line.length - body.length,
            end,
            body.length - h.message.length,
            h.logger,
            h.level,
          );
        h.message = bytesToUtf8(h.message);
        this.untagged = untagged;
        this.header(writer, h, n >= 0 ? messageState(b, start, end) : Msg.Unknown);
        return;
      }
    }
    if (writer.main && step !== null && step.inTable && body.charCodeAt(0) === 0xe2) {
      // A table line that carried escape codes: back to bytes for the table reader.
      const bytes = Buffer.from(body, 'latin1');
      this.steps.tableLine(step, bytes, viewOf(bytes), 0, bytes.length);
      return;
    }
    if (writer.main && body.startsWith(ATTEMPT_MARKER)) {
      // awrl-tui's launcher starts a new attempt (a new trainer process): nothing the old one left
      // open goes on, and the lines that follow are not part of its last error.
      this.steps.close(false);
      this.writers.closeAll();
      this.evals.close();
      this.lastWandb = null;
      this.endRecord.newAttempt();
      return;
    }
    if (writer.main && body.charCodeAt(0) === 0x77 /* w */) this.wandbLine(body);
    this.writers.continuation(writer, body, endsWithReset(b, start, end));
  }

  /** Most lines of a controller's stdout are Ray-forwarded INFO records of workers. For one of a
   *  known writer (its prefix, up to the `)`, names a known writer, which only matched prefixes
   *  become), that only ends the writer's open record: done here on bytes, without strings or
   *  regular expressions. False: the line takes the general path. */
  private routineWorkerLine(b: Buffer, dv: DataView, lineStart: number, lineEnd: number): boolean {
    // Only the head of the line is needed: stripping a prefix of a line gives a prefix of the
    // stripped line, and whatever reaches the end of the head is left to the general path.
    const headEnd = Math.min(lineEnd, lineStart + HEAD);
    // The prefix as written (Ray writes it without escape codes), hashed on the way to its `)`.
    let close = lineStart + 1;
    let h = prefixHash(0, 0x28);
    let c = 0;
    while (close < headEnd && (c = b[close]) !== 0x29 /* ) */) {
      if (c === 0x1b || (c === 0x20 && b[close - 1] === 0x3a))
        return this.routineWorkerLineStripped(b, lineStart, lineEnd);
      h = prefixHash(h, c);
      close++;
    }
    // A prefix without the space after `)` could be longer in the general path's eyes.
    if (close + 1 >= headEnd || b[close + 1] !== 0x20) return false;
    h = prefixHash(h, 0x29);
    const w =
      this.writers.knownBytes(b, dv, lineStart, close + 1, h) ??
      this.writers.known(latin1Slice(b, lineStart, close + 1));
    if (w === undefined || this.writers.quoting(w)) return false;
    // A header of a form seen before is recognised on its bytes; another one is stripped first.
    const heads = w.heads!;
    // Where the message starts in the raw bytes.
    let msg = heads.match(b, dv, close + 2, headEnd);
    if (msg >= 0 && heads.matched!.level !== '') {
      // A header that opens a record (a WARNING: two of every twenty lines of a webgym run's
      // workers), of a form the general path read before (it learns those with their level).
      this.untagged = true;
      this.header(w, this.formHeader(heads, b, msg, lineEnd), messageState(b, lineStart, lineEnd));
      return true;
    }
    if (msg < 0) {
      const n = stripAnsiBytes(b, close + 2, headEnd, this.head, true);
      const stop = lastStripStop();
      const whole = stop === lineEnd;
      msg =
        n < 0
          ? routineMessageAt(b, close + 2, headEnd, whole)
          : strippedMessageAt(routineMessageAt(this.head, 0, n, whole), n, stop);
      if (msg < 0) return false;
      heads.learn(b, close + 2, headEnd);
    }
    if (!isPlainRoutineMessage(b, msg, lineEnd)) return false;
    this.records++;
    this.writers.close(w);
    return true;
  }

  /** A controller record header (escape codes first, as AReaL writes it) of a form read before:
   *  the same header as parseHeader gives for its stripped text, without stripping its head or a
   *  regular expression (HeaderForms). False: the line takes the general path. */
  private knownControllerHeader(b: Buffer, dv: DataView, start: number, end: number): boolean {
    const forms = this.writers.main.heads!;
    const at = forms.match(b, dv, start, end);
    if (at < 0) return false;
    this.untagged = true;
    this.header(this.writers.main, this.formHeader(forms, b, at, end), messageState(b, start, end));
    return true;
  }

  /** The record header that a HeaderForms match found, its message at `at` in the raw bytes: what
   *  parseHeader gives for the stripped text. The line's bytes are at most the scratch's size. */
  private formHeader(forms: HeaderForms, b: Buffer, at: number, end: number): RecordHeader {
    const f = forms.matched!;
    // The message, as a rule plain text up to the line's reset: read where it is, not copied.
    const plain = plainTextEnd(b, at, end);
    // ASCII (as a rule) is its own UTF-8 text: no second look for bytes to decode; other plain
    // text is decoded from its bytes at once (utf8Slice), not through a latin1 string.
    const text =
      plain < 0
        ? bytesToUtf8(latin1Slice(this.scratch, 0, stripAnsiBytes(b, at, end, this.scratch)))
        : lastPlainAscii()
          ? latin1Slice(b, at, plain)
          : utf8Slice(b, at, plain);
    const time = toIsoTime(latin1Slice(b, forms.tsStart, forms.tsEnd));
    return { time, logger: f.logger, level: f.level as Level, message: text };
  }

  /** routineWorkerLine for a prefix with escape codes (or a `: `) in it: stripped first. */
  private routineWorkerLineStripped(b: Buffer, lineStart: number, lineEnd: number): boolean {
    const headEnd = Math.min(lineEnd, lineStart + HEAD);
    const n = stripAnsiBytes(b, lineStart, headEnd, this.head, true);
    const whole = lastStripStop() === lineEnd;
    const s = n < 0 ? b : this.head;
    const start = n < 0 ? lineStart : 0;
    const end = n < 0 ? headEnd : n;
    let close = start + 1;
    while (close < end && s[close] !== 0x29 /* ) */) close++;
    if (close + 1 >= end || s[close + 1] !== 0x20) return false;
    const w = this.writers.known(latin1Slice(s, start, close + 1));
    if (w === undefined || this.writers.quoting(w)) return false;
    const at = routineMessageAt(s, close + 2, end, whole);
    const msg = n < 0 ? at : strippedMessageAt(at, n, lastStripStop());
    if (msg < 0 || !isPlainRoutineMessage(b, msg, lineEnd)) return false;
    this.records++;
    this.writers.close(w);
    return true;
  }

  /** A line of a quote that is a record header newer than the record quoting: the writer's own
   *  (the quote was shorter than its 50 lines), which ends the quote. */
  private quoteEnds(w: Writer, body: string): boolean {
    if (!body.startsWith('(AReaL) ') && !isOldHeaderStart(body)) return false;
    const h = parseHeader(body);
    return h !== null && this.writers.quoteEndsAt(w, h.time);
  }

  /** wandb's banner line (not a record: it goes on as the open record's line, as before). Each
   *  wandb.init() header is an event (a restarted trainer prints its own); the footer's run line
   *  only when it names a run the header did not. */
  private wandbLine(body: string): void {
    const ev = wandbEvent(body);
    if (ev === null) return;
    if (ev.footer) {
      if (ev.url === this.lastWandb) return;
      delete ev.footer;
    }
    if (ev.url !== null) this.lastWandb = ev.url;
    this.out.emit(ev);
  }

  /** A worker's `Memory-Usage` record: a GPU memory fact of that worker's GPU. */
  private workerMemory(w: Writer, h: RecordHeader): void {
    h.message = bytesToUtf8(h.message);
    const ev = memoryEvent(h, w.source, false);
    if (ev !== null) this.out.emit(ev);
  }

  /** A record header: it closes the writer's open record; the controller's may belong to a train
   *  step or carry a fact; an ERROR or a WARNING opens a record (its further lines are its detail). */
  /** msg: whether the record's message goes on on the next lines (messageState). */
  private header(w: Writer, h: RecordHeader, msg: Msg): void {
    this.writers.note(h.time);
    this.records++;
    this.writers.close(w, h.level === 'ERROR');
    w.lastTime = h.time;
    if (w.main) {
      const errorBefore = this.endRecord.errorJustBefore;
      this.endRecord.record(h);
      if (this.steps.header(h)) return;
      const save = this.saves ? saveEvent(h) : null;
      // Outside the event contract: emitted only for a caller that asked (TrainerLogReader).
      if (save !== null) this.out.emit(save as unknown as TrainerEvent);
      this.evals.record(h);
      const ev = controllerEvent(h, this.untagged);
      if (ev !== null) {
        if (ev.type === 'finished') this.endRecord.end(ev, errorBefore);
        else this.out.emit(ev);
      }
    }
    if (h.level === 'ERROR' || h.level === 'CRITICAL') {
      this.writers.open(w, h, 'error', msg);
    } else if (h.level === 'WARNING' && !(w.main && h.message.startsWith('Resume info not found'))) {
      this.writers.open(w, h, 'warning', msg);
    }
  }
}

/** The line's raw bytes hold no escape code before its body (a writer's prefix as written), so
 *  the body starts as many bytes into the raw line as into the stripped one. */
function plainUpTo(b: Uint8Array, start: number, body: string, line: string): boolean {
  const n = line.length - body.length;
  for (let i = start; i < start + n; i++) if (b[i] === 0x1b) return false;
  return true;
}

/** A progress bar (tqdm) redraws itself after a `\r`, with no newline: a record written after it
 *  (from another stream captured into the same file) starts after a `\r`, where a terminal shows
 *  it. The text from the last `\r` that a record header follows, or the line as it is. */
function afterProgressBar(body: string): string {
  for (let cr = body.lastIndexOf('\r'); cr >= 0; cr = cr > 0 ? body.lastIndexOf('\r', cr - 1) : -1) {
    const rest = body.slice(cr + 1);
    if ((rest.startsWith('(AReaL) ') || isOldHeaderStart(rest)) && parseHeader(rest) !== null) return rest;
  }
  return body;
}

/** Parses a whole log at once (same events as any chunking of it). */
export function parseLogBytes(buf: Uint8Array, opts?: ParserOptions): TrainerEvent[] {
  const p = new TrainerLogParser(opts);
  const events = p.push(buf);
  for (const e of p.end()) events.push(e);
  return events;
}
