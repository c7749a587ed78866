// The follower's compressed ranges (`Z` frames: a gzip, zstd or lz4 member of n file bytes), decompressed
// as a stream (member-decoder.ts) and handed on as ordinary `data` frames, in order with every frame
// around them: while a member is being inflated, the frames after it wait. Bytes come
// out as they are inflated, with their file offsets, so a drop in the middle of a member loses
// nothing delivered: the follower is restarted from the last offset handed on, as for `D` frames.
import type { Transform } from 'node:stream';
import type { Frame, WireFrame } from './follow-frames.js';
import { memberDecoder, type MemberCodec } from './member-decoder.js';

/** Compressed bytes waiting in zlib before the wire is paused (flow control reaches the follower). */
const BACKLOG = 8 << 20;

export interface InflaterHooks {
  /** FollowOptions.borrowBytes: `frame` copies what it keeps of a data frame's bytes, so lz4
   *  members are decoded into one buffer, reused from block to block and member to member. */
  borrowBytes?: boolean;
  frame(f: Frame): void;
  /** The member was not what its header said (corrupt, too long, too short): drop the follower. */
  broken(why: string): void;
  /** Too much compressed data waits (true) or it drained (false): pause / resume the wire. */
  backlog?(full: boolean): void;
}

export class FrameInflater {
  private readonly queue: WireFrame[] = [];
  private member: Transform | null = null;
  /** The member's last compressed bytes were written: frames after it wait for its end. */
  private ending = false;
  private full = false;
  private closed = false;
  /** Compressed bytes received and file bytes they stood for (the wire's saving). */
  compressedBytes = 0;
  inflatedBytes = 0;
  /** File bytes that came as zstd members, and as lz4 ones (the rest of inflatedBytes came as gzip). */
  zstdBytes = 0;
  lz4Bytes = 0;
  /** The lz4 blocks' output when bytes are borrowed (grown to the largest block size seen). */
  private scratch: Buffer | null = null;

  constructor(private readonly hooks: InflaterHooks) {}

  push(f: WireFrame): void {
    if (this.closed) return;
    this.queue.push(f);
    this.pump();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.member?.destroy();
    this.member = null;
  }

  private pump(): void {
    while (!this.closed && !this.ending && this.queue.length > 0) {
      const f = this.queue.shift()!;
      if (f.kind === 'zhead') this.start(f.offset, f.length, f.codec);
      else if (f.kind === 'zbytes') {
        const m = this.member;
        if (!m) return this.fail('compressed bytes outside a member');
        this.compressedBytes += f.bytes.length;
        if (!m.write(f.bytes) && m.writableLength > BACKLOG) this.setFull(true);
        if (f.last) {
          this.ending = true;
          m.end();
        }
      } else this.hooks.frame(f);
    }
  }

  private start(offset: number, length: number, codec: MemberCodec): void {
    let at = offset;
    const decoded = (bytes: Buffer): void => {
      if (this.closed || this.member !== m) return;
      if (at + bytes.length > offset + length) return this.fail(`a member longer than its ${length} bytes`);
      const from = at;
      at += bytes.length;
      this.inflatedBytes += bytes.length;
      if (codec === 'zstd') this.zstdBytes += bytes.length;
      else if (codec === 'lz4') this.lz4Bytes += bytes.length;
      this.hooks.frame({ kind: 'data', offset: from, bytes });
    };
    // Borrowed: lz4 hands each block over as it is decoded, in the call (never queued in a
    // stream, where the next block would overwrite it), from the one scratch buffer.
    const m = this.hooks.borrowBytes
      ? memberDecoder(codec, { decoded, scratch: (n) => this.scratchOf(n) })
      : memberDecoder(codec);
    this.member = m;
    m.on('data', decoded);
    m.on('drain', () => this.setFull(false));
    m.on('error', (err) => this.fail(`a member that does not inflate (${err.message})`));
    m.on('end', () => {
      if (this.closed || this.member !== m) return;
      if (at !== offset + length) return this.fail(`a member of ${at - offset} bytes, ${length} announced`);
      this.member = null;
      this.ending = false;
      this.setFull(false);
      this.pump();
    });
  }

  private scratchOf(n: number): Buffer {
    if (this.scratch === null || this.scratch.length < n) this.scratch = Buffer.allocUnsafe(n);
    return this.scratch;
  }

  private setFull(full: boolean): void {
    if (full === this.full) return;
    this.full = full;
    this.hooks.backlog?.(full);
  }

  private fail(why: string): void {
    if (this.closed) return;
    this.close();
    this.hooks.broken(why);
  }
}
