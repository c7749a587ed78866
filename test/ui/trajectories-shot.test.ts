// A step's screenshot in the cockpit: the Trajectories screen's lines, through lineToAnsi and the
// TerminalPainter into @xterm/headless, hold half-block cells whose 24-bit colours are the PNG's
// (upper pixel foreground, lower background); the click marker is red where the action clicked;
// with colours off the picture is named, never drawn as blank cells.
import { describe, expect, it } from 'vitest';
import { stepViews, summaryOf } from '../../src/episodes/index.js';
import { encodePng } from '../../src/images/png.js';
import { blank, pixel, type Raster } from '../../src/images/raster.js';
import { emptyTraj, trajectoriesLines, type TrajView } from '../../src/ui/screens/trajectories.js';
import { shotLinesKept } from '../../src/ui/screens/shot-lines.js';
import { lineText } from '../../src/ui/lines.js';
import { paintLines } from './helpers.js';

const W = 80;
const H = 27;
// Rows left for the picture under the title, 5 lines of the step and over its file name.
const PICTURE_ROWS = H - 1 - 5 - 1;

/** W × 2·PICTURE_ROWS pixels (the picture's box exactly: no scaling), every pixel its own colour. */
function page(): Raster {
  const r = blank(W, PICTURE_ROWS * 2);
  for (let y = 0; y < r.height; y++)
    for (let x = 0; x < r.width; x++) r.data.set([(x * 3) % 256, (y * 6) % 256, (x * y) % 256, 255], (y * W + x) * 4);
  return r;
}

const FILE = '/d/rollout/3/shop_ep0.json';
const SHOT = '/d/rollout/3/shop_ep0_step_000.png';
const CLICKED = '/d/rollout/3/shop_ep0_step_001.png';
const steps = stepViews(FILE, {
  steps: [
    { step_idx: 0, observation: { image_path: SHOT }, action: { action_string: 'Scroll down.' } },
    {
      step_idx: 1,
      observation: { image_path: CLICKED },
      action: { action_string: 'Click.', action: { key: 'click', arguments: { coordinates: [500, 500] } } },
    },
  ],
});
const episode = summaryOf(
  { kind: 'train', version: 3, file: FILE, fileSize: 100 },
  { task_id: 'shop', episode_idx: 0, reward: 1, n_steps: 2 },
);
const rgbOf = (n: number) => [(n >> 16) & 255, (n >> 8) & 255, n & 255];

describe("a step's screenshot in the cockpit", () => {
  const img = page();
  const png = encodePng(img);
  const white = encodePng(blank(W, PICTURE_ROWS * 2, [255, 255, 255]));
  const shots = new Map([
    [SHOT, { ok: true as const, bytes: png }],
    [CLICKED, { ok: true as const, bytes: white }],
  ]);
  const view = (step: number): TrajView => ({
    ...emptyTraj(),
    episodes: [episode],
    level: 'step',
    steps,
    step,
    shots,
  });

  it("draws half-block cells whose colours are the PNG's pixels, read back from the terminal", () => {
    const lines = trajectoriesLines(view(0), { width: W, height: H, colors: true });
    const screen = paintLines(lines, W, H, true);
    const top = 6;
    const got: string[] = [];
    const want: string[] = [];
    for (let y = 0; y < PICTURE_ROWS; y++)
      for (let x = 0; x < W; x++) {
        const cell = screen.term.buffer.active.getLine(top + y)!.getCell(x)!;
        const rgb = cell.isFgRGB() && cell.isBgRGB();
        got.push(`${x},${y} ${cell.getChars()} ${rgb} ${rgbOf(cell.getFgColor())} / ${rgbOf(cell.getBgColor())}`);
        want.push(`${x},${y} ▀ true ${pixel(img, x, 2 * y)} / ${pixel(img, x, 2 * y + 1)}`);
      }
    expect(got).toEqual(want);
    expect(screen.lines()[top + PICTURE_ROWS]).toBe('shop_ep0_step_000.png');
    screen.dispose();
  });

  it('marks the click in red at the middle of the picture for a click at (500, 500)', () => {
    const lines = trajectoriesLines(view(1), { width: W, height: H, colors: true });
    const screen = paintLines(lines, W, H, true);
    const mid = screen.term.buffer.active.getLine(6 + PICTURE_ROWS / 2)!.getCell(W / 2)!;
    expect(rgbOf(mid.getFgColor())).toEqual([255, 0, 0]);
    const corner = screen.term.buffer.active.getLine(6)!.getCell(0)!;
    expect(rgbOf(corner.getFgColor())).toEqual([255, 255, 255]);
    screen.dispose();
  });

  it('with colours off names the picture instead of drawing blank cells', () => {
    const text = trajectoriesLines(view(0), { width: 120, height: H, colors: false }).map(lineText);
    expect(text[6]).toBe('[screenshot: not drawn, colours are off (NO_COLOR); awrl-tui episodes --show draws it]');
  });

  it('keeps a bounded number of drawn screenshots however many are viewed', () => {
    const many = new Map<string, { ok: true; bytes: Buffer }>();
    const tiny = encodePng(blank(4, 4, [9, 9, 9]));
    const paths = Array.from({ length: 40 }, (_, i) => `/d/rollout/3/shop_ep0_step_${String(i).padStart(3, '0')}.png`);
    for (const p of paths) many.set(p, { ok: true, bytes: tiny });
    const long = stepViews(FILE, { steps: paths.map((p, i) => ({ step_idx: i, observation: { image_path: p } })) });
    for (let i = 0; i < paths.length; i++)
      trajectoriesLines({ ...view(0), steps: long, step: i, shots: many }, { width: W, height: H, colors: true });
    expect(shotLinesKept()).toBeLessThanOrEqual(12);
  });
});
