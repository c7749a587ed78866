// The trainer's own lines as a log pane shows them, like `tail -f` (src/session/trainer-lines.ts
// keeps the last N): bytes in, cut anywhere (inside a UTF-8 character, inside
// an ANSI code), complete lines out, each decoded and cleaned once: ANSI codes stripped, invalid
// UTF-8 as U+FFFD, carriage returns applied as a terminal would, a level per line (a traceback's
// lines carry its error's). Stats tables (150-250 keys drawn with box characters) are what the
// panels are for: each collapses to one summary line. Memory is bounded: a capped partial line,
// a capped map of sources. Keeping the last N lines (a ring) is the caller's.
import { matchLinePrefix, parseHeader, rankPrefixLength } from './header.js';
import { stripAnsi } from './text.js';

/** A line longer than this (bytes before cleaning) keeps its head; the rest is dropped. */
const MAX_LINE_BYTES = 16 * 1024;
/** Characters kept per cleaned line (the widest pane is far narrower; search sees this much). */
const MAX_LINE_CHARS = 2000;
const MAX_SOURCES = 256;

export type LogLineLevel = 'error' | 'warning' | 'info';

export interface LogLine {
  level: LogLineLevel;
  text: string;
  /** 'table': the summary line of a collapsed stats table. */
  kind?: 'table';
}

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const NEEDS_CLEANING = /[\x00-\x1f\x7f-\x9f]/;

/** One raw line (no newline) as a terminal would show it, without colours or control characters. */
export function cleanLine(raw: string): string {
  if (!NEEDS_CLEANING.test(raw)) return raw;
  // The parser's stripper: a CSI or OSC cut by the end of the line goes to its end.
  let s = raw.includes('\x1b') ? stripAnsi(raw) : raw;
  // CRLF, and progress bars redrawn with CR: later text overwrites earlier text from column 0.
  s = s.replace(/\r+$/, '');
  if (s.includes('\r')) s = s.split('\r').reduce((shown, seg) => seg + shown.slice(seg.length), '');
  if (s.includes('\t')) s = expandTabs(s);
  return s.replace(CONTROL, '');
}

function expandTabs(s: string): string {
  let out = '';
  for (const ch of s) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
  return out;
}

