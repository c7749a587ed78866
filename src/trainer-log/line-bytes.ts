// Line-level byte scanning for the parser's fast paths: newline batches, escape codes removed
// on bytes, and the header test of a worker's routine record. Each must agree exactly with the
// general path (header.ts, text.ts stripAnsi), which stays the reference.
import { RAY_REPEAT } from './header.js';
import { quadsOf } from './table-cells.js';

/** How much of a line's head the worker fast path strips and reads. */
export const HEAD = 192;
const AREAL = [0x28, 0x41, 0x52, 0x65, 0x61, 0x4c, 0x29, 0x20]; // `(AReaL) `
const LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'].map((l) => [...l].map((c) => c.charCodeAt(0)));

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Whether bytes [i, end) are a record header (header.ts HEADER, exactly) of level INFO or DEBUG:
 *  `(AReaL) `, `\d{8}-\d{2}:\d{2}:\d{2}(\.\d+)? `, then the first `LEVEL:` followed by a space
 *  or the end of the line, with no line terminator (a lone CR) before it. Levels contain no `:`,
 *  so the first level is found at the first colon that ends one. `whole`: [i, end) reaches the
 *  end of the line (otherwise a level right at `end` is undecided: false). */
export function isRoutineHeader(s: Uint8Array, i: number, end: number, whole: boolean): boolean {
  return routineLevelColon(s, i, end, whole) >= 0;
}

/** isRoutineHeader, telling where its message starts (after the level's `: `; one past `end`
 *  for a level that ends the line), or -1. */
export function routineMessageAt(s: Uint8Array, i: number, end: number, whole: boolean): number {
  const colon = routineLevelColon(s, i, end, whole);
  return colon < 0 ? -1 : colon + 2;
}

/** isRoutineHeader, telling where: the index of the colon after the level, or -1. */
function routineLevelColon(s: ArrayLike<number>, i: number, end: number, whole: boolean): number {
  if (end - i < 8 + 18) return -1;
  for (let k = 0; k < 8; k++) if (s[i + k] !== AREAL[k]) return -1;
  i += 8;
  const t = timestampEnd(s, i, end);
  if (t < 0 || t >= end || s[t] !== 0x20) return -1;
  const from = t + 1;
  for (let x = from; x < end; x++) {
    const c = s[x];
    if (c === 0x0d) return -1;
    if (c !== 0x3a /* : */) continue;
    if (x + 1 < end ? s[x + 1] !== 0x20 : !whole) continue;
    const l = levelEndingAt(s, from, x);
    if (l >= 0) return l <= 1 ? x : -1;
  }
  return -1;
}

/** The end of a record header's timestamp `\d{8}-\d{2}:\d{2}:\d{2}(\.\d+)?` at `i`, or -1. */
function timestampEnd(s: ArrayLike<number>, i: number, end: number): number {
  if (end - i < 17) return -1;
  for (let k = 0; k < 17; k++) {
    const c = s[i + k];
    if (k === 8 ? c !== 0x2d : k === 11 || k === 14 ? c !== 0x3a : !isDigit(c)) return -1;
  }
  i += 17;
  if (i + 1 < end && s[i] === 0x2e && isDigit(s[i + 1])) {
    i += 2;
    while (i < end && isDigit(s[i])) i++;
  }
  return i;
}

/** The raw bytes of a record header around its timestamp: the lines of one logger differ only
 *  there, escape codes included (`ESC[1;…m(AReaL)ESC[0m ESC[37m` + time + ` WebGymWorkflow INFO: `). */
interface HeaderForm {
  /** Bytes that strip to `(AReaL) `, ending between escape sequences. */
  head: Uint8Array;
  /** Bytes from the timestamp's end through the level's `: `, starting between sequences. */
  tail: Uint8Array;
  /** What the header regular expression (header.ts) gives for them. */
  logger: string;
  level: string;
  /** head and tail as doubles, to compare them eight bytes at a time (quadsOf). Absent in a form
   *  restored from a watch snapshot written before they existed: made at its first match. */
  headQ?: Float64Array;
  tailQ?: Float64Array;
}

