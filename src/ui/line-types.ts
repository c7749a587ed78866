// A line as the panels make it: plain text, or styled segments (no dependencies: the splash uses it).
import type { PaletteName } from './theme.js';

export interface Seg {
  t: string;
  c?: PaletteName;
  bold?: boolean;
  inverse?: boolean;
  /** A URL the text links to (an OSC 8 hyperlink where the terminal makes it one). */
  link?: string;
}

export type Line = string | Seg[];
