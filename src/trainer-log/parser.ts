// The one trainer-log parser: fed chunks of bytes cut anywhere, emits the same events as when fed
// the whole input. Lines are split on bytes; each line is attributed to a writer (controller,
// merged.log role, Ray-forwarded worker), and each writer has its own open record, because
// their lines interleave in merged.log and in the controller's stdout.
import type { ErrorEvent, StepEvent, TrainerEvent, WarningEvent, WarningKind } from './events.js';
import { parseHeader, matchRayPrefix, matchRolePrefix, type RecordHeader } from './header.js';
import {
  MEMORY, RECOVER, STATS_PART, STEP_DONE, classifyError, classifyWarning, exceptionLine, isChainMarker, parseBatch,
} from './classify.js';
import { KeyInterner, TableBuilder, ValueArena, cellValues, tableLineKind, type StepCells } from './table.js';
import { StatsShapes } from './stats-shapes.js';
import { JsonSink, jsonNum, smallEventJson, stepHeadJson } from './json-sink.js';
import { eventToJsonLine } from './json.js';
import { parseNumber } from './text.js';
import { HEAD, isRoutineHeader, lastStripStop, lineEnds, stripAnsiBytes } from './line-bytes.js';
import { bytesToUtf8 } from './text.js';
import { asBuffer, latin1Slice } from './bytes.js';

export interface ParserOptions {
  /** Cap on what one record (a line, a table, a traceback) may hold; more is cut and reported
   *  with a `record-truncated` warning. Default 1 MiB. */
  maxRecordBytes?: number;
}

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
}

interface Writer {
  source: string;
  main: boolean;
  rec: ErrorRecord | null;
}

/** The controller's train step being assembled from `Epoch…done.`, `Stats (i/n):` and tables. */
interface PendingStep {
  head: Omit<StepEvent, 'stats'>;
  /** The cells of its tables so far; their value bytes are in the parser's arena. */
  cells: StepCells;
  expected: number;
  done: number;
  /** The table record header (empty message) has been seen: box lines belong to this step. */
  inTable: boolean;
  table: TableBuilder | null;
  truncated: boolean;
}

/** Writers remembered at once (garbage can invent endless prefixes). */
export const MAX_WRITERS = 4096;
const TRACEBACK = 'Traceback (most recent call last)';

export class TrainerLogParser {
  private readonly maxRecord: number;
  private readonly intern = new KeyInterner();
  private readonly shapes = new StatsShapes();
  private readonly arena = new ValueArena();
  /** The cells of the pending step (one step is pending at a time). */
  private readonly cells: StepCells = { n: 0, keys: [], starts: [], ends: [], json: [] };
  private readonly tables: TableBuilder;
  /** A line's bytes without escape codes (grown to the record cap at most). */
  private scratch: Buffer = Buffer.allocUnsafe(1 << 12);
  private readonly head: Buffer = Buffer.allocUnsafe(HEAD);
  /** Newline positions of the chunk being read, a batch at a time (see lineEnds). */
  private readonly ends = new Int32Array(4096);
  /** When set (JsonLinesParser), events are written here as JSON Lines instead of returned. */
  private readonly sink: JsonSink | null;
  /** Copies of the bytes of the unterminated last line (callers may reuse their buffers). */
  private carry: Uint8Array[] = [];
  private carryLen = 0;
  private carryCut = false;
  private out: TrainerEvent[] = [];
  private main!: Writer;
  private writers!: Map<string, Writer>;
  private step: PendingStep | null = null;

  constructor(opts: ParserOptions = {}, sink?: JsonSink) {
    this.sink = sink ?? null;
    this.maxRecord = Math.max(1024, opts.maxRecordBytes ?? 1 << 20);
    this.tables = new TableBuilder(this.maxRecord, this.intern, this.arena);
    this.reset();
  }

  /** Drops every partial line and record (e.g. after a followed file was truncated). */
  reset(): void {
    this.carry = [];
    this.carryLen = 0;
    this.carryCut = false;
    this.main = { source: 'main', main: true, rec: null };
    this.writers = new Map();
    this.step = null;
  }

