// A record being collected (an ERROR or WARNING with its further lines, a bare traceback) and
// the event it becomes when it closes: its title, kind and cause. writers.ts reads the lines into
// it; this file says what they mean.
import type { ErrorEvent, WarningEvent } from './events.js';
import type { RecordHeader } from './header.js';
import { classifyError, classifyWarning, EXCEPTION_LINE, isIndented, TRACEBACK } from './classify.js';

/** `areal.infra.utils.launcher.JobException: Job <run>:<worker> JobState.COMPLETED at node local`:
 *  the local launcher saw its job's process gone (areal/infra/launcher/local.py wait(), re-raised
 *  when it does not relaunch), which it cannot tell from a crash. */
const LAUNCHER_JOB_COMPLETED = /^(?:[\w.]+\.)?JobException: Job \S+ JobState\.COMPLETED at node /;
/** Where a record is in the traceback(s) it holds: none yet; in a traceback's frames; past its
 *  exception line; after a chain line (`During handling of the above exception…`), whose
 *  traceback follows as part of the same error. */
export const enum Tb {
  None,
  Frames,
  Exception,
  Chain,
  /** In an exception group's traceback (Python 3.11+), whose every line has a `|`/`+` margin. */
  Group,
}

/** A record being collected: an ERROR/CRITICAL one, a WARNING one (its further lines, a
 *  traceback of `exc_info=True` included, belong to it), or a bare traceback. */
export interface OpenRecord {
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
  /** A bare traceback's time, when the line that starts it has one (SGLang's `[2026-04-13 12:00:07
   *  TP0] Scheduler hit an exception: Traceback …`). */
  at: string | null;
  /** Its own time (header's, SGLang's), else the time of the last record read before it. */
  since: string | null;
  /** `since` in naive milliseconds (NaN: no time), read once: Writers.note asks at every record
   *  header of any writer while the record is open. `sinceOf`: the `since` it was read from. */
  sinceMs: number;
  sinceOf: string | null;
  /** For a logged error: the bare traceback its writer printed right before it (see Writer.held). */
  held: OpenRecord | null;
}

/** A record's open state: Open (colour codes and no reset yet), Closed (the reset ends the header
 *  line), Unknown (no colour after the `(AReaL)` tag: NO_COLOR, a log with its colour removed). */
export const enum Msg {
  Closed,
  Open,
  Unknown,
}

export function newRecord(
  kind: OpenRecord['kind'],
  header: RecordHeader | null,
  msg: Msg,
  time: string | null,
): OpenRecord {
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
    at: null,
    since: null,
    sinceMs: Number.NaN,
    sinceOf: null,
    held: null,
  };
}

/** SGLang's own log lines: `[%(asctime)s%(prefix)s] ` (sglang/srt/utils.py configure_logger), the
 *  prefix naming the rank (` TP0`, ` DP1 TP0`, ` PP0 TP1`). */
const SGLANG_TIME = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?: [A-Z]{2}\d+)*\] /;

/** The time of an SGLang line (ISO, no zone, as the trainer's), or null. */
export function sglangTime(body: string): string | null {
  if (body.charCodeAt(0) !== 0x5b /* [ */) return null;
  const m = SGLANG_TIME.exec(body);
  return m ? `${m[1]}T${m[2]}.000` : null;
}

/** The event a closed record tells, or null for one that tells nothing. */
export function recordEvent(rec: OpenRecord, source: string): ErrorEvent | WarningEvent | null {
  const lines = rec.lines;
  // Held lines of a colourless warning that no traceback followed: not known to be its message.
  if (rec.plain && rec.tbAt < 0) lines.length = 0;
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const detail = lines.join('\n');
  const h = rec.header;
  const time = h ? h.time : rec.at;
  if (rec.kind === 'warning') {
    const ev: WarningEvent = {
      type: 'warning',
      message: firstLine(h!.message),
      kind: classifyWarning(h!.message),
      time,
      source,
    };
    if (lines.length > 0) ev.detail = detail;
    return ev;
  }
  // Titled by what failed: a logged error by its message, a bare traceback by its last
  // exception line; never by a traceback's header.
  const title = h ? firstLine(h.message) : '';
  const message = title !== '' ? title : (rec.exception ?? untitled(lines));
  // AReaL's local launcher ends every run so, a completed one too: the trainer's own output
  // (its traceback, or none) tells how it ended.
  if (LAUNCHER_JOB_COMPLETED.test(message)) return null;
  const ev: ErrorEvent = { type: 'error', message, detail, kind: 'other', time, source };
  const quotes = rec.quotes;
  if (quotes === null) {
    ev.kind = classifyError(h ? `${h.message}\n${detail}` : detail);
    return ev;
  }
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
  return ev;
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
