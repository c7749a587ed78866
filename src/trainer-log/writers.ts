// Who wrote a line, and the error record each writer has open. merged.log interleaves roles and
// the controller's stdout interleaves Ray-forwarded workers, so a record (an ERROR with its
// detail lines, a bare traceback) belongs to its writer and stays open across the others' lines
// until that writer's next record, or the end of its traceback, closes it.
import { HeaderForms, sameWordsAt } from './line-bytes.js';
import { quadsOf } from './table-cells.js';
import type { ErrorEvent } from './events.js';
import { Msg, newRecord, recordEvent, sglangTime, Tb, type OpenRecord } from './open-record.js';
import type { RecordHeader } from './header.js';
import {
  isChainMarker,
  TRACEBACK,
  WATCHDOG,
  SLURMSTEPD_ERROR,
  SLURM_JOB_END,
  OOM_KILL,
  C10_ERROR_LINE,
  GROUP_START,
  GROUP_LINE,
  EXCEPTION_LINE,
  groupException,
  STDERR_OUTPUT,
  QUOTED_LINES,
  startsTraceback,
  isIndented,
  exceptionLine,
} from './classify.js';
import { bytesToUtf8, naiveTimeMs } from './text.js';
import type { EventOut } from './event-out.js';

function hashOf(prefix: string): number {
  let h = 0;
  for (let i = 0; i < prefix.length; i++) h = prefixHash(h, prefix.charCodeAt(i));
  return h;
}

/** Writers remembered at once (garbage can invent endless prefixes). */
export const MAX_WRITERS = 4096;
/** Lines held after a colourless warning waiting for its traceback (its message's lines). */
const PLAIN_WARNING_LINES = 64;
/** The first frame of a traceback that no handler caught: a script's `<module>`, or runpy's for
 *  `python -m` (`<frozen runpy>` since 3.11, `…/runpy.py` before). */
const UNCAUGHT_FRAME =
  /^ {2}File "(?:<frozen runpy>|[^"]*runpy\.py)", line \d+, in _run_module_as_main$|, in <module>$/;
/** How long after a complete record's time later records finish it (see Writers.note). */
const FINISH_AFTER_MS = 2000;

/** A record no more lines can join, unless they chain another traceback to it (written at once). */
function complete(rec: OpenRecord): boolean {
  if (rec.quote > 0 || rec.messageOpen) return false;
  return rec.tb === Tb.Exception || (rec.tb === Tb.None && rec.kind !== 'bare');
}

/** What a warning's detail keeps at most. */
const MAX_WARNING_DETAIL = 64 << 10;

export interface Writer {
  source: string;
  main: boolean;
  rec: OpenRecord | null;
  /** Its prefix as latin1 bytes (not for the controller): the parser's fast path compares them
   *  instead of making a string of every worker line's prefix. */
  prefixBytes: Uint8Array | null;
  /** prefixBytes as doubles (quadsOf), to compare them eight bytes at a time. Absent in a writer
   *  restored from a watch snapshot written before it existed: made at its first compare. */
  prefixQuads?: Float64Array | null;
  /** The forms of its record headers seen so far, for the parser's fast paths: a worker's routine
   *  (INFO, DEBUG) ones, the controller's of any level. */
  heads: HeaderForms | null;
  /** The time of its last record header the parser read in full (the controller's only). */
  lastTime: string | null;
  /** A complete bare traceback closed by the writer's ERROR header, held for that record. */
  held: OpenRecord | null;
  /** The lines of the warning it just closed, which a print() of its message repeats; echoAt:
   *  how many of them the writer's lines have repeated so far. */
  echo: string[] | null;
  echoAt: number;
}

function newWriter(source: string, main: boolean, prefixBytes: Uint8Array | null, heads: HeaderForms): Writer {
  const prefixQuads = prefixBytes === null ? null : quadsOf(prefixBytes);
  return {
    source,
    main,
    rec: null,
    prefixBytes,
    prefixQuads,
    heads,
    lastTime: null,
    held: null,
    echo: null,
    echoAt: 0,
  };
}