/** Recognises a record header on its raw bytes when it has the same bytes around its timestamp
 *  as one the stripping path read before: no copy, no strip, no regular expression. Exactly what
 *  the stripping path gives: the bytes strip to `(AReaL) ` (ending between escape sequences),
 *  then the timestamp (checked, with no escape code in it), then the same text through the same
 *  level's `: `, which is where the header's first level was found (see learn). */
export class HeaderForms {
  private forms: HeaderForm[] = [];
  /** After a match: its form, and where its timestamp is. */
  matched: HeaderForm | null = null;
  tsStart = 0;
  tsEnd = 0;

  /** keep: how many forms are remembered (a writer logs through a few loggers). */
  constructor(private readonly keep: number) {}

  /** Where the message starts when bytes [q, end) begin with a header of a known form, or -1.
   *  `dv`: a DataView of `b`. */
  match(b: Uint8Array, dv: DataView, q: number, end: number): number {
    const forms = this.forms;
    // Forms share their head (learn makes them one array), so it is compared once.
    let head: Uint8Array | null = null;
    let t = -1;
    for (let m = 0; m < forms.length; m++) {
      const f = forms[m];
      if (f.head !== head) {
        head = f.head;
        const hq = f.headQ ?? (f.headQ = quadsOf(head));
        t = q + head.length + 17 <= end && sameWordsAt(b, dv, q, head, hq) ? timestampEnd(b, q + head.length, end) : -1;
      }
      if (t >= 0 && t + f.tail.length <= end && sameWordsAt(b, dv, t, f.tail, f.tailQ ?? (f.tailQ = quadsOf(f.tail)))) {
        this.matched = f;
        this.tsStart = q + head.length;
        this.tsEnd = t;
        return t + f.tail.length;
      }
    }
    return -1;
  }

  /** Remembers the form of the header that bytes [q, end) begin with. `formEnd`: where the
   *  header ends in the stripped text (after the level's `: `), with what it gave; omitted: the
   *  caller found a routine (INFO or DEBUG) header there, and its end is found here. */
  learn(b: Uint8Array, q: number, end: number, formEnd = -1, logger = '', level = ''): void {
    // The stripped bytes, each with its raw position, as far as a header can reach.
    const chars = LEARN_CHARS;
    const at = LEARN_AT;
    let n = 0;
    for (let i = q; i < end && n < HEAD;) {
      if (b[i] === 0x1b) {
        i = escapeEnd(b, i, end);
        continue;
      }
      chars[n] = b[i];
      at[n++] = i++;
    }
    if (formEnd < 0) {
      const colon = routineLevelColon(chars, 0, n, false);
      formEnd = colon + 2;
    }
    if (formEnd < 2 || formEnd > n || chars[formEnd - 1] !== 0x20 || chars[formEnd - 2] !== 0x3a) return;
    // The raw bytes before the timestamp's first character and after its last one (an escape
    // code inside it is in neither: the form is the same).
    const t = timestampEnd(chars, 8, n);
    if (t < 0) return;
    let head: Uint8Array = Uint8Array.prototype.slice.call(b, q, at[8]);
    const tail = Uint8Array.prototype.slice.call(b, at[t - 1] + 1, at[formEnd - 1] + 1);
    for (const f of this.forms) if (f.head.length === head.length && sameAt(f.head, 0, head)) head = f.head;
    if (this.forms.length >= this.keep) this.forms.pop();
    this.forms.unshift({ head, tail, logger, level });
  }
}

const LEARN_CHARS = new Uint8Array(HEAD);
const LEARN_AT = new Int32Array(HEAD);

function sameAt(b: Uint8Array, at: number, w: Uint8Array): boolean {
  for (let k = 0; k < w.length; k++) if (b[at + k] !== w[k]) return false;
  return true;
}

/** sameAt, eight bytes at a time where `q` (quadsOf(w)) has them: `dv` is a DataView of `b`, and
 *  the caller checked that w fits in it from `at`. */
