// Line-level byte scanning for the parser's fast paths: newline batches, escape codes removed
// on bytes, and the header test of a worker's routine record. Each must agree exactly with the
// general path (header.ts, text.ts stripAnsi), which stays the reference.

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

/** The raw bytes of a routine header, around its timestamp: a worker's INFO lines differ only
 *  there, escape codes included (`ESC[1;…m(AReaL)ESC[0m ESC[37m` + time + ` WebGymWorkflow INFO: `). */
interface HeadModel {
  /** Bytes that strip to `(AReaL) `, ending between escape sequences. */
  head: Uint8Array;
  /** Bytes from the timestamp's end through the level's `: `, starting between sequences. */
  tail: Uint8Array;
}

/** Recognises a worker's routine header on its raw bytes when it has the same bytes around its
 *  timestamp as one the stripping path recognised before: no copy, no strip. Exactly
 *  isRoutineHeader of the stripped bytes: those strip to `(AReaL) ` (ending between escape
 *  sequences), then the timestamp (checked, with no escape code in it), then the same text
 *  through the same level's `: `, which is where isRoutineHeader decided (see learn). */
export class RoutineHeads {
  private models: HeadModel[] = [];

  /** Bytes [q, end) begin with a routine header of a known form. */
  matches(b: Uint8Array, q: number, end: number): boolean {
    const models = this.models;
    for (let m = 0; m < models.length; m++) {
      const { head, tail } = models[m];
      if (q + head.length + 17 + tail.length > end || !sameAt(b, q, head)) continue;
      const t = timestampEnd(b, q + head.length, end);
      if (t >= 0 && t + tail.length <= end && sameAt(b, t, tail)) return true;
    }
    return false;
  }

  /** Remembers the form of the routine header that bytes [q, end) begin with (the caller found
   *  it routine by stripping). */
  learn(b: Uint8Array, q: number, end: number): void {
    // The stripped bytes, each with its raw position (the caller passes at most HEAD bytes).
    const chars = LEARN_CHARS;
    const at = LEARN_AT;
    let n = 0;
    for (let i = q; i < end && n < HEAD; ) {
      if (b[i] === 0x1b) {
        i = escapeEnd(b, i, end);
        continue;
      }
      chars[n] = b[i];
      at[n++] = i++;
    }
    const colon = routineLevelColon(chars, 0, n, false);
    if (colon < 0 || colon + 1 >= n) return;
    // The raw bytes before the timestamp's first character and after its last one (any escape
    // code inside it is in neither: the form is the same).
    const t = timestampEnd(chars, 8, n);
    const head = Uint8Array.prototype.slice.call(b, q, at[8]);
    const tail = Uint8Array.prototype.slice.call(b, at[t - 1] + 1, at[colon + 1] + 1);
    // A worker writes through a few loggers: its two latest forms are kept.
    if (this.models.length >= 2) this.models.pop();
    this.models.unshift({ head, tail });
  }
}

const LEARN_CHARS = new Uint8Array(HEAD);
const LEARN_AT = new Int32Array(HEAD);

function sameAt(b: Uint8Array, at: number, w: Uint8Array): boolean {
  for (let k = 0; k < w.length; k++) if (b[at + k] !== w[k]) return false;
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
export function stripAnsiBytes(b: Uint8Array, start: number, end: number, out: Buffer, stopAtColonSpace = false): number {
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
 *  to BEL or ST, otherwise ESC and one byte (as stripAnsi reads them). */
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
      if (e === 0x07) { j++; break; }
      if (e === 0x1b && j + 1 < end && b[j + 1] === 0x5c) { j += 2; break; }
      j++;
    }
  } else if (j < end) {
    j++;
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
