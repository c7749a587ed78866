// A step's JSON line for `parse --json`, written from the printed value bytes (table-cells.ts)
// and the per-key-set prefix bytes (stats-shapes.ts): the same bytes as eventToJsonLine of its
// event, whose stats carry the same printed texts, with no string or object per cell. This is
// most of the output of a log, hence bytes in, bytes out.
import type { StepEvent } from './events.js';
import { JsonSink, jsonStat, stepHeadJson } from './json.js';
import type { CellSpans } from './table-cells.js';
import { parseNumberBytes } from './text.js';

export function writeStepJson(
  sink: JsonSink,
  head: Omit<StepEvent, 'stats'>,
  prefixes: Uint8Array[],
  cells: CellSpans,
  arena: { buf: Buffer },
): void {
  sink.text(stepHeadJson(head));
  const { starts, ends, json } = cells;
  const src = arena.buf;
  const n = prefixes.length;
  let room = 3;
  for (let i = 0; i < n; i++) room += prefixes[i].length + ends[i] - starts[i];
  let buf = sink.reserve(room);
  let ov = outViews.get(buf);
  const sv = srcViews.get(src);
  let at = sink.len;
  for (let i = 0; i < n; i++) {
    const p = prefixes[i];
    buf.set(p, at);
    at += p.length;
    if (json[i]) {
      const s = starts[i];
      const e = ends[i];
      if (e - s <= 12 && e - s >= 8 && s + 12 <= src.length && at + 12 <= buf.length) {
        // The usual 10 or 11 bytes (`-1.2345e-03`) as two words: the bytes written past the
        // value are overwritten next. Its first eight are ASCII, never a NaN's bits, so they
        // stay as they are through a double.
        ov.setFloat64(at, sv.getFloat64(s, true), true);
        ov.setInt32(at + 8, sv.getInt32(s + 8, true), true);
        at += e - s;
      } else {
        for (let k = s; k < e; k++) buf[at++] = src[k];
      }
    } else {
      // Not a JSON number as printed (nan, inf, 1., True): nan, inf and -inf as the JSON strings
      // "nan", "inf", "-inf" (jsonStat), other numbers as JSON.stringify writes them.
      const t = isNan(src, starts[i], ends[i]) ? '"nan"' : jsonText(src, starts[i], ends[i]);
      sink.len = at;
      buf = sink.reserve(t.length + room);
      ov = outViews.get(buf);
      for (let k = 0; k < t.length; k++) buf[at++] = t.charCodeAt(k);
    }
  }
  buf[at++] = 0x7d;
  buf[at++] = 0x7d;
  buf[at++] = 10;
  sink.len = at;
}

/** A DataView of a buffer, made again only when it is another one (the sink's or the arena's
 *  grew): one per buffer that the writer copies from or to. */
class Viewer {
  private of: Buffer | null = null;
  private view: DataView | null = null;

  get(b: Buffer): DataView {
    if (this.of !== b || this.view === null) {
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
      this.of = b;
    }
    return this.view;
  }
}
const outViews = new Viewer();
const srcViews = new Viewer();

/** `nan`, the usual non-finite value of a stats table. */
function isNan(b: Uint8Array, start: number, end: number): boolean {
  return end - start === 3 && b[start] === 0x6e && b[start + 1] === 0x61 && b[start + 2] === 0x6e;
}

/** A printed value as a JSON value: its number, "inf"/"-inf"/"nan" (jsonStat), null for garbage. */
function jsonText(b: Buffer, start: number, end: number): string {
  return jsonStat(parseNumberBytes(b, start, end));
}
