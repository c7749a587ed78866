// A line as the panels make it: plain text, or styled segments (no dependencies: the splash uses it).
import type { PaletteName } from './theme.js';

export interface Seg {
  t: string;
  c?: PaletteName;
  bold?: boolean;
  inverse?: boolean;
  /** A URL the text links to (an OSC 8 hyperlink where the terminal makes it one). */
  link?: string;
  /** 24-bit colours (0xRRGGBB) of foreground and background: a screenshot's half-block cells
   *  (src/images/blocks.ts). They win over `c`; with colours off they are not drawn. */
  fg?: number;
  bg?: number;
}

export type Line = string | Seg[];
