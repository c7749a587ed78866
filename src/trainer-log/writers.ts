// Who wrote a line, and the error record each writer has open. merged.log interleaves roles and
// the controller's stdout interleaves Ray-forwarded workers, so a record (an ERROR with its
// detail lines, a bare traceback) belongs to its writer and stays open across the others' lines
// until that writer's next record, or the end of its traceback, closes it.
import { HeaderForms } from './line-bytes.js';
import type { ErrorEvent, WarningEvent } from './events.js';
import type { RecordHeader } from './header.js';
import {
  classifyError,
  classifyWarning,
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
} from './classify.js';
import { bytesToUtf8 } from './text.js';
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
/** `areal.infra.utils.launcher.JobException: Job <run>:<worker> JobState.COMPLETED at node local`:
 *  the local launcher saw its job's process gone (areal/infra/launcher/local.py wait(), re-raised
 *  when it does not relaunch), which it cannot tell from a crash. */
const LAUNCHER_JOB_COMPLETED = /^(?:[\w.]+\.)?JobException: Job \S+ JobState\.COMPLETED at node /;
/** What a warning's detail keeps at most. */
const MAX_WARNING_DETAIL = 64 << 10;

/** Where a record is in the traceback(s) it holds: none yet; in a traceback's frames; past its
 *  exception line; after a chain line (`During handling of the above exception…`), whose
 *  traceback follows as part of the same error. */
const enum Tb {
  None,
  Frames,
  Exception,
  Chain,
  /** In an exception group's traceback (Python 3.11+), whose every line has a `|`/`+` margin. */
  Group,
}

/** A record being collected: an ERROR/CRITICAL one, a WARNING one (its further lines, a
 *  traceback of `exc_info=True` included, belong to it), or a bare traceback. */
interface OpenRecord {
  kind: 'error' | 'warning' | 'bare';
  header: RecordHeader | null;
  lines: string[];
  bytes: number;
  truncated: boolean;
  tb: Tb;
  /** Its message goes on (colorlog's reset that ends it has not been seen yet). */
  messageOpen: boolean;
  /** A warning written without colour: where its message ends is unknown, so its next lines are
   *  held until a traceback says they were its message (exc_info), or dropped. */
  plain: boolean;
  /** Where its first traceback starts in `lines` (-1: none yet). */
  tbAt: number;
  /** The next line is the first frame of a traceback (which tells whose it is). */
  frameNext: boolean;
  /** A warning's traceback is a process's own uncaught crash: to be split off as an error. */
  split: boolean;
  /** The exception line of its last traceback so far (the one Python prints last). */
  exception: string | null;
  /** An indented line came after the exception line: the exception's text holds a traceback
   *  of its own (Ray's RayTaskError), whose unindented last line is still the exception's. */
  indentAfter: boolean;
  /** Lines left of a worker's log tail quoted in the exception's text (see STDERR_OUTPUT). */
  quote: number;
  /** Where quotes are in `lines`: [start, end) pairs (a logged error quotes in its message and
   *  again in its exc_info traceback); null: none. */
  quotes: number[] | null;
  /** The record's time, or for a bare traceback the controller's last record's: a record quoted
   *  from a worker's log is older. */
  quoteTime: string | null;
}

export interface Writer {
  source: string;
  main: boolean;
  rec: OpenRecord | null;
  /** Its prefix as latin1 bytes (not for the controller): the parser's fast path compares them
   *  instead of making a string of every worker line's prefix. */
  prefixBytes: Uint8Array | null;
  /** The forms of its record headers seen so far, for the parser's fast paths: a worker's routine
   *  (INFO, DEBUG) ones, the controller's of any level. */
  heads: HeaderForms | null;
  /** The time of its last record header the parser read in full (the controller's only). */
  lastTime: string | null;
}

/** A record's open state: Open (colour codes and no reset yet), Closed (the reset ends the header
 *  line), Unknown (no colour after the `(AReaL)` tag: NO_COLOR, a log with its colour removed). */
export const enum Msg {
  Closed,
  Open,
  Unknown,
}

function newRecord(kind: OpenRecord['kind'], header: RecordHeader | null, msg: Msg, time: string | null): OpenRecord {
  return {
    kind,
    header,
    lines: [],
    bytes: header === null ? 0 : header.message.length,
    truncated: false,
    tb: Tb.None,
    messageOpen: msg === Msg.Open,
    plain: msg === Msg.Unknown && kind === 'warning',
    tbAt: -1,
    frameNext: false,
    split: false,
    exception: null,
    indentAfter: false,
    quote: 0,
    quotes: null,
    quoteTime: time,
  };
}

/** The hash the fast path computes over a prefix's bytes while it looks for the `)`. */
export function prefixHash(h: number, c: number): number {
  return (Math.imul(h, 31) + c) | 0;
}

