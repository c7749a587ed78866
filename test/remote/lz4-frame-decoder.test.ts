// The LZ4 frame decoder against the real lz4 CLI (a Debian package in .ci/run): every frame shape
// the CLI writes decodes to the original bytes whatever the cuts, and what it must not read
// (linked blocks, a frame cut short, corrupt blocks) is an error, never a hang or a wrong length.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Lz4FrameDecoder } from '../../src/remote/lz4-frame-decoder.js';

const lz4 = (input: Buffer, ...flags: string[]): Buffer =>
  execFileSync('lz4', ['-q', '-c', ...flags], { input, maxBuffer: 64 << 20 });

/** The decoder fed `frames` in pieces of `cut` bytes: its output, or the error it ended with.
 *  `borrow`: blocks come through the callback in one reused buffer, copied there (as a parser
 *  copies what it keeps); `scratches` counts the distinct buffers they came in. */
async function decode(
  frames: Buffer,
  cut: number,
  borrow = false,
): Promise<{ out: Buffer; error: Error | null; scratches?: number }> {
  const parts: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  let scratch: Buffer | null = null;
  const d = borrow
    ? new Lz4FrameDecoder({
        decoded: (b) => {
          buffers.add(b.buffer);
          parts.push(Buffer.from(b));
        },
        scratch: (n) => (scratch !== null && scratch.length >= n ? scratch : (scratch = Buffer.allocUnsafe(n))),
      })
    : new Lz4FrameDecoder();
  d.on('data', (b: Buffer) => parts.push(b));
  const ended = new Promise<Error | null>((resolve) => {
    d.on('end', () => resolve(null));
    d.on('error', (e) => resolve(e));
  });
  for (let i = 0; i < frames.length; i += cut) d.write(frames.subarray(i, i + cut));
  d.end();
  const error = await ended;
  return { out: Buffer.concat(parts), error, ...(borrow ? { scratches: buffers.size } : {}) };
}

const text = Buffer.from(
  Array.from({ length: 90_000 }, (_, i) => `(AReaL) step ${i} │ reward │ ${(i % 97) / 7} │\n`).join(''),
);

describe('Lz4FrameDecoder', () => {
  it.each([
    ['the follower’s own flags (1 MiB blocks)', ['-1', '-B6']],
    ['64 KiB blocks', ['-1', '-B4']],
    ['4 MiB blocks, high compression', ['-9', '-B7']],
    ['block checksums and the content size', ['-1', '-BX', '--content-size']],
    ['no content checksum', ['-1', '--no-frame-crc']],
  ])('decodes %s to the same bytes, fed in any cut', async (_what, flags) => {
    expect(text.length).toBeGreaterThan(3 << 20);
    const frame = lz4(text, ...flags);
    for (const cut of [1, 7, 4096, frame.length]) {
      // One byte at a time over 3 MB takes long: only the first 64 KiB of the frame that way.
      const input = cut === 1 ? frame.subarray(0, 65536) : frame;
      const { out, error } = await decode(input, cut);
      if (cut === 1) {
        expect(error?.message).toMatch(/cut short/);
        expect(text.subarray(0, out.length).equals(out)).toBe(true);
        continue;
      }
      expect(error).toBeNull();
      expect(out.equals(text)).toBe(true);
    }
  });

  it('hands blocks over borrowed: in one reused buffer, in order, the same bytes whatever the cuts', async () => {
    const frame = lz4(text, '-1', '-B4'); // 64 KiB blocks: ~50 of them
    for (const cut of [7, 4096, frame.length]) {
      const { out, error, scratches } = await decode(frame, cut, true);
      expect(error).toBeNull();
      expect(out.equals(text)).toBe(true);
      expect(scratches).toBe(1);
    }
    // Stored blocks are lent straight from the input (no copy), still in order.
    const noise = randomBytes(3 << 20);
    const stored = await decode(lz4(noise, '-1', '-B4'), 10_000, true);
    expect(stored.error).toBeNull();
    expect(stored.out.equals(noise)).toBe(true);
  });

  it('decodes incompressible bytes (stored blocks), an empty input, frames back to back and a skippable frame', async () => {
    const noise = randomBytes(3 << 20);
    const { out, error } = await decode(lz4(noise, '-1', '-B6'), 10_000);
    expect(error).toBeNull();
    expect(out.equals(noise)).toBe(true);

    expect(await decode(Buffer.alloc(0), 1)).toEqual({ out: Buffer.alloc(0), error: null });
    const empty = await decode(lz4(Buffer.alloc(0)), 3);
    expect(empty).toEqual({ out: Buffer.alloc(0), error: null });

    const skippable = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const a = text.subarray(0, 100_000);
    const b = text.subarray(100_000, 2_500_000);
    const joined = Buffer.concat([lz4(a, '-1'), skippable, lz4(b, '-1', '-B4')]);
    const both = await decode(joined, 5000);
    expect(both.error).toBeNull();
    expect(both.out.equals(Buffer.concat([a, b]))).toBe(true);
    // A skippable frame cut anywhere (its size word, its body), an empty one too.
    const small = Buffer.from('step 1\nstep 2\n');
    const nothing = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
    const cut = await decode(Buffer.concat([skippable, lz4(small), nothing, lz4(small)]), 1);
    expect(cut.error).toBeNull();
    expect(cut.out.equals(Buffer.concat([small, small]))).toBe(true);
  });

  it('refuses linked blocks, a frame cut short and bytes that are no frame', async () => {
    expect((await decode(lz4(text, '-1', '-BD'), 65536)).error?.message).toMatch(/linked blocks/);
    const frame = lz4(text, '-1', '-B6');
    for (const keep of [3, 6, 12, frame.length >> 1, frame.length - 2]) {
      expect((await decode(frame.subarray(0, keep), 4096)).error?.message).toMatch(/cut short/);
    }
    expect((await decode(Buffer.from('not an lz4 frame at all'), 8)).error?.message).toMatch(/not an LZ4 frame/);
  });

  it('a corrupt block is an error or stays within its block: never a hang or a read out of bounds', async () => {
    const frame = lz4(text.subarray(0, 1 << 20), '-1', '-B4', '--no-frame-crc');
    let errors = 0;
    for (let k = 0; k < 300; k++) {
      const bad = Buffer.from(frame);
      // Past the 7-byte header: a block's size word, its tokens, its offsets.
      for (let j = 0; j < 4; j++) bad[7 + ((k * 7919 + j * 104729) % (bad.length - 7))] ^= 1 + ((k + j) % 255);
      const { out, error } = await decode(bad, 4096);
      if (error) {
        expect(error.message).toMatch(/^lz4: /);
        errors++;
      } else expect(out.length).toBeLessThanOrEqual(1 << 20);
    }
    expect(errors).toBeGreaterThan(100);
  });
});
