// An LZ4 frame (https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md) decoded as a stream:
// the member codec the follower prefers where Node has no zstd of its own (before 22.15). LZ4 is
// literals and back-copies with no entropy coding, so a few lines of JavaScript decode it at
// ~1.7 GB/s here, where fzstd decodes zstd at ~0.45 GB/s: for a 1.1 GB backlog that is 3 s less
// on the thread that also parses (test/bench/stream.bench.mjs). npm has no kept-up streaming
// decoder of the frame format, so this is the small piece written here.
//
// What the follower's `lz4 -1 -B6` writes is read: independent blocks of at most 4 MiB, with or
// without block and content checksums (skipped: ssh already guards the bytes), optional content
// size, skippable frames, frames back to back. Linked blocks and dictionaries are refused: the
// member fails, and the next follower sends another codec.
import { Transform, type TransformCallback } from 'node:stream';

const FRAME_MAGIC = 0x184d2204;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

type Step =
  { at: 'magic' } | { at: 'descriptor' } | { at: 'skip'; n: number } | { at: 'block' } | { at: 'content-checksum' };

/** Decoded blocks handed to a callback, in a buffer the decoder reuses for the next block. */
export interface Lz4Borrowed {
  /** Called with each block's bytes as it is decoded: valid only during the call. */
  decoded(bytes: Buffer): void;
  /** A buffer of at least n bytes to decode into (the same one each time, as a rule). */
  scratch(n: number): Buffer;
}

export class Lz4FrameDecoder extends Transform {
  /** Without it, each block is pushed as a fresh buffer (a stream's reader may keep it). */
  constructor(private readonly borrowed?: Lz4Borrowed) {
    super();
  }

  private parts: Buffer[] = [];
  private have = 0;
  private step: Step = { at: 'magic' };
  private blockChecksum = false;
  private contentChecksum = false;
  private blockMax = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (chunk.length > 0) {
      this.parts.push(chunk);
      this.have += chunk.length;
    }
    try {
      this.advance();
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // Input that ends inside a frame (a member cut short) is an error; between frames, the end.
    if (this.step.at !== 'magic' || this.have > 0) done(new Error('lz4: the frame is cut short'));
    else done();
  }

  /** Decodes every whole piece the input holds now. */
  private advance(): void {
    for (;;) {
      const s = this.step;
      if (s.at === 'magic') {
        if (this.have < 4) return;
        const magic = this.takeBytes(4).readUInt32LE(0);
        if (magic === FRAME_MAGIC) this.step = { at: 'descriptor' };
        else if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) this.step = { at: 'skip', n: -1 };
        else throw new Error(`lz4: not an LZ4 frame (magic ${magic.toString(16)})`);
      } else if (s.at === 'skip') {
        if (s.n < 0) {
          if (this.have < 4) return;
          s.n = this.takeBytes(4).readUInt32LE(0);
        }
        // Its body as far as it has come (none yet, or an empty frame: nothing to take).
        const n = Math.min(s.n, this.have);
        if (n > 0) this.takeBytes(n);
        s.n -= n;
        if (s.n > 0) return;
        this.step = { at: 'magic' };
      } else if (s.at === 'descriptor') {
        if (this.have < 2) return;
        const flg = this.peekBytes(2)[0]!;
        const length = 3 + (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0);
        if (this.have < length) return;
        this.descriptor(this.takeBytes(length));
        this.step = { at: 'block' };
      } else if (s.at === 'block') {
        if (this.have < 4) return;
        const word = this.peekBytes(4).readUInt32LE(0);
        if (word === 0) {
          this.takeBytes(4);
          this.step = this.contentChecksum ? { at: 'content-checksum' } : { at: 'magic' };
          continue;
        }
        const n = word & 0x7fffffff;
        if (n > this.blockMax) throw new Error(`lz4: a block of ${n} bytes, more than the frame's ${this.blockMax}`);
        const whole = 4 + n + (this.blockChecksum ? 4 : 0);
        if (this.have < whole) return;
        const b = this.takeBytes(whole);
        const raw = (word & 0x80000000) !== 0;
        if (this.borrowed) {
          const bytes = raw ? b.subarray(4, 4 + n) : decodeBlock(b, 4, 4 + n, this.borrowed.scratch(this.blockMax));
          this.borrowed.decoded(bytes);
        } else if (raw) this.push(Buffer.from(b.subarray(4, 4 + n)));
        else this.push(decodeBlock(b, 4, 4 + n, Buffer.allocUnsafe(this.blockMax)));
      } else {
        if (this.have < 4) return;
        this.takeBytes(4);
        this.step = { at: 'magic' };
      }
    }
  }

  private descriptor(d: Buffer): void {
    const flg = d[0]!;
    if (flg >> 6 !== 1) throw new Error(`lz4: frame version ${flg >> 6} is not known`);
    if (!(flg & 0x20)) throw new Error('lz4: linked blocks are not read here');
    if (flg & 0x01) throw new Error('lz4: a frame with a dictionary is not read here');
    const sizeId = (d[1]! >> 4) & 7;
    if (sizeId < 4) throw new Error(`lz4: block size id ${sizeId} is not known`);
    this.blockMax = 1 << (8 + 2 * sizeId);
    this.blockChecksum = (flg & 0x10) !== 0;
    this.contentChecksum = (flg & 0x04) !== 0;
  }

  /** The first n bytes of the input, left in it. */
  private peekBytes(n: number): Buffer {
    const first = this.parts[0]!;
    if (first.length >= n) return first;
    this.parts = [Buffer.concat(this.parts, this.have)];
    return this.parts[0]!;
  }

  /** The first n bytes of the input, taken out of it. */
  private takeBytes(n: number): Buffer {
    const b = this.peekBytes(n);
    const out = b.subarray(0, n);
    if (b.length === n) this.parts.shift();
    else this.parts[0] = b.subarray(n);
    this.have -= n;
    return out;
  }
}

const corrupt = (): Error => new Error('lz4: a corrupt block');

/** One LZ4 block, src[ip, end), into `out`: the bytes it decodes to (a view of out). Every length
 *  and offset is checked, so corrupt input throws instead of reading or writing out of bounds. */
export function decodeBlock(src: Uint8Array, ip: number, end: number, out: Buffer): Buffer {
  let op = 0;
  const oend = out.length;
  for (;;) {
    if (ip >= end) throw corrupt();
    const token = src[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) throw corrupt();
        b = src[ip++]!;
        lit += b;
      }
    }
    if (ip + lit > end || op + lit > oend) throw corrupt();
    if (lit < 16) for (let k = 0; k < lit; k++) out[op + k] = src[ip + k]!;
    else out.set(src.subarray(ip, ip + lit), op);
    ip += lit;
    op += lit;
    // The last sequence is literals only: the block ends there.
    if (ip === end) return out.subarray(0, op);
    if (ip + 2 > end) throw corrupt();
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    let len = token & 15;
    if (len === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) throw corrupt();
        b = src[ip++]!;
        len += b;
      }
    }
    len += 4;
    if (offset === 0 || offset > op || op + len > oend) throw corrupt();
    const from = op - offset;
    // A copy that overlaps itself (offset < len) repeats a pattern: byte by byte, as LZ4 means it.
    if (offset < len || len < 32) for (let k = 0; k < len; k++) out[op + k] = out[from + k]!;
    else out.copyWithin(op, from, from + len);
    op += len;
  }
}