export class Writers {
  /** Errors emitted since the parser was made. */
  errors = 0;
  /** The controller (unprefixed lines and `[main]`). */
  main!: Writer;
  /** The other writers by their line prefix, oldest first. */
  private byPrefix!: Map<string, Writer>;
  /** The same writers by prefixHash of their prefix (one per hash: the others are found by
   *  their prefix string). */
  private byHash!: Map<number, Writer>;

  constructor(
    private readonly out: EventOut,
    private readonly maxRecord: number,
    /** Told of every error of the controller (the end record's fate depends on them). */
    private readonly onMainError: (ev: ErrorEvent) => void,
  ) {
    this.reset();
  }

  /** Forgets every writer and its open record. */
  reset(): void {
    this.main = {
      source: 'main',
      main: true,
      rec: null,
      prefixBytes: null,
      heads: new HeaderForms(8),
      lastTime: null,
    };
    this.byPrefix = new Map();
    this.byHash = new Map();
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
  knownBytes(s: Uint8Array, start: number, end: number, hash: number): Writer | undefined {
    const w = this.byHash.get(hash);
    if (w === undefined) return undefined;
    const k = w.prefixBytes!;
    if (k.length !== end - start) return undefined;
    for (let i = 0; i < k.length; i++) if (s[start + i] !== k[i]) return undefined;
    return w;
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
      w = { source, main: false, rec: null, prefixBytes, heads: new HeaderForms(2), lastTime: null };
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
    if (startsTraceback(body)) {
      const rec = newRecord('bare', null, Msg.Closed, w.main ? w.lastTime : null);
      rec.tb = GROUP_START.test(body) ? Tb.Group : Tb.Frames;
      rec.frameNext = true;
      w.rec = rec;
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
    w.rec = bare;
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

  /** Emits the writer's open record, if any, as an error or warning event. */
  close(w: Writer): void {
    const rec = w.rec;
    if (rec === null) return;
    w.rec = null;
    const lines = rec.lines;
    // Held lines of a colourless warning that no traceback followed: not known to be its message.
    if (rec.plain && rec.tbAt < 0) lines.length = 0;
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
    const detail = lines.join('\n');
    const h = rec.header;
    const time = h ? h.time : null;
    if (rec.kind === 'warning') {
      const ev: WarningEvent = {
        type: 'warning',
        message: firstLine(h!.message),
        kind: classifyWarning(h!.message),
        time,
        source: w.source,
      };
      if (lines.length > 0) ev.detail = detail;
      this.out.emit(ev);
    } else {
      // Titled by what failed: a logged error by its message, a bare traceback by its last
      // exception line; never by a traceback's header.
      const title = h ? firstLine(h.message) : '';
      const message = title !== '' ? title : (rec.exception ?? untitled(lines));
      // AReaL's local launcher ends every run so, a completed one too: the trainer's own output
      // (its traceback, or none) tells how it ended.
      if (LAUNCHER_JOB_COMPLETED.test(message)) return;
      const ev: ErrorEvent = { type: 'error', message, detail, kind: 'other', time, source: w.source };
      const quotes = rec.quotes;
      if (quotes === null) {
        ev.kind = classifyError(h ? `${h.message}\n${detail}` : detail);
      } else {
        // A worker's log quoted (appended across attempts: it can hold older attempts' failures):
        // what failed is the record's own text and the last quote's last lines, where the worker died.
        const own: string[] = [];
        let from = 0;
        for (let q = 0; q < quotes.length; q += 2) {
          own.push(...lines.slice(from, quotes[q]));
          from = Math.min(quotes[q + 1], lines.length);
        }
        own.push(...lines.slice(from));
        const end = Math.min(quotes[quotes.length - 1], lines.length);
        const last = lines.slice(Math.max(quotes[quotes.length - 2], end - QUOTE_CAUSE_LINES), end);
        ev.kind = classifyError(`${h ? h.message : ''}\n${own.join('\n')}\n${last.join('\n')}`);
        const cause = quoteCause(last);
        if (cause !== null) ev.cause = cause;
      }
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

  private emitError(w: Writer, ev: ErrorEvent): void {
    this.errors++;
    this.out.emit(ev);
    if (w.main) this.onMainError(ev);
  }
}

/** The title of an error record with no message and no exception line (cut, or input ended). */
function untitled(lines: readonly string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (l !== '' && !l.endsWith(TRACEBACK)) return `a traceback without its exception line (last line: ${l})`;
  }
  return 'a traceback without its exception line';
}

/** The quote's last lines that say what the worker died of. */
const QUOTE_CAUSE_LINES = 8;

/** What a quoted worker log says last: its last exception line, else its last line with text. */
function quoteCause(last: readonly string[]): string | null {
  let text: string | null = null;
  for (let i = last.length - 1; i >= 0; i--) {
    const l = last[i].trimEnd();
    if (l === '') continue;
    if (!isIndented(l) && EXCEPTION_LINE.test(l) && !l.endsWith(TRACEBACK)) return l;
    text ??= l.trim();
  }
  return text;
}

/** The first line of a message, without trailing spaces. */
export function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl < 0 ? s : s.slice(0, nl)).trimEnd();
}
