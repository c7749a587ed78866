// kitty's placeholder cells are measured as the terminal (string-width's count, @xterm/headless and
// tmux in the other tests) lays them out, by a count that does not segment every grapheme.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { kittyPlaceholderText, MAX_PLACEHOLDER_ROWS } from '../../src/images/kitty.js';
import { clipCells, textCells } from '../../src/ui/text-width.js';

describe("kitty's placeholder cells", () => {
  it('are counted as string-width counts them: one a U+10EEEE, none a row/column mark', () => {
    for (let r = 0; r < MAX_PLACEHOLDER_ROWS; r++) {
      const row = kittyPlaceholderText(r, 7);
      expect([r, textCells(row)]).toEqual([r, stringWidth(row)]);
      expect(textCells(row)).toBe(7);
    }
  });

  it("anything else after a placeholder gets string-width's count; a row too wide is cut whole cells", () => {
    expect(textCells('\u{10EEEE}👍')).toBe(3);
    expect(textCells('\u{10EEEE}\u0301x')).toBe(stringWidth('\u{10EEEE}\u0301x'));
    expect(textCells(clipCells(kittyPlaceholderText(2, 9), 4))).toBe(4);
  });
});
