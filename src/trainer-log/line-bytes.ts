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
  if (end - i < 8 + 18) return false;
  for (let k = 0; k < 8; k++) if (s[i + k] !== AREAL[k]) return false;
  i += 8;
  for (let k = 0; k < 17; k++) {
    const c = s[i + k];
    if (k === 8 ? c !== 0x2d : k === 11 || k === 14 ? c !== 0x3a : !isDigit(c)) return false;
  }
  i += 17;
  if (s[i] === 0x2e && i + 1 < end && isDigit(s[i + 1])) {
    i += 2;
    while (i < end && isDigit(s[i])) i++;
  }
  if (i >= end || s[i] !== 0x20) return false;
  const from = i + 1;
  for (let x = from; x < end; x++) {
    const c = s[x];
    if (c === 0x0d) return false;
    if (c !== 0x3a /* : */) continue;
    if (x + 1 < end ? s[x + 1] !== 0x20 : !whole) continue;
    const l = levelEndingAt(s, from, x);
    if (l >= 0) return l <= 1;
  }
  return false;
}

/** The index in LEVELS of the level word that ends right before `colon` (and starts at or after
 *  `from`), or -1. */
function levelEndingAt(s: Uint8Array, from: number, colon: number): number {
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