  push(chunk: Uint8Array): TrainerEvent[] {
    const out: TrainerEvent[] = (this.out = []);
    if (chunk.length === 0) return out;
    const b = asBuffer(chunk);
    const len = b.length;
    let pos = 0;
    if (this.carryLen > 0 || this.carryCut) {
      const nl = b.indexOf(10);
      if (nl < 0) {
        this.appendCarry(b, 0, len);
        return out;
      }
      this.appendCarry(b, 0, nl);
      this.takeCarryLine();
      pos = nl + 1;
    }
    const max = this.maxRecord;
    const ends = this.ends;
    for (;;) {
      const n = lineEnds(b, pos, ends);
      for (let i = 0; i < n; i++) {
        const nl = ends[i];
        if (nl - pos > max) this.line(b, pos, pos + max, true);
        else this.line(b, pos, nl, false);
        pos = nl + 1;
      }
      if (n < ends.length) break;
    }
    if (pos < len) this.appendCarry(b, pos, len);
    return out;
  }

  /** Ends the input: the last unterminated line is read, open records are closed, and a table
   *  or step cut by the end is reported as an `incomplete-record` warning. */
  end(): TrainerEvent[] {
    const out: TrainerEvent[] = (this.out = []);
    if (this.carryLen > 0 || this.carryCut) this.takeCarryLine();
    this.closeStep(true);
    this.closeRecord(this.main);
    for (const w of this.writers.values()) this.closeRecord(w);
    this.reset();
    return out;
  }

  /** True when nothing is open at this point of the input: no partial line, no pending step, no
   *  open record of any writer. From here on, this parser emits the same events as a fresh one fed
   *  the rest of the input, as long as neither has to forget a writer (MAX_WRITERS): the writers it
   *  knows only speed their lines up. `awrl-tui parse` cuts a big file at such points. */
  atRest(): boolean {
    if (this.carryLen > 0 || this.carryCut || this.step !== null || this.main.rec !== null) return false;
    for (const w of this.writers.values()) if (w.rec !== null) return false;
    return true;
  }

  /** How many writers (roles, Ray workers) this parser has met since its last reset. */
  get writerCount(): number {
    return this.writers.size;
  }

  /** For a followed, live log that has gone quiet: emits the error records still open (a crash
   *  traceback is the last thing a dying trainer writes, so nothing would ever close it). Lines
   *  of such a record that arrive later are not attached to it. Steps and tables are untouched
   *  (a table is written in one piece). Not part of the chunking guarantee: call it on idle only. */
  flushIdle(): TrainerEvent[] {
    const out: TrainerEvent[] = (this.out = []);
    this.closeRecord(this.main);
    for (const w of this.writers.values()) this.closeRecord(w);
    return out;
  }

  private appendCarry(b: Uint8Array, from: number, to: number): void {
    const room = this.maxRecord - this.carryLen;
    if (to - from > room) {
      this.carryCut = true;
      to = from + Math.max(0, room);
    }
    if (to > from) {
      // A copy: Buffer#slice is a view, and callers may reuse their buffer for the next read.
      this.carry.push(Uint8Array.prototype.slice.call(b, from, to));
      this.carryLen += to - from;
    }
  }

  private takeCarryLine(): void {
    const line = this.carry.length === 1 ? this.carry[0] : joinBytes(this.carry, this.carryLen);
    const cut = this.carryCut;
    this.carry = [];
    this.carryLen = 0;
    this.carryCut = false;
    this.line(asBuffer(line), 0, line.length, cut);
  }

