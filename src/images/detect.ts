// Which way to draw images here, from what the terminal says of itself: its environment, its answer to
// Primary Device Attributes (4 = sixel) and, inside tmux, whether passthrough is allowed. Pure: the
// asking is the caller's. A terminal that cannot be recognised gets half-blocks, never escape noise.
export const IMAGE_MODES = ['auto', 'blocks', 'kitty', 'sixel', 'iterm', 'none'] as const;
export type ImageModeWanted = (typeof IMAGE_MODES)[number];
export type ImageMode = Exclude<ImageModeWanted, 'auto'>;

export interface TerminalFacts {
  env: Record<string, string | undefined>;
  /** stdout is a terminal. */
  isTty: boolean;
  /** The answer to `ESC [ c`, or null when none came (or it was not asked). */
  da1: string | null;
  /** Inside tmux: `allow-passthrough` is on (null: not asked, or not inside tmux). */
  tmuxPassthrough: boolean | null;
  /** Inside tmux: it sends 24-bit colour to this terminal (`RGB` among the client's features).
   *  Without it tmux turns the placeholders' colour, kitty's image id, into one of 256. */
  tmuxRgb?: boolean | null;
}

export interface ImageChoice {
  mode: ImageMode;
  /** The image sequences go through tmux's passthrough. */
  tmux: boolean;
  why: string;
}

export function hasSixel(da1: string | null): boolean {
  const m = /\x1b\[\?([\d;]*)c/.exec(da1 ?? '');
  return !!m && m[1].split(';').includes('4');
}

export function chooseImageMode(wanted: ImageModeWanted, t: TerminalFacts): ImageChoice {
  const inTmux = !!t.env.TMUX;
  if (wanted !== 'auto') return { mode: wanted, tmux: inTmux, why: `--images ${wanted}` };
  if (!t.isTty) return { mode: 'none', tmux: false, why: 'not a terminal' };
  if (t.env.TERM === 'dumb') return { mode: 'none', tmux: false, why: 'TERM=dumb' };
  const e = t.env;
  const kitty = !!e.KITTY_WINDOW_ID || e.TERM === 'xterm-kitty' || e.TERM_PROGRAM === 'ghostty';
  const iterm = e.TERM_PROGRAM === 'iTerm.app' || e.LC_TERMINAL === 'iTerm2' || e.TERM_PROGRAM === 'WezTerm';
  if ((kitty || iterm) && inTmux && t.tmuxPassthrough !== true) {
    return { mode: 'blocks', tmux: true, why: 'tmux allow-passthrough is off (set -g allow-passthrough on)' };
  }
  if (kitty && inTmux && t.tmuxRgb === false) {
    const why = "tmux does not send this terminal 24-bit colour (set -as terminal-features ',xterm-kitty:RGB')";
    return { mode: 'blocks', tmux: true, why };
  }
  if (kitty) return { mode: 'kitty', tmux: inTmux, why: 'kitty graphics (terminal environment)' };
  if (iterm) return { mode: 'iterm', tmux: inTmux, why: 'iTerm2 inline images (terminal environment)' };
  // tmux answers DA1 itself: 4 only when it was built with sixel and the outer terminal has it.
  if (hasSixel(t.da1)) return { mode: 'sixel', tmux: false, why: 'the terminal answered that it has sixel' };
  return { mode: 'blocks', tmux: inTmux, why: 'half-block cells' };
}
