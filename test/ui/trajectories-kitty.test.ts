// kitty's graphics in the cockpit: a step's screenshot is transmitted once (an APC beside the frame,
// not in any row) and placed by U+10EEEE cells whose foreground is the image id, read back from
// @xterm/headless after the painter's bytes; frames between keys send nothing; another step's
// image replaces it (the old one deleted, a=d), and leaving the step view or the cockpit deletes it.
import { describe, expect, it } from 'vitest';
import { stepViews, summaryOf } from '../../src/episodes/index.js';
import { encodePng } from '../../src/images/png.js';
import { blank } from '../../src/images/raster.js';
import { kittyPicture } from '../../src/images/render.js';
import { PLACEHOLDER } from '../../src/images/kitty.js';
import type { ImageMode } from '../../src/images/detect.js';
import { Cockpit } from '../../src/ui/cockpit.js';
import { TerminalPainter } from '../../src/ui/painter.js';
import { initialUiState } from '../../src/ui/ui-state.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { TrajectoriesView } from '../../src/session/types.js';
import { XtermScreen } from './xterm-screen.js';

const W = 80;
const H = 30;
const FILE = '/d/rollout/3/shop_ep0.json';
const SHOTS = ['/d/rollout/3/shop_ep0_step_000.png', '/d/rollout/3/shop_ep0_step_001.png'];
const steps = stepViews(FILE, {
  steps: SHOTS.map((p, i) => ({ step_idx: i, observation: { image_path: p }, action: { action_string: 'Scroll.' } })),
});
const episode = summaryOf(
  { kind: 'train', version: 3, file: FILE, fileSize: 100 },
  { task_id: 'shop', episode_idx: 0, reward: 1, n_steps: 2 },
);
const pngs = [encodePng(blank(64, 40, [30, 120, 200])), encodePng(blank(64, 40, [200, 20, 20]))];
const DATA: TrajectoriesView = {
  runId: 'r',
  episodes: [episode],
  sizes: new Map(),
  problem: null,
  stepsFile: FILE,
  steps,
  stepsProblem: null,
  shots: new Map(SHOTS.map((p, i) => [p, { ok: true as const, bytes: pngs[i] }])),
};
/** Row and column diacritics of kitty's rowcolumn-diacritics.txt: rows 0, 1, 2 and column 0. */
const ROW = ['\u0305', '\u030d', '\u030e'];
const COL0 = '\u0305';

function mount(tmux = false) {
  const screen = new XtermScreen(W, H);
  const raw: string[] = [];
  const painter = new TerminalPainter({ write: (s: string) => screen.write(s) });
  const recording = Object.assign(painter, {
    raw: (s: string) => {
      raw.push(s);
      screen.write(s);
    },
  });
  const session = new StaticSession({ selectedRunId: 'r', trajectories: DATA });
  const cockpit = new Cockpit({
    session,
    painter: recording,
    size: { columns: W, rows: H },
    colors: true,
    images: { mode: 'kitty', tmux, why: 'kitty graphics (terminal environment)' },
  });
  const ui = initialUiState('trajectories');
  cockpit.ui = { ...ui, traj: { ...ui.traj, level: 'step', step: 0 } };
  return { screen, raw, cockpit };
}

const idOf = (seq: string): number => Number(/\x1b_Ga=T,q=2,f=100,U=1,i=(\d+),/.exec(seq)?.[1]);
const rgb = (id: number) => [(id >> 16) & 255, (id >> 8) & 255, id & 255];

