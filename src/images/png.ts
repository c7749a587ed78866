// PNG bytes ↔ pixels through pngjs (pure JS, no native build). The size is read from the header
// first, so a huge image is refused before its pixels are inflated (bounded memory).
import pngjs from 'pngjs';
import type { Raster } from './raster.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decoding above this many pixels is refused: 16 MP is 64 MB of RGBA (a 1280×768 screenshot is 1 MP). */
export const MAX_PIXELS = 16_000_000;

/** Width and height from the IHDR chunk, or null when the bytes are not a PNG's start. */
export function pngSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(SIGNATURE)) return null;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export type Decoded = { ok: true; image: Raster } | { ok: false; why: string };

export function decodePng(bytes: Buffer, maxPixels = MAX_PIXELS): Decoded {
  const size = pngSize(bytes);
  if (!size) return { ok: false, why: bytes.length === 0 ? 'empty file' : 'not a PNG' };
  if (size.width * size.height > maxPixels)
    return { ok: false, why: `too large to show (${size.width}×${size.height} pixels)` };
  try {
    const png = pngjs.PNG.sync.read(bytes);
    return { ok: true, image: { width: png.width, height: png.height, data: png.data } };
  } catch (e) {
    return { ok: false, why: `corrupt PNG (${(e as Error).message})` };
  }
}

export function encodePng(image: Raster): Buffer {
  return pngjs.PNG.sync.write(
    {
      width: image.width,
      height: image.height,
      data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length),
    },
    // Sub filter, zlib level 6: 10× faster than pngjs's defaults (all five filters tried, level 9).
    { colorType: 6, filterType: 1, deflateLevel: 6 },
  );
}