/** The hash the fast path computes over a prefix's bytes while it looks for the `)`. */
export function prefixHash(h: number, c: number): number {
  return (Math.imul(h, 31) + c) | 0;
}

export class Writers {
  /** Errors emitted since the parser was made. */
  errors = 0;
  /** The writers with a record open. */
  private readonly pending = new Set<Writer>();
  /** The time of the last record header read (any writer's). */
  private lastSeen: string | null = null;
  /** The controller (unprefixed lines and `[main]`). */
  main!: Writer;
  /** The other writers by their line prefix, oldest first. */
  private byPrefix!: Map<string, Writer>;
  /** The same writers by prefixHash of their prefix (one per hash: the others are found by
   *  their prefix string). */
  private byHash!: Map<number, Writer>;

  /** Told of every error of the controller (the end record's fate depends on them): the parser's. */
  onMainError: (ev: ErrorEvent) => void = () => undefined;

  constructor(
    private readonly out: EventOut,
    private readonly maxRecord: number,
  ) {
    this.reset();
  }

  /** Forgets every writer and its open record. */
  reset(): void {
    this.main = newWriter('main', true, null, new HeaderForms(8));
    this.byPrefix = new Map();
    this.byHash = new Map();
    this.pending.clear();
    this.lastSeen = null;
  }

  /** A record header's time (any writer's), before the header is read. A record that no more lines
   *  can join (complete: its traceback past its exception line, its message ended) is finished
   *  once records written FINISH_AFTER_MS after it come: a worker that errs and then stays quiet
   *  has its error told in file order, within seconds in a live watch, not at its next line. */
  note(time: string): void {
    this.lastSeen = time;
    if (this.pending.size === 0) return;
    let now = -1;
    for (const w of this.pending) {
      const rec = w.rec!;
      if (rec.since === null || !complete(rec)) continue;
      if (now < 0) now = naiveTimeMs(time) ?? Number.NaN;
      if (rec.sinceOf !== rec.since) {
        rec.sinceMs = naiveTimeMs(rec.since) ?? Number.NaN;
        rec.sinceOf = rec.since;
      }
      // NaN (a time that is none) finishes nothing.
      if (now - rec.sinceMs >= FINISH_AFTER_MS) this.close(w);
    }
  }

  get size(): number {
    return this.byPrefix.size;
  }

  /** The writer of a prefix already met, if any (the parser's fast path makes no new one). */
  known(prefix: string): Writer | undefined {
    return this.byPrefix.get(prefix);
  }

  /** The writer whose prefix is bytes [start, end) of `s`, found by their prefixHash `hash`, if
   *  one was met; undefined may still be a known writer whose hash another one took. */
  knownBytes(s: Uint8Array, dv: DataView, start: number, end: number, hash: number): Writer | undefined {
    const w = this.byHash.get(hash);
    if (w === undefined) return undefined;
    const k = w.prefixBytes!;
    if (k.length !== end - start) return undefined;
    return sameWordsAt(s, dv, start, k, w.prefixQuads ?? (w.prefixQuads = quadsOf(k))) ? w : undefined;
  }

  /** The writer of a prefix, met now or before. */
  of(prefix: string, source: string): Writer {
    let w = this.byPrefix.get(prefix);
    if (w === undefined) {
      if (this.byPrefix.size >= MAX_WRITERS) {
        // Garbage can invent endless prefixes: forget the oldest writer to stay bounded.
        const [oldKey, old] = this.byPrefix.entries().next().value as [string, Writer];
        this.close(old);
        this.byPrefix.delete(oldKey);
        const oldHash = hashOf(oldKey);
        if (this.byHash.get(oldHash) === old) this.byHash.delete(oldHash);
      }
      const prefixBytes = Buffer.from(prefix, 'latin1');
      // Its routine INFO form and a WARNING's (webgym's), and room for one more logger's.
      w = newWriter(source, false, prefixBytes, new HeaderForms(3));
      this.byPrefix.set(prefix, w);
      const h = hashOf(prefix);
      if (!this.byHash.has(h)) this.byHash.set(h, w);
    }
    return w;
  }

