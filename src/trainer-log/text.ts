// Small text helpers for the parser. The parser works on "binary" (latin1) strings, one char per
// byte, because that is the cheapest way to get a JS string out of bytes and it makes chunk
// boundaries inside a UTF-8 character harmless: a line is only looked at once it is whole, and
// only the few strings we keep (keys, messages) are decoded back to UTF-8.

let lastStamp = '';
let lastIso = '';

/** `20260525-12:19:55.952` -> `2026-05-25T12:19:55.952` (ISO 8601, no zone, as printed). The lines
 *  of one moment share a stamp (a step's records, a burst of workers' lines): the last one's ISO
 *  text is handed out again: one string, which later compares with itself at once. */
export function toIsoTime(stamp: string): string {
  if (stamp === lastStamp) return lastIso;
  lastIso = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9)}`;
  lastStamp = stamp;
  return lastIso;
}

// The trainer's time: its machine's LOCAL wall clock without a zone (`2026-05-25T12:19:55.952`).
// Arithmetic between two such times is exact whatever the zone, so they are kept as "naive
// milliseconds" (the fields read as if they were UTC). The one reader of that time (src/health's
// naiveMs is this one).
const NAIVE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** The last time read and its value: a record's time is read by the store and by several rules. */
let lastTime = '';
let lastMs: number | null = null;

/** Naive milliseconds of a zone-less ISO time; null when it is not one. */
export function naiveTimeMs(s: string | null | undefined): number | null {
  if (!s) return null;
  if (s === lastTime) return lastMs;
  lastMs = readNaive(s);
  lastTime = s;
  return lastMs;
}

function readNaive(s: string): number | null {
  const m = NAIVE.exec(s.trim());
  if (!m) return null;
  const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, ms);
}

/** Milliseconds of an ISO time without zone, read as if it were UTC (naiveTimeMs; NaN when it is
 *  none). Only differences matter: a naive clock, not a real instant. */
export function isoTimeToMs(iso: string): number {
  return naiveTimeMs(iso) ?? Number.NaN;
}

const HIGH_BYTE = /[\x80-\xff]/;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The bytes bytesToUtf8 decodes, reused: a new array per call cost a malloc and its sweeping
 *  (every worker warning with a `—` in it). */
let utf8Scratch = new Uint8Array(256);

/** Re-decodes a latin1 (byte) string as UTF-8; invalid sequences become U+FFFD. */
export function bytesToUtf8(s: string): string {
  if (!HIGH_BYTE.test(s)) return s;
  if (utf8Scratch.length < s.length) utf8Scratch = new Uint8Array(Math.max(s.length, utf8Scratch.length * 2));
  const bytes = utf8Scratch;
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i) & 0xff;
  return utf8.decode(bytes.subarray(0, s.length));
}

/** Removes ANSI escape sequences: CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL|ST`) and the other
 *  escapes (`ESC`, intermediates such as `(`, one final byte: `ESC ( B`, written by `tput sgr0`).
 *  The one stripper of the trainer's output (the parser's, the log pane's). The trainer always colours its output (NO_COLOR does not help), so this runs on every
 *  header line; it returns the input untouched when there is no ESC. */
export function stripAnsi(s: string): string {
  let i = s.indexOf('\x1b');
  if (i < 0) return s;
  let out = '';
  let from = 0;
  while (i >= 0) {
    out += s.slice(from, i);
    let j = i + 1;
    const c = s.charCodeAt(j);
    if (c === 0x5b /* [ */) {
      j++;
      while (j < s.length) {
        const d = s.charCodeAt(j);
        j++;
        if (d >= 0x40 && d <= 0x7e) break;
      }
    } else if (c === 0x5d /* ] */) {
      j++;
      while (j < s.length) {
        const d = s.charCodeAt(j);
        if (d === 0x07) {
          j++;
          break;
        }
        if (d === 0x1b && s.charCodeAt(j + 1) === 0x5c) {
          j += 2;
          break;
        }
        j++;
      }
    } else {
      while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
      if (j < s.length) j++;
    }
    from = j;
    i = s.indexOf('\x1b', from);
  }
  return out + s.slice(from);
}

/** Parses a decimal number written like Python prints it (`1.2345e-03`, `-7`, `nan`, `inf`):
 *  NaN for nan, ±Infinity for inf and -inf, null for text that is no number at all. The text is
 *  read as latin1 bytes (parseNumberBytes); a character above U+00FF is no digit, so such text
 *  goes to the general reading (Number(), as Python's float()) directly. */
