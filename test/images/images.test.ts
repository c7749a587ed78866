// Screenshots drawn for a terminal: half-block cells read back from a real terminal emulator
// (@xterm/headless) carry the PNG's colours; kitty's placeholder sequence byte for byte; a PNG that
// is missing, corrupt or huge becomes a placeholder line, never escape noise; the mode detection.
import { describe, expect, it } from 'vitest';
import { XtermScreen } from '../ui/xterm-screen.js';
import { decodePng, encodePng } from '../../src/images/png.js';
import { blank, pixel, type Raster } from '../../src/images/raster.js';
import { renderShot } from '../../src/images/render.js';
import { kittyPlaceholderRows, kittyTransmit, tmuxPassthrough } from '../../src/images/kitty.js';
import { sixelImage } from '../../src/images/sixel.js';
import { chooseImageMode } from '../../src/images/detect.js';

/** 16×8 pixels: four colour blocks and a gradient row, so each cell's two halves differ. */
function testImage(): Raster {
  const r = blank(16, 8);
  for (let y = 0; y < 8; y++)
    for (let x = 0; x < 16; x++) {
      const rgb = y === 7 ? [x * 16, 255 - x * 16, 128] : [x < 8 ? 220 : 20, y < 4 ? 200 : 40, (x * 13 + y * 7) % 256];
      r.data.set([...rgb, 255], (y * 16 + x) * 4);
    }
  return r;
}

const rgbOf = (n: number): [number, number, number] => [(n >> 16) & 255, (n >> 8) & 255, n & 255];

describe('half-block cells', () => {
  it('read back from @xterm/headless, each cell holds the upper pixel as foreground and the lower as background', async () => {
    const png = encodePng(testImage());
    const decoded = decodePng(png);
    if (!decoded.ok) throw new Error(decoded.why);
    const out = renderShot(png, { mode: 'blocks', cols: 16, rows: 4 });
    expect(out.rows).toHaveLength(4);
    const screen = new XtermScreen(20, 6);
    screen.write(out.rows.join('\r\n'));
    await screen.settled();
    for (let y = 0; y < 4; y++)
      for (let x = 0; x < 16; x++) {
        const cell = screen.term.buffer.active.getLine(y)!.getCell(x)!;
        expect(cell.getChars()).toBe('▀');
        expect(cell.isFgRGB() && cell.isBgRGB()).toBe(true);
        expect(rgbOf(cell.getFgColor())).toEqual(pixel(decoded.image, x, 2 * y));
        expect(rgbOf(cell.getBgColor())).toEqual(pixel(decoded.image, x, 2 * y + 1));
      }
  });

  it('draws the click marker where the action clicked (0-1000 grid → pixels)', () => {
    const png = encodePng(blank(100, 60, [255, 255, 255]));
    const out = renderShot(png, { mode: 'blocks', cols: 100, rows: 30, click: { x: 500, y: 500 } });
    // Row 15 holds pixels 30 and 31: the marker's centre (50, 30) is red.
    expect(out.rows[15]).toContain('38;2;255;0;0');
    expect(out.rows[0]).not.toContain('255;0;0');
  });
});

describe('kitty graphics with Unicode placeholders', () => {
  it('placeholder rows: the id as 24-bit foreground, U+10EEEE, row and column diacritics on the first cell', () => {
    const rows = kittyPlaceholderRows(0x0a0b0c, 3, 2);
    expect(rows).toEqual([
      '\x1b[38;2;10;11;12m\u{10EEEE}\u0305\u0305\u{10EEEE}\u{10EEEE}\x1b[39m',
      '\x1b[38;2;10;11;12m\u{10EEEE}\u030D\u0305\u{10EEEE}\u{10EEEE}\x1b[39m',
    ]);
  });

  it('the transmission: PNG data in chunks of 4096 base64 bytes, a virtual placement, no answers', () => {
    const bytes = Buffer.alloc(4000, 7);
    const seq = kittyTransmit(bytes, 42, 10, 5);
    const b64 = bytes.toString('base64');
    expect(seq).toBe(
      `\x1b_Ga=T,q=2,f=100,U=1,i=42,c=10,r=5,m=1;${b64.slice(0, 4096)}\x1b\\` +
        `\x1b_Gq=2,m=0;${b64.slice(4096)}\x1b\\`,
    );
    expect(tmuxPassthrough('\x1b_Gx\x1b\\')).toBe('\x1bPtmux;\x1b\x1b_Gx\x1b\x1b\\\x1b\\');
  });
});

