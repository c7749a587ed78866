// A line as the panels make it: plain text, or styled segments (no dependencies: the splash uses it).
import type { PaletteName } from './theme.js';

export interface Seg {
  t: string;
  c?: PaletteName;
  bold?: boolean;
  inverse?: boolean;
}

export type Line = string | Seg[];
