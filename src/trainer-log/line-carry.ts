// The unterminated last line of a chunk, kept until the chunk that ends it: chunks are cut
// anywhere, and the parser must see the same lines as if it were fed the whole input.
import { asBuffer } from './text.js';

export class LineCarry {
  /** Copies of the line's pieces (callers may reuse their buffers for the next read). */
  private parts: Uint8Array[] = [];
  /** Bytes held. */
  len = 0;
  /** The line outgrew the record cap: the rest of it is dropped (and reported by the parser). */
  cut = false;

  constructor(private readonly max: number) {}

  append(b: Uint8Array, from: number, to: number): void {
    const room = this.max - this.len;
    if (to - from > room) {
      this.cut = true;
      to = from + Math.max(0, room);
    }
    if (to > from) {
      // A copy: Buffer#slice is a view, and callers may reuse their buffer for the next read.
      this.parts.push(Uint8Array.prototype.slice.call(b, from, to));
      this.len += to - from;
    }
  }

  /** The carried bytes as one buffer, and nothing carried any more (read `cut` before). */
  take(): Buffer {
    const line = this.parts.length === 1 ? this.parts[0] : joinBytes(this.parts, this.len);
    this.clear();
    return asBuffer(line);
  }

  clear(): void {
    this.parts = [];
    this.len = 0;
    this.cut = false;
  }
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
