// The decoder of one compressed member of a follower's backlog, as a stream: gzip by node:zlib;
// zstd by node:zlib where Node has it (22.15 and later), else by fzstd, a small pure-JS decoder;
// lz4 by lz4-frame-decoder.ts. And which codecs a follower is asked for, best first.
// zstd is what the follower prefers when the target has it: on a 2-core head it compresses a
// trainer log for a fifth of gzip -1's CPU, three times smaller (test/bench/stream.bench.mjs).
// fzstd runs on the main thread: on a worker thread (tried) the same 1.1 GB took 2-3 s more CPU
// in all and longer, on the 2 cores the bench shares with the target.
import { Transform, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';
import { Decompress } from 'fzstd';
import { Lz4FrameDecoder, type Lz4Borrowed } from './lz4-frame-decoder.js';
import type { CodecChoice } from './options.js';

export type MemberCodec = Exclude<CodecChoice, 'auto'>;

/** Decoded bytes handed on at once: the reader's per-call cost must not count. */
const OUT_CHUNK = 1 << 20;

type ZstdFactory = (o: { chunkSize: number }) => Transform;
const nativeZstd = (zlib as unknown as { createZstdDecompress?: ZstdFactory }).createZstdDecompress;

/** `borrowed`: lz4's blocks go to its `decoded` instead of the stream (the others ignore it). */
export function memberDecoder(codec: MemberCodec, borrowed?: Lz4Borrowed): Transform {
  if (codec === 'gzip') return zlib.createGunzip({ chunkSize: OUT_CHUNK });
  if (codec === 'lz4') return new Lz4FrameDecoder(borrowed);
  return nativeZstd ? nativeZstd({ chunkSize: OUT_CHUNK }) : new JsZstdDecoder();
}

/**
 * The codecs a follower tries, best first (the first its target has is used; gzip is everywhere).
 * `auto`: zstd where Node decodes it natively (off the main thread, and the smallest on the wire);
 * else lz4, whose decoder here costs the parsing thread a quarter of fzstd's time. lz4 crosses
 * the wire ~2.4 times bigger than zstd (a trainer log: ~14 times smaller than the file, zstd ~34):
 * on a link slower than the parser's ~11 MB/s of lz4 bytes (~90 Mbit/s), `zstd` attaches faster.
 */
export function codecPreference(choice: CodecChoice): MemberCodec[] {
  if (choice === 'gzip') return ['gzip'];
  if (choice === 'auto') return nativeZstd ? ['zstd', 'lz4', 'gzip'] : ['lz4', 'zstd', 'gzip'];
  return [choice, ...(['lz4', 'zstd'] as const).filter((c) => c !== choice), 'gzip'];
}

/** fzstd as a Transform: its blocks (≤ 128 KiB each, fresh arrays) gathered into ~1 MiB buffers. */
class JsZstdDecoder extends Transform {
  private readonly decoder = new Decompress((block) => this.gather(block));
  private parts: Uint8Array[] = [];
  private gathered = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.step(done, () => this.decoder.push(chunk));
  }

  override _flush(done: TransformCallback): void {
    // A member cut short throws here (fzstd's "unexpected EOF"): the inflater drops the follower.
    this.step(done, () => this.decoder.push(new Uint8Array(0), true), true);
  }

  private step(done: TransformCallback, work: () => void, last = false): void {
    try {
      work();
    } catch (e) {
      done(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (last || this.gathered >= OUT_CHUNK) this.handOn();
    done();
  }

  private gather(block: Uint8Array): void {
    if (block.length === 0) return;
    this.parts.push(block);
    this.gathered += block.length;
  }

  private handOn(): void {
    if (this.gathered === 0) return;
    this.push(Buffer.concat(this.parts, this.gathered));
    this.parts = [];
    this.gathered = 0;
  }
}
