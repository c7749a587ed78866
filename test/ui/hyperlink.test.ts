// The dashboard header's wandb URL as an OSC 8 hyperlink: the exact bytes written, control bytes
// stripped (a URL from a log must not end the OSC or carry a command), and plain text wherever the
// terminal is not known to make it a link (tmux before 3.4, screen, unknown terminals).
import { describe, expect, it } from 'vitest';
import { hyperlinksSupported, osc8, withoutControls } from '../../src/ui/hyperlink.js';
import { lineToAnsi } from '../../src/ui/ansi.js';
import type { Seg } from '../../src/ui/line-types.js';

const URL_ = 'https://wandb.ai/webgym/rl/runs/abc123';

describe('osc8', () => {
  it('writes ESC ] 8 ; ; URL ESC \\ text ESC ] 8 ; ; ESC \\', () => {
    expect(osc8(URL_, 'run')).toBe('\x1b]8;;https://wandb.ai/webgym/rl/runs/abc123\x1b\\run\x1b]8;;\x1b\\');
  });

  it('strips C0, DEL and C1 bytes from the URL and the text; an empty URL is plain text', () => {
    const evil = 'https://wandb.ai/x\x07\x1b]0;pwned\x1b\\\x9b2J\x7f/y';
    expect(withoutControls(evil)).toBe('https://wandb.ai/x]0;pwned\\2J/y');
    expect(osc8(evil, 'a\x1b[31mb')).toBe('\x1b]8;;https://wandb.ai/x]0;pwned\\2J/y\x1b\\a[31mb\x1b]8;;\x1b\\');
    expect(osc8('\x1b\x07', 'text')).toBe('text');
  });
});

describe('hyperlinksSupported', () => {
  it('inside tmux only from 3.4; unknown version or screen: plain text', () => {
    const tmux = (v?: string) => ({ TMUX: '/tmp/tmux-0/default,1,0', TERM_PROGRAM: 'tmux', TERM_PROGRAM_VERSION: v });
    expect(hyperlinksSupported(tmux('3.4'))).toBe(true);
    expect(hyperlinksSupported(tmux('3.5a'))).toBe(true);
    expect(hyperlinksSupported(tmux('next-3.6'))).toBe(true);
    expect(hyperlinksSupported(tmux('3.3a'))).toBe(false);
    expect(hyperlinksSupported(tmux('2.9'))).toBe(false);
    expect(hyperlinksSupported(tmux(undefined))).toBe(false);
    // tmux inside a capable terminal: the outer terminal's variables say nothing about tmux.
    expect(hyperlinksSupported({ TMUX: '/tmp/t,1,0', KITTY_WINDOW_ID: '1', TERM: 'screen-256color' })).toBe(false);
    expect(hyperlinksSupported({ STY: '123.pts-0', TERM_PROGRAM: 'iTerm.app' })).toBe(false);
  });

  it('outside tmux: terminals known to make links; unknown ones and old VTE not', () => {
    expect(hyperlinksSupported({ TERM_PROGRAM: 'iTerm.app' })).toBe(true);
    expect(hyperlinksSupported({ TERM: 'xterm-kitty' })).toBe(true);
    expect(hyperlinksSupported({ WT_SESSION: 'x' })).toBe(true);
    expect(hyperlinksSupported({ VTE_VERSION: '7600' })).toBe(true);
    expect(hyperlinksSupported({ VTE_VERSION: '4800' })).toBe(false);
    expect(hyperlinksSupported({ TERM: 'xterm-256color' })).toBe(false);
    expect(hyperlinksSupported({})).toBe(false);
  });
});

describe('a linked segment as written', () => {
  const line: Seg[] = [
    { t: ' │ wandb ', c: 'dim' },
    { t: URL_, c: 'accent', link: URL_ },
  ];
  it('is an OSC 8 link inside its colour where links pass, the same text as before elsewhere', () => {
    expect(lineToAnsi(line, true, true)).toBe(
      `\x1b[90m │ wandb \x1b[0m\x1b[36m\x1b]8;;${URL_}\x1b\\${URL_}\x1b]8;;\x1b\\\x1b[0m`,
    );
    expect(lineToAnsi(line, true)).toBe(`\x1b[90m │ wandb \x1b[0m\x1b[36m${URL_}\x1b[0m`);
    expect(lineToAnsi(line, false, true)).toBe(` │ wandb \x1b]8;;${URL_}\x1b\\${URL_}\x1b]8;;\x1b\\`);
  });
});