export function sameWordsAt(b: Uint8Array, dv: DataView, at: number, w: Uint8Array, q: Float64Array): boolean {
  const nq = q.length;
  for (let k = 0; k < nq; k++) if (dv.getFloat64(at + 8 * k, true) !== q[k]) return false;
  for (let k = nq * 8; k < w.length; k++) if (b[at + k] !== w[k]) return false;
  return true;
}

/** The index in LEVELS of the level word that ends right before `colon` (and starts at or after
 *  `from`), or -1. */
function levelEndingAt(s: ArrayLike<number>, from: number, colon: number): number {
  for (let l = 0; l < LEVELS.length; l++) {
    const w = LEVELS[l];
    const x = colon - w.length;
    if (x < from) continue;
    let k = 0;
    while (k < w.length && s[x + k] === w[k]) k++;
    if (k === w.length) return l;
  }
  return -1;
}

let stripStop = 0;

/** Where the last stripAnsiBytes stopped reading (`end`, unless it stopped at a `: `). */
export function lastStripStop(): number {
  return stripStop;
}

/** Copies bytes [start, end) without ANSI escape sequences into `out` (exactly what stripAnsi
 *  removes from the same text); returns the length, or -1 when there was no ESC (nothing copied).
 *  `stopAtColonSpace`: stop after the first `: ` copied (see stripStop). Two loops, one per mode:
 *  the whole-line one is the parser's hottest copy and runs without the per-byte `: ` test. */
export function stripAnsiBytes(
  b: Uint8Array,
  start: number,
  end: number,
  out: Buffer,
  stopAtColonSpace = false,
): number {
  let i = start;
  while (i < end && b[i] !== 0x1b) i++;
  stripStop = end;
  if (i === end) return -1;
  let n = 0;
  for (let k = start; k < i; k++) out[n++] = b[k];
  if (stopAtColonSpace) return stripHead(b, i, end, out, n);
  while (i < end) {
    // A run of text, copied in a tight loop up to the next ESC.
    let c = b[i];
    while (c !== 0x1b) {
      out[n++] = c;
      if (++i === end) return n;
      c = b[i];
    }
    i = escapeEnd(b, i, end);
  }
  return n;
}

/** Where the text of bytes [start, end) ends when no escape sequence is in it but, at most, one
 *  that ends it (colorlog's reset after a message): stripped, it is bytes [start, that) as they
 *  are, with nothing to copy. -1: escape codes elsewhere (stripAnsiBytes them). */
export function plainTextEnd(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let bits = 0;
  let c = 0;
  while (i < end && (c = b[i]) !== 0x1b) {
    bits |= c;
    i++;
  }
  plainAscii = bits < 0x80;
  if (i === end) return end;
  return escapeEnd(b, i, end) === end ? i : -1;
}

let plainAscii = false;

/** The text the last plainTextEnd read up to its first ESC was ASCII: its latin1 string is its
 *  UTF-8 text as it is (bytesToUtf8 need not look at it again). */
export function lastPlainAscii(): boolean {
  return plainAscii;
}

/** stripAnsiBytes from the first ESC at `i` on, stopping after the first `: ` copied. A `: ` cut
 *  by escape codes counts, as it does in the stripped text. */
function stripHead(b: Uint8Array, i: number, end: number, out: Buffer, n: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x1b) {
      out[n++] = c;
      i++;
      if (c === 0x20 && n >= 2 && out[n - 2] === 0x3a) {
        // Enough for a record header's level (a prefix of the stripped line, as always).
        stripStop = i;
        return n;
      }
      continue;
    }
    i = escapeEnd(b, i, end);
  }
  return n;
}

/** Where the escape sequence that starts at `i` (an ESC) ends: CSI up to its final byte, OSC up
 *  to BEL or ST, otherwise ESC, its intermediates and one byte (as stripAnsi reads them). */
function escapeEnd(b: Uint8Array, i: number, end: number): number {
  let j = i + 1;
  const d = j < end ? b[j] : -1;
  if (d === 0x5b /* [ */) {
    j++;
    while (j < end) {
      const e = b[j++];
      if (e >= 0x40 && e <= 0x7e) break;
    }
  } else if (d === 0x5d /* ] */) {
    j++;
    while (j < end) {
      const e = b[j];
      if (e === 0x07) {
        j++;
        break;
      }
      if (e === 0x1b && j + 1 < end && b[j + 1] === 0x5c) {
        j += 2;
        break;
      }
      j++;
    }
  } else {
    while (j < end && b[j] >= 0x20 && b[j] <= 0x2f) j++;
    if (j < end) j++;
  }
  return j;
}