  private line(b: Buffer, start: number, end: number, cut: boolean): void {
    if (end > start && b[end - 1] === 13) end--;
    if (cut) this.warn('record-truncated', `a line longer than ${this.maxRecord} bytes was cut`, null, 'main');
    // Fast path: the lines of an open stats table (most of the bytes of a log), never decoded.
    const step = this.step;
    if (step !== null && step.inTable && b[start] === 0xe2) {
      this.tableLine(step, b, start, end);
      return;
    }
    // The line without its escape codes, as one flat latin1 string (stripAnsi on bytes).
    if (this.scratch.length < end - start) this.scratch = Buffer.allocUnsafe(end - start);
    if (b[start] === 0x28 /* ( */ && this.routineWorkerLine(b, start, end)) return;
    const n = stripAnsiBytes(b, start, end, this.scratch);
    const line = n < 0 ? latin1Slice(b, start, end) : latin1Slice(this.scratch, 0, n);
    let writer = this.main;
    let body = line;
    const c0 = line.charCodeAt(0);
    if (c0 === 0x5b /* [ */) {
      const p = matchRolePrefix(line);
      if (p) {
        body = line.slice(p.length);
        if (p.source !== 'main') writer = this.writer(p.key, p.source);
      }
    } else if (c0 === 0x28 /* ( */ && !line.startsWith('(AReaL)')) {
      const p = matchRayPrefix(line);
      if (p) {
        body = line.slice(p.length);
        writer = this.writer(p.key, p.source);
      }
    }
    if (body.startsWith('(AReaL) ')) {
      const h = parseHeader(body);
      if (h) {
        if (!writer.main && (h.level === 'INFO' || h.level === 'DEBUG')) {
          // A worker's ordinary record (most lines of stdout.log): it only ends the open one.
          this.closeRecord(writer);
          return;
        }
        h.message = bytesToUtf8(h.message);
        this.header(writer, h);
        return;
      }
    }
    if (writer.main && step !== null && step.inTable && body.charCodeAt(0) === 0xe2) {
      // A table line that carried escape codes: back to bytes for the table reader.
      const bytes = Buffer.from(body, 'latin1');
      this.tableLine(step, bytes, 0, bytes.length);
      return;
    }
    this.continuation(writer, body);
  }

  /** Most lines of a controller's stdout are Ray-forwarded INFO records of workers. For one of a
   *  known writer (its prefix, up to the `)`, is a key of `writers`, which only matched prefixes
   *  become), that only ends the writer's open record: done here on the escape-free bytes `s`,
   *  without strings or regular expressions. False: the line takes the general path. */
  private routineWorkerLine(b: Buffer, lineStart: number, lineEnd: number): boolean {
    // Only the head of the line is needed: stripping a prefix of a line gives a prefix of the
    // stripped line, and whatever reaches the end of the head is left to the general path.
    const headEnd = Math.min(lineEnd, lineStart + HEAD);
    const n = stripAnsiBytes(b, lineStart, headEnd, this.head, true);
    const whole = lastStripStop() === lineEnd;
    const s = n < 0 ? b : this.head;
    const start = n < 0 ? lineStart : 0;
    const end = n < 0 ? headEnd : n;
    let close = start + 1;
    while (close < end && s[close] !== 0x29 /* ) */) close++;
    // A prefix without the space after `)` could be longer in the general path's eyes.
    if (close + 1 >= end || s[close + 1] !== 0x20) return false;
    const w = this.writers.get(latin1Slice(s, start, close + 1));
    if (w === undefined || !isRoutineHeader(s, close + 2, end, whole)) return false;
    this.closeRecord(w);
    return true;
  }

  private writer(key: string, source: string): Writer {
    let w = this.writers.get(key);
    if (w === undefined) {
      if (this.writers.size >= MAX_WRITERS) {
        // Garbage can invent endless prefixes: forget the oldest writer to stay bounded.
        const [oldKey, old] = this.writers.entries().next().value as [string, Writer];
        this.closeRecord(old);
        this.writers.delete(oldKey);
      }
      w = { source, main: false, rec: null };
      this.writers.set(key, w);
    }
    return w;
  }

  private header(w: Writer, h: RecordHeader): void {
    this.closeRecord(w);
    if (w.main) {
      if (this.stepHeader(h)) return;
      this.controllerHeader(h);
    }
    if (h.level === 'ERROR' || h.level === 'CRITICAL') {
      w.rec = { kind: 'error', header: h, lines: [], bytes: h.message.length, truncated: false, bare: false, sawException: false };
    } else if (h.level === 'WARNING' && !(w.main && h.message.startsWith('Resume info not found'))) {
      this.emit({ type: 'warning', message: firstLine(h.message), kind: classifyWarning(h.message), time: h.time, source: w.source });
    }
  }