  /** No writer has a record open. */
  atRest(): boolean {
    if (this.main.rec !== null) return false;
    for (const w of this.byPrefix.values()) if (w.rec !== null) return false;
    return true;
  }

  /** Closes every open record: the controller's first, then the others oldest first. */
  closeAll(): void {
    this.close(this.main);
    for (const w of this.byPrefix.values()) this.close(w);
  }

  /** An ERROR/CRITICAL or WARNING header opens a record that collects the writer's next lines. */
  open(w: Writer, h: RecordHeader, kind: 'error' | 'warning', msg: Msg): void {
    w.rec = newRecord(kind, h, msg, h.time);
    w.rec.since = h.time;
    this.pending.add(w);
    w.rec.held = w.held;
    w.held = null;
  }

  /** The writer's open record quotes a worker's log: its next lines are not records. */
  quoting(w: Writer): boolean {
    return w.rec !== null && w.rec.quote > 0;
  }

  /** A record header (its time) in a quote: a record of the worker's log is older than the error
   *  that quotes it (the worker died first), one of the writer's own after a quote shorter than
   *  50 lines is not. True: the quote is over and this header is the writer's own. */
  quoteEndsAt(w: Writer, time: string): boolean {
    const rec = w.rec!;
    if (rec.quoteTime === null || time <= rec.quoteTime) return false;
    this.endQuote(rec);
    return true;
  }

  private endQuote(rec: OpenRecord): void {
    rec.quote = 0;
    rec.quotes![rec.quotes!.length - 1] = rec.lines.length;
    rec.messageOpen = false;
  }

  /** A line of the writer that is not a record header: a line of its open record, the first line
   *  of a bare traceback, or nothing to keep. */
  continuation(w: Writer, body: string, endsReset: boolean): void {
    const rec = w.rec;
    if (rec !== null) {
      if (this.takes(rec, body, endsReset)) {
        this.addDetail(rec, body);
        if (rec.split) this.splitWarning(w, rec);
        return;
      }
      // The record is over: a new traceback after a complete one (back-to-back, no chain line)
      // is a new error; any other line is someone's ordinary output.
      this.close(w);
    }
    if (w.echo !== null && this.echoed(w, body)) return;
    if (startsTraceback(body)) {
      const rec = newRecord('bare', null, Msg.Closed, w.main ? w.lastTime : null);
      rec.tb = GROUP_START.test(body) ? Tb.Group : Tb.Frames;
      rec.frameNext = true;
      rec.at = sglangTime(body);
      rec.since = rec.at ?? this.lastSeen;
      w.rec = rec;
      this.pending.add(w);
      this.addDetail(w.rec, body);
    } else if (body.charCodeAt(0) === 0x5b /* [ */ && body.includes(WATCHDOG) && C10_ERROR_LINE.test(body)) {
      // PyTorch's NCCL watchdog writes its timeout through C10 logging, not Python's: a line of
      // its own on each rank, and then the process aborts. It is the one trace a 2-hour
      // collective hang leaves in the worker's output.
      const text = bytesToUtf8(body).trimEnd();
      this.emitError(w, {
        type: 'error',
        message: text,
        detail: text,
        kind: 'nccl-timeout',
        time: null,
        source: w.source,
      });
    } else if (body.charCodeAt(0) === 0x73 /* s */ && body.startsWith(SLURMSTEPD_ERROR)) {
      // Slurm ends the job (time limit, preemption, node failure, scancel) or kills it for host
      // memory: slurmstepd writes why into the job's output, and the trainer writes nothing.
      const m = SLURM_JOB_END.exec(body);
      if (m === null && !body.includes(OOM_KILL)) return;
      const text = bytesToUtf8(body).trimEnd();
      this.emitError(w, {
        type: 'error',
        message: text,
        detail: text,
        kind: 'other',
        time: m !== null ? `${m[1]}.000` : null,
        source: w.source,
      });
    }
  }

