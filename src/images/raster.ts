// RGBA pixels in memory, scaled by area averaging (each target pixel the mean of the source pixels it
// covers: a screenshot's text becomes grey rather than noise), over the terminal's dark background.
export interface Raster {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, rows top to bottom. */
  data: Uint8Array;
}

export type Rgb = readonly [number, number, number];

export function blank(width: number, height: number, rgb: Rgb = [0, 0, 0]): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = rgb[0];
    data[i + 1] = rgb[1];
    data[i + 2] = rgb[2];
    data[i + 3] = 255;
  }
  return { width, height, data };
}

export function pixel(r: Raster, x: number, y: number): Rgb {
  const i = (y * r.width + x) * 4;
  return [r.data[i], r.data[i + 1], r.data[i + 2]];
}

/** `src` scaled to w×h (opaque: alpha composited over black). */
export function scaleTo(src: Raster, w: number, h: number): Raster {
  const out = new Uint8Array(w * h * 4);
  const fx = src.width / w;
  const fy = src.height / h;
  for (let ty = 0; ty < h; ty++) {
    const y0 = Math.floor(ty * fy);
    const y1 = Math.max(y0 + 1, Math.floor((ty + 1) * fy));
    for (let tx = 0; tx < w; tx++) {
      const x0 = Math.floor(tx * fx);
      const x1 = Math.max(x0 + 1, Math.floor((tx + 1) * fx));
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      for (let y = y0; y < y1 && y < src.height; y++) {
        for (let x = x0; x < x1 && x < src.width; x++) {
          const i = (y * src.width + x) * 4;
          const a = src.data[i + 3] / 255;
          r += src.data[i] * a;
          g += src.data[i + 1] * a;
          b += src.data[i + 2] * a;
          n++;
        }
      }
      const o = (ty * w + tx) * 4;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
      out[o + 3] = 255;
    }
  }
  return { width: w, height: h, data: out };
}

/** The largest w×h inside maxW×maxH with the source's aspect ratio (square pixels), at least 1×1. */
export function fitInside(srcW: number, srcH: number, maxW: number, maxH: number): { w: number; h: number } {
  const k = Math.min(maxW / srcW, maxH / srcH);
  return { w: Math.max(1, Math.floor(srcW * k)), h: Math.max(1, Math.floor(srcH * k)) };
}

/** A click marker: a red cross with a white edge at (x, y), drawn into `r` (sized to the image). */
export function drawMarker(r: Raster, x: number, y: number, arm = Math.max(2, Math.round(r.width / 40))): void {
  const put = (px: number, py: number, rgb: Rgb) => {
    if (px < 0 || py < 0 || px >= r.width || py >= r.height) return;
    r.data.set([rgb[0], rgb[1], rgb[2], 255], (py * r.width + px) * 4);
  };
  const thick = Math.max(1, Math.round(arm / 4));
  for (let d = -arm; d <= arm; d++) {
    for (let t = -thick; t <= thick; t++) {
      const edge = Math.abs(t) === thick || Math.abs(d) === arm;
      put(x + d, y + t, edge ? [255, 255, 255] : [255, 0, 0]);
      put(x + t, y + d, edge ? [255, 255, 255] : [255, 0, 0]);
    }
  }
}