describe('kitty images on the Trajectories screen', () => {
  it('transmits the image once and draws placeholder cells whose foreground is its id', async () => {
    const { screen, raw, cockpit } = mount();
    cockpit.paint();
    cockpit.paint();
    cockpit.paint();
    expect(raw).toHaveLength(1);
    const id = idOf(raw[0]);
    expect(id).toBeGreaterThan(0);
    expect(id).toBeLessThanOrEqual(0xffffff);
    // What was written is kitty's transmission of this screenshot in its box, nothing else.
    const rows = raw[0].match(/r=(\d+)/)![1];
    const cols = raw[0].match(/c=(\d+)/)![1];
    // 20 rows are left for the picture on a 30-row terminal: 64×40 pixels take 64×20 cells.
    const want = kittyPicture(pngs[0], { cols: W, rows: 20, click: null, id });
    expect(want.ok && [want.prelude, want.cols, want.rows]).toEqual([raw[0], 64, 20]);
    expect([cols, rows]).toEqual(['64', '20']);
    expect(raw[0].endsWith('\x1b\\')).toBe(true);
    await screen.settled();
    const buf = screen.term.buffer.active;
    const at: { y: number; x: number }[] = [];
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) if (buf.getLine(y)!.getCell(x)!.getChars().startsWith(PLACEHOLDER)) at.push({ y, x });
    expect(at.length).toBe(Number(rows) * Number(cols));
    const { y: top, x: left } = at[0];
    for (let r = 0; r < 3; r++) {
      const line = buf.getLine(top + r)!;
      // The first cell of a row names its row and column; the others are the bare placeholder.
      expect(line.getCell(left)!.getChars()).toBe(PLACEHOLDER + ROW[r] + COL0);
      expect(line.getCell(left + 1)!.getChars()).toBe(PLACEHOLDER);
      expect(line.getCell(left + Number(cols) - 1)!.getChars()).toBe(PLACEHOLDER);
      for (const x of [left, left + 1, left + Number(cols) - 1]) {
        const cell = line.getCell(x)!;
        expect(cell.isFgRGB()).toBe(true);
        expect(rgb(cell.getFgColor())).toEqual(rgb(id));
      }
    }
    cockpit.stop();
    screen.dispose();
  });

  it("another step's image replaces it: the old one deleted, the new one sent, once", () => {
    const { raw, cockpit, screen } = mount();
    cockpit.paint();
    const first = idOf(raw[0]);
    cockpit.ui = { ...cockpit.ui, traj: { ...cockpit.ui.traj, step: 1 } };
    cockpit.paint();
    cockpit.paint();
    expect(raw).toHaveLength(2);
    const second = idOf(raw[1]);
    expect(second).not.toBe(first);
    expect(raw[1].startsWith(`\x1b_Ga=d,d=I,i=${first},q=2\x1b\\\x1b_Ga=T,`)).toBe(true);
    // Back to the list of steps: the image goes; back to the step: sent again.
    cockpit.ui = { ...cockpit.ui, traj: { ...cockpit.ui.traj, level: 'steps' } };
    cockpit.paint();
    expect(raw[2]).toBe(`\x1b_Ga=d,d=I,i=${second},q=2\x1b\\`);
    cockpit.ui = { ...cockpit.ui, traj: { ...cockpit.ui.traj, level: 'step' } };
    cockpit.paint();
    expect(idOf(raw[3])).toBe(second);
    cockpit.stop();
    expect(raw[4]).toBe(`\x1b_Ga=d,d=I,i=${second},q=2\x1b\\`);
    expect(raw).toHaveLength(5);
    screen.dispose();
  });

  it('inside tmux every sequence goes through the passthrough', () => {
    const { raw, cockpit, screen } = mount(true);
    cockpit.paint();
    cockpit.stop();
    expect(raw).toHaveLength(2);
    for (const s of raw) {
      expect(s.startsWith('\x1bPtmux;\x1b\x1b_G')).toBe(true);
      expect(s.endsWith('\x1b\\')).toBe(true);
    }
    screen.dispose();
  });

  /** The step view painted through the painter with no raw writes (the cells alone), in `mode`. */
  async function paintedStep(mode: ImageMode): Promise<string> {
    const screen = new XtermScreen(W, H);
    const painter = new TerminalPainter({ write: (s: string) => screen.write(s) });
    const cockpit = new Cockpit({
      session: new StaticSession({ selectedRunId: 'r', trajectories: DATA }),
      painter,
      size: { columns: W, rows: H },
      colors: true,
      images: { mode, tmux: false, why: `--images ${mode}` },
    });
    const ui = initialUiState('trajectories');
    cockpit.ui = { ...ui, traj: { ...ui.traj, level: 'step' } };
    cockpit.paint();
    await screen.settled();
    const text = screen.text();
    screen.dispose();
    return text;
  }

  it('half-blocks when the images mode is not kitty (sixel and iTerm2 are not cells), and says so', async () => {
    const notes = {
      blocks: 'half-block cells (--images blocks)',
      sixel: 'half-block cells (sixel here: awrl-tui episodes --show)',
      iterm: 'half-block cells (iTerm2 images here: awrl-tui episodes --show)',
    };
    for (const mode of ['blocks', 'sixel', 'iterm'] as const) {
      const text = await paintedStep(mode);
      expect(text).toContain('▀');
      expect(text).not.toContain(PLACEHOLDER);
      expect(text).toContain(`${notes[mode]} · `);
    }
  });

  it('--images none: no picture, the step and the file named, and why', async () => {
    const text = await paintedStep('none');
    expect(text).not.toContain('▀');
    expect(text).toContain('[screenshot: not drawn]');
    expect(text).toContain('images off (--images none) · shop_ep0_step_000.png');
  });
});