  /** Whether the record takes this line, moving on its traceback state: a logged record (error,
   *  warning) takes every line until the writer's next header, but a second traceback after a
   *  complete one; a bare traceback ends at the first unindented line after its exception line
   *  that does not chain another traceback to it. */
  private takes(rec: OpenRecord, body: string, endsReset: boolean): boolean {
    if (rec.quote > 0) {
      // The tail is QUOTED_LINES lines (a reset alone on its line inside it ends a quoted record's
      // message, not the quote); the line after them ends the text: empty, or colorlog's reset.
      if (--rec.quote === 0) {
        if (body === '' || endsReset) {
          this.endQuote(rec);
          return true;
        }
        this.endQuote(rec);
        return this.takes(rec, body, endsReset);
      }
      return true;
    }
    if (body === STDERR_OUTPUT && (rec.exception ?? rec.header?.message ?? '').includes('failed with exit code')) {
      rec.quote = QUOTED_LINES + 1;
      // [start, end) of its lines in `lines` (the end moves on until the quote ends).
      (rec.quotes ??= []).push(rec.lines.length + 1, Infinity);
      return true;
    }
    if (rec.messageOpen) {
      // A line of a multi-line message; its last one ends with colorlog's reset.
      if (endsReset) rec.messageOpen = false;
      return true;
    }
    switch (rec.tb) {
      case Tb.None:
        // A warning is its message and, logged with exc_info, the traceback right after it.
        if (rec.kind === 'warning' && !body.startsWith(TRACEBACK) && !GROUP_START.test(body))
          return rec.plain && rec.lines.length < PLAIN_WARNING_LINES && !startsTraceback(body);
      // falls through
      case Tb.Chain:
        if (GROUP_START.test(body)) {
          rec.tb = Tb.Group;
        } else if (startsTraceback(body)) {
          // An exc_info or chained traceback starts a line; one that starts mid-line is another
          // writer's record (SGLang's `Scheduler hit an exception: Traceback …`).
          if (!body.startsWith(TRACEBACK)) return false;
          if (rec.tbAt < 0) rec.tbAt = rec.lines.length;
          rec.tb = Tb.Frames;
          rec.frameNext = true;
        } else if (rec.tb === Tb.Chain && body !== '' && !isIndented(body)) {
          // Ray's RayTaskError text writes each remote `Traceback …` line of a chain as
          // `ray::RayRPCServer.call() (pid=…, ip=…)`: the frames of the chain's next one follow.
          rec.tb = Tb.Frames;
        }
        return true;
      case Tb.Group: {
        if (GROUP_LINE.test(body)) {
          // The exception line Python prints last, in a sub-exception or the group's own.
          const exception = groupException(body);
          if (exception !== null) rec.exception = bytesToUtf8(exception);
          return true;
        }
        // The group is over: what follows is read as after any traceback's exception line.
        rec.tb = Tb.Exception;
        rec.indentAfter = false;
        return this.takes(rec, body, endsReset);
      }
      case Tb.Frames:
        if (rec.frameNext && body !== '') {
          // Whose traceback: a logged exc_info starts at the frame that caught it, a process's
          // uncaught crash at its entry (`<module>`, runpy's `_run_module_as_main`).
          rec.frameNext = false;
          if (rec.kind === 'warning' && UNCAUGHT_FRAME.test(body)) rec.split = true;
        }
        if (body !== '' && !isIndented(body) && !startsTraceback(body)) {
          rec.tb = Tb.Exception;
          rec.exception = bytesToUtf8(body).trimEnd();
          rec.indentAfter = false;
        }
        return true;
      default: // Tb.Exception
        if (body === '') return true;
        if (isIndented(body)) {
          rec.indentAfter = true;
          return true;
        }
        if (isChainMarker(body)) {
          rec.tb = Tb.Chain;
          return true;
        }
        if (rec.indentAfter && !startsTraceback(body) && EXCEPTION_LINE.test(body)) {
          // `ray.exceptions.RayTaskError(OutOfMemoryError): ray::…` then the remote frames, then
          // `torch.OutOfMemoryError: …`: the line Python prints last names what failed.
          rec.indentAfter = false;
          rec.exception = bytesToUtf8(body).trimEnd();
          return true;
        }
        // A warning's record is its message and its traceback: what follows is not part of it.
        return rec.kind === 'error' && !startsTraceback(body);
    }
  }

