// Sixel: six pixel rows per band, one pass per colour, run-length coded. Colours are quantised to a
// 6×6×6 cube (216 registers: every sixel terminal has at least 256).
import type { Raster } from './raster.js';

const LEVELS = 6;
const level = (v: number) => Math.round((v / 255) * (LEVELS - 1));

function quantise(r: Raster): Uint8Array {
  const idx = new Uint8Array(r.width * r.height);
  for (let p = 0; p < idx.length; p++) {
    const i = p * 4;
    idx[p] = level(r.data[i]) * 36 + level(r.data[i + 1]) * 6 + level(r.data[i + 2]);
  }
  return idx;
}

function runLength(chars: number[]): string {
  let out = '';
  for (let i = 0; i < chars.length;) {
    let n = 1;
    while (i + n < chars.length && chars[i + n] === chars[i]) n++;
    const c = String.fromCharCode(63 + chars[i]);
    out += n > 3 ? `!${n}${c}` : c.repeat(n);
    i += n;
  }
  return out;
}

/** The DCS sequence drawing `r` at the cursor (its pixels as they are: scale it first). */
export function sixelImage(r: Raster): string {
  const idx = quantise(r);
  const pct = (l: number) => Math.round((l / (LEVELS - 1)) * 100);
  let out = `\x1bP0;1;0q"1;1;${r.width};${r.height}`;
  const used = new Set(idx);
  for (const c of used) out += `#${c};2;${pct(Math.floor(c / 36))};${pct(Math.floor(c / 6) % 6)};${pct(c % 6)}`;
  for (let band = 0; band < r.height; band += 6) {
    const colours = new Set<number>();
    for (let y = band; y < Math.min(band + 6, r.height); y++)
      for (let x = 0; x < r.width; x++) colours.add(idx[y * r.width + x]);
    const passes: string[] = [];
    for (const c of colours) {
      const bits = new Array<number>(r.width).fill(0);
      for (let y = band; y < Math.min(band + 6, r.height); y++)
        for (let x = 0; x < r.width; x++) if (idx[y * r.width + x] === c) bits[x] |= 1 << (y - band);
      passes.push(`#${c}${runLength(bits)}`);
    }
    out += passes.join('$') + '-';
  }
  return `${out}\x1b\\`;
}
