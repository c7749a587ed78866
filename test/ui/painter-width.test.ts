// The painter's bytes read back from a terminal (@xterm/headless with Unicode 11 widths): a shorter
// line painted over a longer one, over a wide character, and a line holding emoji the trainer logs
// (wandb's "🚀 View run at …") must leave nothing stale, on its row or the row below.
import { afterEach, describe, expect, it } from 'vitest';
import { frame, lineToAnsi, type Line } from '../../src/ui/lines.js';
import { TerminalPainter } from '../../src/ui/painter.js';
import { alertsLines } from '../../src/ui/panels/alerts.js';
import { clipCells, fitCells, isNarrow, textCells, wrapCells } from '../../src/ui/text-width.js';
import { XtermScreen } from './xterm-screen.js';

let screen: XtermScreen | null = null;
afterEach(() => {
  screen?.dispose();
  screen = null;
});

async function paintAll(frames: Line[][], columns: number, rows: number): Promise<string[]> {
  screen = new XtermScreen(columns, rows);
  const painter = new TerminalPainter(screen);
  for (const f of frames)
    painter.paint(
      frame(f, columns, rows - 1).map((l) => lineToAnsi(l, true)),
      columns,
      rows,
    );
  await screen.settled();
  return screen.lines();
}

describe('cells as a terminal counts them', () => {
  it('emoji take two cells, a skin tone none, SGR codes none', () => {
    expect(textCells('🚀')).toBe(2);
    expect(textCells('✅ ok')).toBe(5);
    expect(textCells('👍🏽')).toBe(2);
    expect(textCells('\x1b[31mred\x1b[0m')).toBe(3);
    expect(textCells('é')).toBe(1); // e + combining acute
  });
  it('the fast path holds only one-cell characters', () => {
    const ranges: [number, number][] = [
      [0x20, 0x7e],
      [0xa0, 0x2ff],
      [0x2010, 0x2027],
      [0x2030, 0x205e],
      [0x2190, 0x21ff],
      [0x2500, 0x25fc],
      [0x2800, 0x28ff],
    ];
    const wrong: string[] = [];
    for (const [a, b] of ranges) {
      for (let cp = a; cp <= b; cp++) {
        const ch = String.fromCodePoint(cp);
        if (!isNarrow(ch)) wrong.push(`U+${cp.toString(16)} not narrow`);
        // Measured by the slow path (string-width) through a character that forces it.
        else if (textCells('🚀' + ch) !== 3 && !/\p{M}|\p{Cf}/u.test(ch)) wrong.push(`U+${cp.toString(16)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
  it('a cut never goes over the width, even where a wide character straddles the edge', () => {
    expect(clipCells('ab🚀cd', 3)).toBe('ab');
    expect(textCells(clipCells('ab🚀cd', 4))).toBe(4);
    expect(fitCells('🚀 View run at https://wandb.ai/x', 10)).toBe('🚀 View r…');
    expect(fitCells('✅✅✅✅', 5)).toBe('✅✅…');
    expect(wrapCells('👍🏽👍🏽👍🏽', 4)).toEqual(['👍🏽👍🏽', '👍🏽']);
  });
  it('tabs and cursor controls from foreign text do not reach the terminal', () => {
    expect(clipCells('a\tb\x1b[2Kc\rd\x1b]8;;http://x\x07e', 20)).toBe('a bcde');
  });
});

// The painter skips a row that did not change: a row above that ran one cell over wrapped into it,
// and what it left there stayed through every later frame (the stale Alerts text a user saw).
describe('the painter over what was there', () => {
  it('a shorter line over a longer one leaves nothing of the longer', async () => {
    const rows = await paintAll(
      [
        ['x'.repeat(40), 'below'],
        ['short', 'below'],
      ],
      40,
      4,
    );
    expect(rows.slice(0, 3)).toEqual(['short', 'below', '']);
  });
  it('a shorter line over wide characters leaves no half of one', async () => {
    const wide = '🚀 View run at https://wandb.ai/team/run ✅ 👍🏽 done';
    const rows = await paintAll(
      [
        ['a', 'next row'],
        [wide, 'next row'],
        ['ok', 'next row'],
      ],
      40,
      4,
    );
    expect(rows.slice(0, 2)).toEqual(['ok', 'next row']);
  });
  it('a line of emoji wider than the screen is cut to it: the unchanged row below stays', async () => {
    const rows = await paintAll(
      [
        ['a', 'row two', 'row three'],
        ['✅'.repeat(30), 'row two', 'row three'],
      ],
      20,
      5,
    );
    expect(rows.slice(0, 3)).toEqual(['✅'.repeat(9) + '…', 'row two', 'row three']);
  });
  it('the Alerts panel: a traceback header and a tab in a detail, then a shorter alert, leave no stale text', async () => {
    const alert = (detail: string) =>
      ({ id: 'e', severity: 'error', title: 'trainer error', detail, advice: 'read the log' }) as never;
    const before = alertsLines([alert('starting')], 50, 6);
    const long = alertsLines(
      [alert('Traceback (most recent call last):\tupdate_weights 🚨 has raised ✅✅✅✅✅✅✅')],
      50,
      6,
    );
    const short = alertsLines([alert('ok')], 50, 6);
    const rows = await paintAll([before, long, short], 50, 8);
    expect(rows.join('\n')).not.toMatch(/Traceback|update_weights|✅|🚨/);
    expect(rows.slice(0, 5)).toEqual([
      expect.stringMatching(/^─ Alerts ─+ 1 ─$/),
      '✖ trainer error',
      '  ok',
      '  → read the log',
      '',
    ]);
  });
});
