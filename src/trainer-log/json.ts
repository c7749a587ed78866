// The pieces of the JSON Lines form of events (event-json.ts puts them together). JSON has no
// spelling for NaN or Infinity, so a non-finite stats value is written as the JSON string the
// trainer printed: "nan", "inf" or "-inf" (three different facts; finite values stay numbers, null
// stays a cell that held no number); statsFromJson reads them back.
// JsonSink: lines as bytes, gathered in one reused buffer: `awrl-tui parse --json` writes a whole
// chunk's worth of lines with one write, and a step's line is assembled from the printed value
// bytes and per-key-set prefix bytes without building a string (step-json.ts).
import type { StepEvent, TrainerEvent } from './events.js';

/** How the trainer prints a non-finite float (Python's `format(x, '.4e')`). */
export function nonFiniteText(v: number): 'nan' | 'inf' | '-inf' {
  return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}

/** A stats value as a JSON value (for JSON.stringify): nan, inf and -inf as their strings. */
export function statJsonValue(v: number | null): number | string | null {
  return v === null || Number.isFinite(v) ? v : nonFiniteText(v);
}

/** A stats value as `parse --json` writes it: finite numbers as JSON.stringify does, nan, inf and
 *  -inf as the JSON strings "nan", "inf", "-inf", null (a cell that held no number) as null. */
export function jsonStat(v: number | null): string {
  if (v === null) return 'null';
  return Number.isFinite(v) ? jsonNum(v) : '"' + nonFiniteText(v) + '"';
}

/** A step's stats as read back from its JSON line: "nan", "inf" and "-inf" become NaN, Infinity
 *  and -Infinity again; numbers and null stay. Anything else is not what `parse --json` writes. */
export function statsFromJson(stats: Record<string, unknown>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [k, v] of Object.entries(stats)) {
    if (typeof v === 'number' || v === null) out[k] = v;
    else if (v === 'nan') out[k] = Number.NaN;
    else if (v === 'inf') out[k] = Infinity;
    else if (v === '-inf') out[k] = -Infinity;
    else {
      const what = `stats value of ${JSON.stringify(k)} is ${JSON.stringify(v)}`;
      throw new Error(`${what}: not a number, null, "nan", "inf" or "-inf"`);
    }
  }
  return out;
}

/** One line of `parse --json` / `--follow --json` output back as the event it was written from. */
export function eventFromJsonLine(line: string): TrainerEvent {
  const e = JSON.parse(line) as TrainerEvent;
  return e.type === 'step' ? { ...e, stats: statsFromJson(e.stats as Record<string, unknown>) } : e;
}

export class JsonSink {
  private buf: Buffer = Buffer.allocUnsafe(1 << 20);
  len = 0;

  /** Room for n more bytes. */
  reserve(n: number): Buffer {
    if (this.len + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    return this.buf;
  }

  /** A string as UTF-8 (lone surrogates become U+FFFD, as Buffer.from(s, 'utf8') does). */
  text(s: string): void {
    const buf = this.reserve(s.length * 3);
    this.len += buf.write(s, this.len, 'utf8');
  }

  /** One JSON line: the text and its newline. */
  line(s: string): void {
    this.text(s);
    this.byte(10);
  }

  byte(c: number): void {
    this.reserve(1)[this.len++] = c;
  }

  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    const buf = this.reserve(n);
    let at = this.len;
    if (n > 64) {
      buf.set(src.subarray(start, end), at);
    } else {
      for (let i = start; i < end; i++) buf[at++] = src[i];
    }
    this.len += n;
  }