// Other record heads seen on a trainer's stdout: Ray/Python/SGLang lines starting with a date,
// Python's basicConfig (`ERROR:root:`), glog/c10d (`[E ProcessGroupNCCL.cpp:…]`, `[rank3]:[W1120 …]`),
// Python warnings (`file.py:12: UserWarning:`).
const DATED = /^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d/;
const DATED_LEVEL =
  /^\[?\d{4}-\d\d-\d\d[ T][\d:.,]+\]?(?:\s+\S*[^\s.,;:!?]){0,3}?\s+\[?(ERROR|CRITICAL|FATAL|WARNING|WARN|INFO|DEBUG)\b/;
const BASIC = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL):/;
const GLOG = /^(?:\[rank\d+\]:)?\[([EWIF])[\d ]/;
const PY_WARNING = /^\S+\.py:\d+: \w*Warning: /;

/** The level a line starts a record with; null for a line that continues a record (a traceback). */
export function headerLevel(body: string): LogLineLevel | null {
  // The parser's record header (header.ts): the same lines start records in both.
  const h = parseHeader(body)?.level;
  if (h) return h === 'ERROR' || h === 'CRITICAL' ? 'error' : h === 'WARNING' ? 'warning' : 'info';
  if (body.startsWith('Traceback (most recent call last)')) return 'error';
  if (DATED.test(body)) {
    // The level is a word right after the date, at most a few tokens in (Ray:
    // `2026-05-25 12:00:00,000\tERROR worker.py:…`, Python: `… - root - WARNING - …`); not the message.
    const lv = DATED_LEVEL.exec(body)?.[1];
    return lv === 'ERROR' || lv === 'CRITICAL' || lv === 'FATAL'
      ? 'error'
      : lv === 'WARNING' || lv === 'WARN'
        ? 'warning'
        : 'info';
  }
  const b = BASIC.exec(body);
  if (b) return b[1] === 'ERROR' || b[1] === 'CRITICAL' ? 'error' : b[1] === 'WARNING' ? 'warning' : 'info';
  const g = GLOG.exec(body);
  if (g) return g[1] === 'E' || g[1] === 'F' ? 'error' : g[1] === 'W' ? 'warning' : 'info';
  if (PY_WARNING.test(body)) return 'warning';
  return null;
}

interface OpenTable {
  keys: number;
  /** Its top border was seen (a table whose start was not read is marked as cut). */
  topSeen: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Bytes of a log in, its cleaned lines out (tables collapsed), in order. */
export class LogLineReader {
  /** Bytes of the line still being received. */
  private pending: Buffer[] = [];
  private pendingLen = 0;
  /** The current line went over MAX_LINE_BYTES: its tail is skipped until the newline. */
  private overflow = false;
  /** Reading starts inside a line: skip to the first newline. */
  private skipToNewline = false;
  private readonly tables = new Map<string, OpenTable>();
  /** Per source, the level of its current record (a traceback's lines follow an ERROR header). */
  private readonly levels = new Map<string, LogLineLevel>();
  private out: LogLine[] = [];

  /** The bytes that follow start inside a line (an earlier part of the log is not read): the
   *  part up to the first newline is skipped. */
  startInsideLine(): void {
    this.skipToNewline = true;
  }

  /** The lines these bytes complete. */
  push(bytes: Uint8Array): LogLine[] {
    const out = (this.out = []);
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, from);
      if (nl < 0) break;
      if (this.skipToNewline) this.skipToNewline = false;
      else this.completeLine(buf.subarray(from, nl));
      from = nl + 1;
    }
    if (from < buf.length && !this.skipToNewline) this.addPending(buf.subarray(from));
    return out;
  }

  /** End of input: a last line without its newline, and a table cut by the end. */
  end(): LogLine[] {
    const out = (this.out = []);
    if (this.pendingLen > 0) this.completeLine(Buffer.alloc(0));
    for (const [source, t] of [...this.tables]) this.closeTable(source, t, true);
    this.reset();
    return out;
  }

  /** The log was truncated or replaced: what was held of its last line and records is dropped. */
  reset(): void {
    this.pending = [];
    this.pendingLen = 0;
    this.overflow = false;
    this.skipToNewline = false;
    this.tables.clear();
    this.levels.clear();
  }

  private addPending(part: Buffer): void {
    if (this.overflow) return;
    if (this.pendingLen + part.length <= MAX_LINE_BYTES) {
      // Copied: the chunk's buffer must not be kept alive by a few bytes of it.
      this.pending.push(Buffer.from(part));
      this.pendingLen += part.length;
      return;
    }
    const all = Buffer.concat([...this.pending, part]);
    // A progress bar redrawn with CR for hours: only its latest state matters.
    const cr = all.lastIndexOf(0x0d);
    if (cr >= 0 && all.length - cr - 1 <= MAX_LINE_BYTES) {
      this.pending = [Buffer.from(all.subarray(cr + 1))];
      this.pendingLen = this.pending[0].length;
      return;
    }
    // Keep the head, cut at a character boundary (never inside a UTF-8 sequence).
    let end = MAX_LINE_BYTES;
    while (end > 0 && (all[end] & 0xc0) === 0x80) end--;
    this.pending = [Buffer.from(all.subarray(0, end))];
    this.pendingLen = end;
    this.overflow = true;
  }

  private completeLine(tail: Buffer): void {
    let bytes: Buffer;
    if (this.pendingLen === 0) bytes = tail;
    else if (this.overflow) bytes = Buffer.concat(this.pending);
    else bytes = Buffer.concat([...this.pending, tail]);
    const cut = this.overflow;
    this.pending = [];
    this.pendingLen = 0;
    this.overflow = false;
    let text = cleanLine(decoder.decode(bytes));
    if (cut || text.length > MAX_LINE_CHARS) text = text.slice(0, MAX_LINE_CHARS - 1) + '…';
    this.classify(text);
  }

  private classify(text: string): void {
    // The parser's prefix grammar (header.ts): the same lines have the same writer in both. Used to
    // classify lines only; they are shown as printed.
    const p = matchLinePrefix(text);
    let body = p ? text.slice(p.length) : text;
    const rank = rankPrefixLength(body);
    if (rank > 0) body = body.slice(rank);
    // merged.log prefixes only the first line of the controller's records: its tables and
    // tracebacks follow unprefixed, so `[main]` and no prefix are one source.
    const source = !p || p.source === 'main' ? '' : p.key;
    const c = body.charAt(0);
    const table = this.tables.get(source);
    if (c === '╒' || c === '│' || c === '├' || c === '╘') {
      const t = c === '╒' || !table ? this.openTable(source, c === '╒') : table;
      if (c === '│') t.keys += countKeys(body);
      if (c === '╘') this.closeTable(source, t);
      return;
    }
    if (table) this.closeTable(source, table, true);
    let level = headerLevel(body);
    if (level) this.setLevel(source, level);
    // Only an error's level carries over to its unheaded lines (the traceback); a warning is one line.
    else level = this.levels.get(source) === 'error' ? 'error' : 'info';
    this.out.push({ level, text });
  }

  private openTable(source: string, topSeen: boolean): OpenTable {
    const open = this.tables.get(source);
    // A new top border while one is open: the previous table never got its bottom.
    if (open && topSeen) this.closeTable(source, open, true);
    const t: OpenTable = { keys: 0, topSeen };
    if (this.tables.size >= MAX_SOURCES) this.tables.clear();
    this.tables.set(source, t);
    return t;
  }

  private closeTable(source: string, t: OpenTable, cutShort = false): void {
    this.tables.delete(source);
    const whole = t.topSeen && !cutShort;
    const what = whole ? `[stats table: ${t.keys} keys]` : `[stats table, cut: ${t.keys} keys seen]`;
    this.out.push({ level: 'info', text: `${source ? source + ' ' : ''}  ${what}`, kind: 'table' });
  }

  private setLevel(source: string, level: LogLineLevel): void {
    if (this.levels.size >= MAX_SOURCES && !this.levels.has(source)) this.levels.clear();
    this.levels.set(source, level);
  }
}

/** Keys on one `│ k │ v │ k │ v │` row (4 pairs per row; the last row may be part empty). */
function countKeys(row: string): number {
  const cells = row.split('│');
  let n = 0;
  for (let i = 1; i < cells.length - 1; i += 2) if (cells[i].trim()) n++;
  return n;
}