export function lineEnds(b: Buffer, pos: number, ends: Int32Array): number {
  let n = 0;
  while (n < ends.length) {
    const nl = b.indexOf(10, pos);
    if (nl < 0) break;
    ends[n++] = nl;
    pos = nl + 1;
  }
  return n;
}

/** Where a routine header's message starts in the raw bytes, from where it starts in a head
 *  stripped up to its first `: ` (n bytes, the strip stopped at raw `stop`): that `: ` is the
 *  level's, so the message starts where the strip stopped. -1: not known here. */
export function strippedMessageAt(at: number, n: number, stop: number): number {
  return at < 0 || at < n ? -1 : stop;
}

/** A worker's routine record that only ends the writer's open record: not its GPU memory
 *  (`Memory-Usage …`, an event of its own), nor a message starting with an escape code (whose
 *  text is not known here). */
export function isPlainRoutineMessage(b: Uint8Array, msg: number, lineEnd: number): boolean {
  return msg >= lineEnd || (b[msg] !== 0x4d /* M */ && b[msg] !== 0x1b);
}

/** The line's raw bytes end with colorlog's reset `ESC[0m`, which ends a record's message (or
 *  with the reset and Ray's log dedup note, ` [repeated 7x across cluster]`, once followed by its advice
 *  `(Ray deduplicates logs by default. …)`: header.ts RAY_REPEAT). */
export function endsWithReset(b: Uint8Array, start: number, end: number): boolean {
  if (end > start && (b[end - 1] === 0x5d /* ] */ || b[end - 1] === 0x29) /* ) */) end = rayRepeatStart(b, start, end);
  return end - start >= 4 && b[end - 1] === 0x6d && b[end - 2] === 0x30 && b[end - 3] === 0x5b && b[end - 4] === 0x1b;
}

/** Where a record header line leaves its message (Msg in writers.ts): 0 closed (colorlog's reset,
 *  which ends a message, is at its end), 1 open (the line is coloured beyond the `(AReaL)` tag's
 *  own codes and has no reset yet), 2 unknown (no colour after the tag). With NO_COLOR colorlog
 *  writes no codes and no reset for a WARNING or an ERROR (AReaL's formatter colours only INFO and
 *  DEBUG records by their logger, areal/utils/logging.py), and a log with its colour removed has
 *  none at all: where such a message ends is not written. */
export function messageState(b: Uint8Array, start: number, end: number): 0 | 1 | 2 {
  if (endsWithReset(b, start, end)) return 0;
  // The tag `(AReaL)ESC[0m`: the line's codes after it, or the whole line's without it.
  let from = start;
  for (let i = start + 1; i + 4 < end && i < start + 96; i++) {
    if (b[i] === 0x29 && b[i - 1] === 0x4c && b[i + 1] === 0x1b && b[i + 2] === 0x5b && b[i + 3] === 0x30) {
      from = i + 5;
      break;
    }
  }
  for (let i = from; i < end; i++) if (b[i] === 0x1b) return 1;
  return 2;
}

/** Where Ray's dedup note at the end of bytes [start, end) begins (end when there is none). */
function rayRepeatStart(b: Uint8Array, start: number, end: number): number {
  const from = Math.max(start, end - 320);
  const m = RAY_REPEAT.exec(Buffer.from(b.buffer, b.byteOffset + from, end - from).toString('latin1'));
  return m ? from + m.index : end;
}

/** The pre-0.5.2 header's start (`20260525-12:19:55.952 `): a digit, and `-` after 8 of them. */
export function isOldHeaderStart(body: string): boolean {
  const c = body.charCodeAt(0);
  return c >= 0x30 && c <= 0x39 && body.charCodeAt(8) === 0x2d && body.length >= 26;
}