  /** A warning's traceback turned out to be a process's own crash: the warning ends before it
   *  (without the held lines of a message of unknown end) and the traceback is an error. */
  private splitWarning(w: Writer, rec: OpenRecord): void {
    const tb = rec.lines.splice(rec.tbAt);
    if (rec.plain) rec.lines.length = 0;
    rec.plain = false;
    rec.split = false;
    this.close(w);
    const bare = newRecord('bare', null, Msg.Closed, w.main ? w.lastTime : null);
    bare.tb = Tb.Frames;
    for (const l of tb) this.addDetail(bare, l);
    bare.since = rec.since;
    w.rec = bare;
    this.pending.add(w);
  }

  private addDetail(rec: OpenRecord, body: string): void {
    if (rec.truncated) return;
    if (
      rec.bytes + body.length + 1 >
      (rec.kind === 'warning' ? Math.min(this.maxRecord, MAX_WARNING_DETAIL) : this.maxRecord)
    ) {
      rec.truncated = true;
      return;
    }
    rec.bytes += body.length + 1;
    rec.lines.push(bytesToUtf8(body));
  }

  /** Emits the writer's open record, if any, as an error or warning event. `beforeError`: an
   *  ERROR header of the writer closes it: a complete bare traceback is held for that record,
   *  which may log the same failure again (see held). */
  close(w: Writer, beforeError = false): void {
    const rec = w.rec;
    // The hot call (every record header of every writer): nothing to do but forget an echo.
    if (rec === null) {
      if (w.echo !== null) w.echo = null;
      return;
    }
    w.echo = null;
    w.rec = null;
    this.pending.delete(w);
    if (beforeError && rec.kind === 'bare' && rec.tb === Tb.Exception) {
      w.held = rec;
      return;
    }
    const ev = recordEvent(rec, w.source);
    const time = rec.header?.time ?? null;
    if (ev === null) {
      // Nothing to tell (AReaL's local launcher's end of a completed run).
    } else if (ev.type === 'warning') {
      this.out.emit(ev);
      // webgym prints the message of some warnings too ([TRAJ_NONE]): that copy is no output.
      if (ev.detail !== undefined) w.echo = [rec.header!.message.split('\n', 1)[0], ...rec.lines];
      w.echoAt = 0;
    } else {
      const held = rec.held;
      // engine_blueprint.py prints a failure (print_exc) and then logs it with format_exc(): one.
      if (held !== null && (exceptionLine(rec.lines) ?? ev.message) !== held.exception) this.emitRecord(w, held);
      this.emitError(w, ev);
    }
    // A warning's detail is cut quietly: a writer's ordinary output after a WARNING (progress
    // bars, prints) is read as its further lines until the writer's next record.
    if (rec.truncated && rec.kind !== 'warning')
      this.out.warn(
        'record-truncated',
        `an error record exceeded ${this.maxRecord} bytes; its detail was cut`,
        time,
        w.source,
      );
  }

  /** A held bare traceback emitted after all. */
  private emitRecord(w: Writer, rec: OpenRecord): void {
    const ev = recordEvent(rec, w.source);
    if (ev !== null && ev.type === 'error') this.emitError(w, ev);
  }

  /** A line of the writer with no record open that repeats the warning it closed (its echo). */
  private echoed(w: Writer, body: string): boolean {
    const echo = w.echo!;
    if (body !== echo[w.echoAt]) {
      w.echo = null;
      return false;
    }
    if (++w.echoAt === echo.length) w.echo = null;
    return true;
  }

  private emitError(w: Writer, ev: ErrorEvent): void {
    this.errors++;
    this.out.emit(ev);
    if (w.main) this.onMainError(ev);
  }
}