describe('what cannot be drawn is said', () => {
  it('missing, corrupt and huge PNGs give a placeholder line; a huge one is refused from its header', () => {
    expect(renderShot(null, { mode: 'blocks', cols: 10, rows: 5 }).rows[0]).toContain('[screenshot: missing]');
    const corrupt = Buffer.concat([encodePng(blank(8, 8)).subarray(0, 40), Buffer.alloc(20)]);
    expect(renderShot(corrupt, { mode: 'kitty', cols: 10, rows: 5 }).rows[0]).toMatch(/corrupt PNG/);
    const huge = Buffer.from(encodePng(blank(8, 8)));
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    const out = renderShot(huge, { mode: 'blocks', cols: 10, rows: 5 });
    expect(out.rows).toEqual(['\x1b[2m[screenshot: too large to show (100000×100000 pixels)]\x1b[22m']);
    expect(out.prelude).toBe('');
  });

  it('sixel: one DCS with the raster size, a palette, a band per six rows', () => {
    const s = sixelImage(blank(4, 12, [255, 0, 0]));
    expect(s.startsWith('\x1bP0;1;0q"1;1;4;12#180;2;100;0;0')).toBe(true);
    expect(s.endsWith('\x1b\\')).toBe(true);
    expect(s.match(/-/g)).toHaveLength(2);
  });
});

describe('choosing the image mode', () => {
  const facts = { env: {}, isTty: true, da1: null, tmuxPassthrough: null };
  it('half-blocks where nothing better is known; none when not a terminal; --images wins', () => {
    expect(chooseImageMode('auto', facts).mode).toBe('blocks');
    expect(chooseImageMode('auto', { ...facts, isTty: false }).mode).toBe('none');
    expect(chooseImageMode('sixel', { ...facts, isTty: false }).mode).toBe('sixel');
  });
  it('kitty by its environment; inside tmux only with allow-passthrough on', () => {
    const env = { KITTY_WINDOW_ID: '1' };
    expect(chooseImageMode('auto', { ...facts, env })).toMatchObject({ mode: 'kitty', tmux: false });
    const inTmux = { ...facts, env: { ...env, TMUX: '/tmp/x,1,0' } };
    expect(chooseImageMode('auto', { ...inTmux, tmuxPassthrough: false })).toMatchObject({ mode: 'blocks' });
    expect(chooseImageMode('auto', { ...inTmux, tmuxPassthrough: true })).toMatchObject({ mode: 'kitty', tmux: true });
  });
  it("kitty inside tmux only when tmux sends it 24-bit colour (the placeholders' colour is the image id)", () => {
    const inTmux = { ...facts, env: { KITTY_WINDOW_ID: '1', TMUX: '/tmp/x,1,0' }, tmuxPassthrough: true };
    expect(chooseImageMode('auto', { ...inTmux, tmuxRgb: false })).toMatchObject({
      mode: 'blocks',
      why: "tmux does not send this terminal 24-bit colour (set -as terminal-features ',xterm-kitty:RGB')",
    });
    expect(chooseImageMode('auto', { ...inTmux, tmuxRgb: true }).mode).toBe('kitty');
    expect(chooseImageMode('kitty', { ...inTmux, tmuxRgb: false }).mode).toBe('kitty');
  });
  it('sixel only when the terminal answers DA1 with a 4', () => {
    expect(chooseImageMode('auto', { ...facts, da1: '\x1b[?62;4;22c' }).mode).toBe('sixel');
    expect(chooseImageMode('auto', { ...facts, da1: '\x1b[?62;22c' }).mode).toBe('blocks');
    expect(chooseImageMode('auto', { ...facts, env: { LC_TERMINAL: 'iTerm2' } }).mode).toBe('iterm');
  });
});