  /** Handles the records of a train step; true when the header belonged to it. */
  private stepHeader(h: RecordHeader): boolean {
    const msg = h.message;
    const step = this.step;
    if (step !== null) {
      const part = STATS_PART.exec(msg);
      if (part && !step.inTable) {
        step.expected = Math.max(step.expected, Number(part[2]));
        return true;
      }
      if (msg.trim() === '' && !step.inTable && step.done < step.expected) {
        step.inTable = true;
        return true;
      }
      this.closeStep(false);
    }
    const m = STEP_DONE.exec(msg);
    if (!m) return false;
    this.arena.len = 0;
    this.cells.n = 0;
    this.step = {
      head: {
        type: 'step', epoch: +m[1], epochs: +m[2], step: +m[3], stepsPerEpoch: +m[4], globalStep: +m[5], totalSteps: +m[6], time: h.time,
      },
      cells: this.cells,
      expected: 1,
      done: 0,
      inTable: false,
      table: null,
      truncated: false,
    };
    return true;
  }

  private tableLine(step: PendingStep, b: Uint8Array, start: number, end: number): void {
    const kind = tableLineKind(b, start);
    if (kind === 'row') {
      if (step.table === null) step.table = this.tables.reset();
      step.table.addRow(b, start, end);
    } else if (kind === 'top') {
      step.table = this.tables.reset();
    } else if (kind === 'bottom') {
      const t = step.table ?? this.tables.reset();
      t.collect(step.cells);
      if (t.truncated) step.truncated = true;
      step.table = null;
      step.inTable = false;
      step.done++;
      if (step.done >= step.expected) this.closeStep(false);
    }
  }

  /** Emits the pending step if all its tables are complete; otherwise reports it incomplete. */
  private closeStep(atEnd: boolean): void {
    const step = this.step;
    if (step === null) return;
    this.step = null;
    const { head } = step;
    if (step.done >= step.expected) {
      const { cells } = step;
      // The exact key list (the reused array may hold more from a bigger step).
      if (cells.keys.length !== cells.n) cells.keys.length = cells.n;
      const shape = this.shapes.find(cells.keys);
      if (this.sink !== null && shape !== null && shape.jsonPrefixes !== null) {
        this.stepJson(this.sink, head, shape.jsonPrefixes, cells);
      } else {
        const { values, raws } = cellValues(cells, this.arena);
        this.emit({ ...head, stats: this.shapes.make(shape, cells.keys, values, raws) });
      }
      if (step.truncated) this.warn('record-truncated', `the stats table of train step ${head.globalStep} exceeded ${this.maxRecord} bytes and was cut`, head.time, 'main');
      return;
    }
    const where = atEnd ? 'the input ended' : 'another record began';
    this.warn('incomplete-record', `the stats of train step ${head.globalStep} are incomplete: ${where} before the table was complete`, head.time, 'main');
  }

  private controllerHeader(h: RecordHeader): void {
    const msg = h.message;
    const time = h.time;
    if (msg.startsWith('Memory-Usage ')) {
      const m = MEMORY.exec(msg);
      if (m) this.emit({ type: 'memory', phase: m[1], allocatedGB: num(m[2]), reservedGB: num(m[3]), usedGB: num(m[4]), totalGB: num(m[5]), time });
    } else if (msg.startsWith('prepare_batch/rollout:')) {
      const b = parseBatch(msg);
      if (b) this.emit({ type: 'batch', waitS: b.waitS, totalS: b.totalS, episodes: b.episodes, time });
    } else if (msg.startsWith('Training completes!')) {
      this.emit({ type: 'finished', time });
    } else if (msg.startsWith('Resume info not found')) {
      this.emit({ type: 'start', time });
    } else if (msg.includes('Recovering from StepInfo(')) {
      const m = RECOVER.exec(msg);
      if (m) this.emit({ type: 'resume', resumeStep: Number(m[1]) + 1, time });
    }
  }