export function parseNumber(s: string, start: number, end: number): number | null {
  const text = s.slice(start, end);
  if (/[^\x00-\xff]/.test(text)) return slowNumber(text.replace(/^ +| +$/g, ''));
  return parseNumberBytes(Buffer.from(text, 'latin1'), 0, text.length);
}

/** Fast path: up to 15 significant digits and |exponent| <= 22, where integer / 10^k (or
 *  integer * 10^k) of two exact doubles is correctly rounded, i.e. equals Python's float(). */
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

/** parseNumber of the latin1 text of bytes [start, end) (spaces around it ignored), without a
 *  string for the usual cell (`1.2345e-03`: within the fast path's bounds). */
export function parseNumberBytes(b: Uint8Array, start: number, end: number): number | null {
  while (start < end && b[start] === 0x20) start++;
  while (end > start && b[end - 1] === 0x20) end--;
  if (start >= end) return null;
  let i = start;
  let neg = false;
  let c = b[i];
  if (c === 0x2d || c === 0x2b) {
    neg = c === 0x2d;
    i++;
  }
  let mant = 0;
  let digits = 0;
  let scale = 0;
  let sawDigit = false;
  let point = false;
  for (; i < end; i++) {
    c = b[i];
    if (c === 0x2e && !point) {
      point = true;
      continue;
    }
    if (c < 0x30 || c > 0x39) break;
    if (digits > 0 || c !== 0x30) {
      mant = mant * 10 + (c - 0x30);
      digits++;
    }
    if (point) scale--;
    sawDigit = true;
  }
  if (!sawDigit) return slowNumber(latin1Slice(b, start, end));
  let exp = 0;
  if (i < end && (b[i] | 0x20) === 0x65) {
    i++;
    let eneg = false;
    if (i < end && ((c = b[i]) === 0x2d || c === 0x2b)) {
      eneg = c === 0x2d;
      i++;
    }
    let ed = 0;
    while (i < end && (c = b[i]) >= 0x30 && c <= 0x39) {
      exp = exp * 10 + (c - 0x30);
      ed++;
      i++;
      if (exp > 10000) break;
    }
    if (ed === 0) return null;
    if (eneg) exp = -exp;
  }
  if (i !== end) return slowNumber(latin1Slice(b, start, end));
  const e = exp + scale;
  if (digits <= 15 && e >= -22 && e <= 22) {
    const v = e < 0 ? mant / POW10[-e] : mant * POW10[e];
    return neg ? -v : v;
  }
  const v = Number(latin1Slice(b, start, end));
  return Number.isNaN(v) ? null : v;
}

/** The words Python's float() reads besides digits: nan stays NaN (a fact of its own, never
 *  null), inf and -inf stay infinite. */
function slowNumber(t: string): number | null {
  const lower = t.toLowerCase();
  if (lower === 'nan' || lower === '+nan' || lower === '-nan') return Number.NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (lower === 'true') return 1;
  if (lower === 'false') return 0;
  const v = Number(t);
  return Number.isNaN(v) || t.trim() === '' ? null : v;
}

// A Buffer view of caller bytes (no copy). Buffer is a global of the runtime (no I/O involved):
// its indexOf is a memchr and its latin1 decoding a plain copy, unlike TextDecoder('latin1'),
// which is really windows-1252.
export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

type Latin1Sliceable = Buffer & { latin1Slice?: (start: number, end: number) => string };
type Utf8Sliceable = Buffer & { utf8Slice?: (start: number, end: number) => string };

/** Bytes [start, end) decoded as UTF-8, as bytesToUtf8 decodes their latin1 string (TextDecoder:
 *  U+FFFD for each maximal invalid part; test/trainer-log/utf8-slice.test.ts holds them equal),
 *  straight from the bytes. A leading BOM, which TextDecoder drops, goes to bytesToUtf8. */
export function utf8Slice(b: Uint8Array, start: number, end: number): string {
  if (end - start >= 3 && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf)
    return bytesToUtf8(latin1Slice(b, start, end));
  const buf = asBuffer(b) as Utf8Sliceable;
  return buf.utf8Slice ? buf.utf8Slice(start, end) : buf.toString('utf8', start, end);
}

/** Bytes [start, end) as a latin1 string; the direct binding skips Buffer#toString's checks. */
export function latin1Slice(b: Uint8Array, start: number, end: number): string {
  const buf = asBuffer(b) as Latin1Sliceable;
  return buf.latin1Slice ? buf.latin1Slice(start, end) : buf.toString('latin1', start, end);
}
