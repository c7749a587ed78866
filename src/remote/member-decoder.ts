// The decoder of one compressed member of a follower's backlog, as a stream: gzip by node:zlib;
// zstd by node:zlib where Node has it (22.15 and later), else by fzstd, a small pure-JS decoder.
// zstd is what the follower prefers when the target has it: on a 2-core head it compresses a
// trainer log for a fifth of gzip -1's CPU, three times smaller (test/bench/stream.bench.mjs).
// fzstd runs on the main thread: on a worker thread (tried) the same 1.1 GB took 2-3 s more CPU
// in all and longer, on the 2 cores the bench shares with the target.
import { Transform, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';
import { Decompress } from 'fzstd';

export type MemberCodec = 'gzip' | 'zstd';

/** Decoded bytes handed on at once: the reader's per-call cost must not count. */
const OUT_CHUNK = 1 << 20;

type ZstdFactory = (o: { chunkSize: number }) => Transform;
const nativeZstd = (zlib as unknown as { createZstdDecompress?: ZstdFactory }).createZstdDecompress;

export function memberDecoder(codec: MemberCodec): Transform {
  if (codec === 'gzip') return zlib.createGunzip({ chunkSize: OUT_CHUNK });
  return nativeZstd ? nativeZstd({ chunkSize: OUT_CHUNK }) : new JsZstdDecoder();
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
