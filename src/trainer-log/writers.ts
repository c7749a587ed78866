// Who wrote a line, and the error record each writer has open. merged.log interleaves roles and
// the controller's stdout interleaves Ray-forwarded workers, so a record (an ERROR with its
// detail lines, a bare traceback) belongs to its writer and stays open across the others' lines
// until that writer's next record, or the end of its traceback, closes it.
import { HeaderForms } from './line-bytes.js';
import type { ErrorEvent } from './events.js';
import type { RecordHeader } from './header.js';
import { classifyError, exceptionLine, isChainMarker } from './classify.js';
import { bytesToUtf8 } from './text.js';
import type { EventOut } from './event-out.js';

function hashOf(prefix: string): number {
  let h = 0;
  for (let i = 0; i < prefix.length; i++) h = prefixHash(h, prefix.charCodeAt(i));
  return h;
}

/** Writers remembered at once (garbage can invent endless prefixes). */
export const MAX_WRITERS = 4096;
const TRACEBACK = 'Traceback (most recent call last)';
const WATCHDOG = 'Watchdog caught collective operation timeout';
/** A C10 (glog-style) error line: `[rank3]:[E1129 12:01:02.123456 1234 ProcessGroupNCCL.cpp:616] `
 *  (PyTorch >= 2.3) or `[E ProcessGroupNCCL.cpp:475] ` (older). */
const C10_ERROR_LINE = /^(?:\[rank\d+\]:)?\[[EF][^\]]*?[\w.\-]+\.(?:cpp|cc|cu|h|hpp):\d+\] /;

/** An ERROR/CRITICAL record or a bare traceback being collected. */
interface ErrorRecord {
  kind: 'error';
  header: RecordHeader | null;
  lines: string[];
  bytes: number;
  truncated: boolean;
  /** A bare traceback ends at its exception line; a logged error at the writer's next header. */
  bare: boolean;
  sawException: boolean;
  /** The traceback of a WARNING logged with exc_info: part of that warning, not an error. */
  quiet: boolean;
}

export interface Writer {
  source: string;
  main: boolean;
  rec: ErrorRecord | null;
  /** Its last line was a WARNING header: a traceback right after it is that warning's exc_info. */
  afterWarning: boolean;
  /** Its prefix as latin1 bytes (not for the controller): the parser's fast path compares them
   *  instead of making a string of every worker line's prefix. */
  prefixBytes: Uint8Array | null;
  /** The forms of its record headers seen so far, for the parser's fast paths: a worker's routine
   *  (INFO, DEBUG) ones, the controller's of any level. */
  heads: HeaderForms | null;
}

/** The hash the fast path computes over a prefix's bytes while it looks for the `)`. */
export function prefixHash(h: number, c: number): number {
  return (Math.imul(h, 31) + c) | 0;
}

export class Writers {
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
  ) {
    this.reset();
  }

  /** Forgets every writer and its open record. */
  reset(): void {
    this.main = { source: 'main', main: true, rec: null, afterWarning: false, prefixBytes: null, heads: new HeaderForms(8) };
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
      w = { source, main: false, rec: null, afterWarning: false, prefixBytes: Buffer.from(prefix, 'latin1'), heads: new HeaderForms(2) };
      this.byPrefix.set(prefix, w);
      const h = hashOf(prefix);
      if (!this.byHash.has(h)) this.byHash.set(h, w);
    }
    return w;
  }

  /** No writer has a record open, nor has just written a WARNING header (whose traceback would
   *  follow as part of it). */
  atRest(): boolean {
    if (this.main.rec !== null || this.main.afterWarning) return false;
    for (const w of this.byPrefix.values()) if (w.rec !== null || w.afterWarning) return false;
    return true;
  }

  /** Closes every open record: the controller's first, then the others oldest first. */
  closeAll(): void {
    this.close(this.main);
    for (const w of this.byPrefix.values()) this.close(w);
  }

  /** An ERROR/CRITICAL header opens a record that collects the writer's next lines. */
  openError(w: Writer, h: RecordHeader): void {
    w.rec = { kind: 'error', header: h, lines: [], bytes: h.message.length, truncated: false, bare: false, sawException: false, quiet: false };
  }

  /** A line of the writer that is not a record header: a detail line of its open record, the
   *  first line of a bare traceback, or nothing to keep. */
  continuation(w: Writer, body: string): void {
    const afterWarning = w.afterWarning;
    w.afterWarning = false;
    const rec = w.rec;
    if (rec !== null) {
      if (rec.bare && rec.sawException && body !== '' && !/^\s/.test(body) && !isChainMarker(body) && !body.startsWith(TRACEBACK)) {
        // The traceback is over; this line is someone's ordinary output.
        this.close(w);
      } else {
        this.addDetail(rec, body);
        return;
      }
    }
    if (body.startsWith(TRACEBACK)) {
      // logging writes `logger.warning(..., exc_info=True)` as the header line, then the traceback.
      w.rec = { kind: 'error', header: null, lines: [], bytes: 0, truncated: false, bare: true, sawException: false, quiet: afterWarning };
      this.addDetail(w.rec, body);
    } else if (body.charCodeAt(0) === 0x5b /* [ */ && body.includes(WATCHDOG) && C10_ERROR_LINE.test(body)) {
      // PyTorch's NCCL watchdog writes its timeout through C10 logging, not Python's: a line of
      // its own on each rank, and then the process aborts. It is the one trace a 2-hour
      // collective hang leaves in the worker's output.
      const text = bytesToUtf8(body).trimEnd();
      this.out.emit({ type: 'error', message: text, detail: text, kind: 'nccl-timeout', time: null, source: w.source });
    }
  }

  private addDetail(rec: ErrorRecord, body: string): void {
    if (rec.truncated) return;
    if (rec.bytes + body.length + 1 > this.maxRecord) {
      rec.truncated = true;
      return;
    }
    rec.bytes += body.length + 1;
    rec.lines.push(bytesToUtf8(body));
    if (rec.bare && rec.lines.length > 1 && body !== '' && !/^\s/.test(body) && !isChainMarker(body) && !body.startsWith(TRACEBACK)) {
      rec.sawException = true;
    }
  }

  /** Emits the writer's open record, if any, as an error event. */
  close(w: Writer): void {
    w.afterWarning = false;
    const rec = w.rec;
    if (rec === null) return;
    w.rec = null;
    if (rec.quiet) return; // the warning itself was reported at its header
    const lines = rec.lines;
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
    const detail = lines.join('\n');
    const message = rec.header ? firstLine(rec.header.message) : (exceptionLine(lines) ?? firstLine(detail));
    const time = rec.header ? rec.header.time : null;
    const kind = classifyError(rec.header ? `${rec.header.message}\n${detail}` : detail);
    const ev: ErrorEvent = { type: 'error', message, detail, kind, time, source: w.source };
    this.out.emit(ev);
    if (rec.truncated) this.out.warn('record-truncated', `an error record exceeded ${this.maxRecord} bytes; its detail was cut`, time, w.source);
  }
}

/** The first line of a message, without trailing spaces. */
export function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl < 0 ? s : s.slice(0, nl)).trimEnd();
}