  private continuation(w: Writer, body: string): void {
    const rec = w.rec;
    if (rec !== null) {
      if (rec.bare && rec.sawException && body !== '' && !/^\s/.test(body) && !isChainMarker(body) && !body.startsWith(TRACEBACK)) {
        // The traceback is over; this line is someone's ordinary output.
        this.closeRecord(w);
      } else {
        this.addDetail(rec, body);
        return;
      }
    }
    if (body.startsWith(TRACEBACK)) {
      w.rec = { kind: 'error', header: null, lines: [], bytes: 0, truncated: false, bare: true, sawException: false };
      this.addDetail(w.rec, body);
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

  private closeRecord(w: Writer): void {
    const rec = w.rec;
    if (rec === null) return;
    w.rec = null;
    const lines = rec.lines;
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
    const detail = lines.join('\n');
    const message = rec.header ? firstLine(rec.header.message) : (exceptionLine(lines) ?? firstLine(detail));
    const time = rec.header ? rec.header.time : null;
    const kind = classifyError(rec.header ? `${rec.header.message}\n${detail}` : detail);
    const ev: ErrorEvent = { type: 'error', message, detail, kind, time, source: w.source };
    this.emit(ev);
    if (rec.truncated) this.warn('record-truncated', `an error record exceeded ${this.maxRecord} bytes; its detail was cut`, time, w.source);
  }

  private emit(ev: TrainerEvent): void {
    if (this.sink !== null) this.sink.line(smallEventJson(ev) ?? eventToJsonLine(ev));
    else this.out.push(ev);
  }

  /** A step's JSON line straight from the printed value bytes: the same bytes as
   *  eventToJsonLine of its event (whose stats carry the same printed texts), with no string or
   *  object per cell. */
  private stepJson(sink: JsonSink, head: Omit<StepEvent, 'stats'>, prefixes: Uint8Array[], cells: StepCells): void {
    sink.text(stepHeadJson(head));
    const { starts, ends, json } = cells;
    const src = this.arena.buf;
    const n = prefixes.length;
    let room = 3;
    for (let i = 0; i < n; i++) room += prefixes[i].length + ends[i] - starts[i];
    let buf = sink.reserve(room);
    let at = sink.len;
    for (let i = 0; i < n; i++) {
      const p = prefixes[i];
      buf.set(p, at);
      at += p.length;
      if (json[i]) {
        for (let k = starts[i], e = ends[i]; k < e; k++) buf[at++] = src[k];
      } else {
        // Not a JSON number as printed (nan, inf, 1., True): written as JSON.stringify would.
        const t = isNan(src, starts[i], ends[i]) ? 'null' : jsonText(src, starts[i], ends[i]);
        sink.len = at;
        buf = sink.reserve(t.length + room);
        for (let k = 0; k < t.length; k++) buf[at++] = t.charCodeAt(k);
      }
    }
    buf[at++] = 0x7d;
    buf[at++] = 0x7d;
    buf[at++] = 10;
    sink.len = at;
  }

  private warn(kind: WarningKind, message: string, time: string | null, source: string): void {
    const ev: WarningEvent = { type: 'warning', message, kind, time, source };
    this.emit(ev);
  }
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl < 0 ? s : s.slice(0, nl)).trimEnd();
}

function num(s: string): number {
  return Number(s);
}

/** Fills `ends` with the positions of the next newlines from `pos`; returns how many. A small
 *  loop of its own: optimised early, its Buffer#indexOf becomes a direct memchr call, which in
 *  the big line loop it was not (a slow native call per line). */
/** `nan`, the usual non-number of a stats table (parseNumber gives null for it). */
function isNan(b: Uint8Array, start: number, end: number): boolean {
  return end - start === 3 && b[start] === 0x6e && b[start + 1] === 0x61 && b[start + 2] === 0x6e;
}

/** A printed value as JSON.stringify would write its number (null for nan, inf, garbage). */
function jsonText(b: Buffer, start: number, end: number): string {
  const s = latin1Slice(b, start, end);
  return jsonNum(parseNumber(s, 0, s.length));
}

/** Parses a whole log at once (same events as any chunking of it). */
export function parseLogBytes(buf: Uint8Array, opts?: ParserOptions): TrainerEvent[] {
  const p = new TrainerLogParser(opts);
  const events = p.push(buf);
  for (const e of p.end()) events.push(e);
  return events;
}

function joinBytes(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
