// utf8Slice decodes bytes straight (Buffer's UTF-8 decoding) where the parser decoded a latin1
// string of them with TextDecoder (bytesToUtf8): the two give the same text on any bytes, a
// malformed or cut sequence and a leading BOM included.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bytesToUtf8, utf8Slice } from '../../src/trainer-log/text.js';

const viaLatin1 = (b: Buffer, s: number, e: number): string => bytesToUtf8(b.toString('latin1', s, e));

describe('utf8Slice', () => {
  it.each([
    ['a worker warning', Buffer.from('elapsed=45.2min limit=45min — terminating episode', 'utf8')],
    ['a leading BOM', Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xe2, 0x80, 0x94])],
    ['a cut sequence', Buffer.from([0x61, 0xe2, 0x80])],
    ['an overlong form and a surrogate', Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x61])],
    ['past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80, 0xf5, 0xff])],
  ])('decodes %s as bytesToUtf8 does', (_name, b) => {
    expect(utf8Slice(b, 0, b.length)).toBe(viaLatin1(b, 0, b.length));
  });

  it('gives what bytesToUtf8 gives on any bytes, at any offset', () => {
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x7f, 0x80, 0xbb, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 24 }), fc.nat(4), (bytes, cut) => {
        const b = Buffer.from(bytes);
        const s = Math.min(cut, b.length);
        expect(utf8Slice(b, s, b.length)).toBe(viaLatin1(b, s, b.length));
      }),
      { numRuns: 5000 },
    );
  });
});
