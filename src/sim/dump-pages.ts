// The screenshots the simulated agent sees: small pages drawn from a seed (a header in the site's
// colour, blocks of "content", a button the agent clicks), as PNG bytes. A page that did not change
// is drawn from the same seed, so its bytes are the same (what a viewer's "stuck" filter finds). Pure.
import { encodePng } from '../images/png.js';
import { blank, type Raster, type Rgb } from '../images/raster.js';
import { Rng } from './rng.js';

/** The simulator's screenshots are small (the trainer's are 1280×768): the demo and tests stay light. */
export const PAGE_W = 160;
export const PAGE_H = 96;

function fill(r: Raster, x0: number, y0: number, w: number, h: number, rgb: Rgb): void {
  for (let y = Math.max(0, y0); y < Math.min(r.height, y0 + h); y++)
    for (let x = Math.max(0, x0); x < Math.min(r.width, x0 + w); x++) {
      const i = (y * r.width + x) * 4;
      r.data[i] = rgb[0];
      r.data[i + 1] = rgb[1];
      r.data[i + 2] = rgb[2];
    }
}

export interface Page {
  png: Buffer;
  /** The button's centre on the model's 0-1000 grid: where a click action points. */
  target: { x: number; y: number };
}

/** How many different pages a site has: a simulated run dumps ~40,000 screenshots, and drawing and
 *  encoding each anew was a third of an instant run's time; pages come from this pool, drawn once. */
export const PAGES_PER_SITE = 61;
const drawn = new Map<number, Page>();

/** The page `pageSeed` of the site (its pool index: pageSeed mod PAGES_PER_SITE), drawn once. */
export function pageOf(siteHue: number, pageSeed: number): Page {
  const key = (siteHue % 6) * PAGES_PER_SITE + (pageSeed % PAGES_PER_SITE);
  let page = drawn.get(key);
  if (!page) drawn.set(key, (page = drawPage(siteHue % 6, pageSeed % PAGES_PER_SITE)));
  return page;
}

export function drawPage(siteHue: number, pageSeed: number): Page {
  const rng = Rng.of(pageSeed, 17);
  const r = blank(PAGE_W, PAGE_H, [245, 245, 240]);
  const h = siteHue % 6;
  const header: Rgb = [
    [200, 60, 50],
    [50, 110, 200],
    [40, 150, 90],
    [150, 80, 180],
    [220, 140, 30],
    [30, 150, 160],
  ][h] as unknown as Rgb;
  fill(r, 0, 0, PAGE_W, 12, header);
  for (let i = 0; i < 5; i++) {
    const g = rng.int(150, 215);
    fill(r, rng.int(4, 80), rng.int(16, 80), rng.int(20, 70), rng.int(3, 10), [g, g, g]);
  }
  const bx = rng.int(10, PAGE_W - 40);
  const by = rng.int(20, PAGE_H - 16);
  fill(r, bx, by, 30, 10, [header[0] * 0.8, header[1] * 0.8, header[2] * 0.8]);
  const target = { x: Math.round(((bx + 15) / PAGE_W) * 1000), y: Math.round(((by + 5) / PAGE_H) * 1000) };
  return { png: encodePng(r), target };
}