  /** The bytes gathered since the last take(); valid until the next write to the sink. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.len);
    this.len = 0;
    return out;
  }
}

/** `{"type":"step",…,"stats":{` — the part of a step's JSON line before its stats. */
export function stepHeadJson(e: Omit<StepEvent, 'stats'>): string {
  return (
    `{"type":"step","epoch":${jsonNum(e.epoch)},"epochs":${jsonNum(e.epochs)},"step":${jsonNum(e.step)},"stepsPerEpoch":${jsonNum(e.stepsPerEpoch)},` +
    `"globalStep":${jsonNum(e.globalStep)},"totalSteps":${jsonNum(e.totalSteps)},"time":${jsonTime(e.time)},"stats":{`
  );
}

/** A number as JSON.stringify writes it; non-finite numbers (inf in a stats table) become null. */
export function jsonNum(v: number | null): string {
  if (v === null) return 'null';
  if (Number.isInteger(v)) return v <= 1e15 && v >= -1e15 ? String(v) : Number.isFinite(v) ? String(v) : 'null';
  const d = fewDecimals(v);
  return d !== null ? d : Number.isFinite(v) ? String(v) : 'null';
}

/** String(v) for a v printed with 1 to 3 decimals (memory GB, seconds): a third of the cost of
 *  V8's shortest-round-trip printer, which `parse --json` would call 20 times per train step.
 *  Exact: when v is the double nearest to n / 10^d with |n| < 2^31, String(v) is that decimal
 *  (at most 10 significant digits, so no shorter text reads back as v), without trailing zeros.
 *  Other values: null. */
function fewDecimals(v: number): string | null {
  const a = v < 0 ? -v : v;
  if (!(a >= 1e-6 && a < 1e6)) return null; // String() writes exponents below 1e-6
  for (let d = 1, scale = 10; d <= 3; d++, scale *= 10) {
    const n = Math.round(a * scale);
    if (n / scale !== a) continue;
    const int = Math.floor(n / scale);
    let frac = n - int * scale;
    let digits = d;
    while (frac !== 0 && frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    const f = String(frac);
    return (v < 0 ? '-' : '') + String(int) + '.' + (f.length < digits ? '000'.slice(f.length - digits) + f : f);
  }
  return null;
}

/** JSON.stringify of an event's time. The parser's times are short ISO texts (digits, `-`, `:`,
 *  `T`, `.`), quoted as they are; anything else goes to JSON.stringify. */
function jsonTime(t: string | null): string {
  if (t === null) return 'null';
  // A step's records and a burst of workers' lines share their time (one string: toIsoTime).
  if (t === lastTime) return lastTimeJson;
  lastTimeJson = timeJson(t);
  lastTime = t;
  return lastTimeJson;
}

let lastTime = '';
let lastTimeJson = '""';

function timeJson(t: string): string {
  if (t.length > 40) return JSON.stringify(t);
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(t);
  }
  return '"' + t + '"';
}

const phaseJson = new Map<string, string>();

/** JSON.stringify of a memory phase, an event's source or a warning's kind: a run logs a handful
 *  of them, over and over. */
function jsonPhase(phase: string): string {
  let j = phaseJson.get(phase);
  if (j === undefined) {
    j = JSON.stringify(phase);
    if (phaseJson.size < 64) phaseJson.set(phase, j);
  }
  return j;
}

/** The JSON line of the parser's most frequent small events, written field by field: the same
 *  text as JSON.stringify of the object literals the parser builds for them (same field order,
 *  numbers and nulls alike), without walking an object. Other events: undefined. */
export function smallEventJson(e: TrainerEvent): string | undefined {
  switch (e.type) {
    case 'memory':
      if (e.source === undefined) return undefined;
      return `{"type":"memory","phase":${jsonPhase(e.phase)},"allocatedGB":${jsonNum(e.allocatedGB)},"reservedGB":${jsonNum(e.reservedGB)},"usedGB":${jsonNum(e.usedGB)},"totalGB":${jsonNum(e.totalGB)},"time":${jsonTime(e.time)},"source":${jsonPhase(e.source)}}`;
    case 'batch':
      if (e.role === undefined) return undefined;
      return `{"type":"batch","waitS":${jsonNum(e.waitS)},"totalS":${jsonNum(e.totalS)},"episodes":${jsonNum(e.episodes)},"time":${jsonTime(e.time)},"role":${jsonPhase(e.role)}}`;
    case 'warning':
      if (e.source === undefined || e.detail !== undefined) return undefined;
      return `{"type":"warning","message":${JSON.stringify(e.message)},"kind":${jsonPhase(e.kind)},"time":${jsonTime(e.time)},"source":${jsonPhase(e.source)}}`;
    default:
      return undefined;
  }
}
