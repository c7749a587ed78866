// What this terminal can draw, asked of it: its environment, its answer to Primary Device Attributes
// (`ESC [ c`: a 4 among the numbers is sixel) and, inside tmux, allow-passthrough. The choice is
// src/images/detect.ts's; this only asks. Nothing is asked when stdout is not a terminal.
import { execFile } from 'node:child_process';
import { chooseImageMode, type ImageChoice, type ImageModeWanted, type TerminalFacts } from '../images/detect.js';

const DA1_WAIT_MS = 300;

function askDa1(): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY || typeof stdin.setRawMode !== 'function') return Promise.resolve(null);
  return new Promise((resolve) => {
    let got = '';
    const done = (v: string | null) => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      resolve(v);
    };
    const onData = (b: Buffer) => {
      got += b.toString('latin1');
      if (/\x1b\[\?[\d;]*c/.test(got)) done(got);
    };
    const timer = setTimeout(() => done(got || null), DA1_WAIT_MS);
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
    process.stdout.write('\x1b[c');
  });
}

function tmuxPassthrough(): Promise<boolean | null> {
  return new Promise((resolve) => {
    execFile('tmux', ['show-options', '-gv', 'allow-passthrough'], { timeout: 2000 }, (err, out) => {
      resolve(err ? null : /^(on|all)$/.test(out.trim()));
    });
  });
}

/** `askDa1: false`: the cockpit, where only kitty differs from half-blocks, skips the DA1 wait. */
function tmuxRgb(): Promise<boolean | null> {
  return new Promise((resolve) => {
    execFile('tmux', ['display-message', '-p', '#{client_termfeatures}'], { timeout: 2000 }, (err, out) => {
      resolve(err ? null : /(^|,)RGB(,|$)/.test(out.trim()));
    });
  });
}

export async function chooseImages(wanted: ImageModeWanted, o: { askDa1?: boolean } = {}): Promise<ImageChoice> {
  const env = process.env;
  const isTty = !!process.stdout.isTTY;
  const facts: TerminalFacts = { env, isTty, da1: null, tmuxPassthrough: null };
  if (wanted === 'auto' && isTty) {
    if (env.TMUX) [facts.tmuxPassthrough, facts.tmuxRgb] = await Promise.all([tmuxPassthrough(), tmuxRgb()]);
    if (o.askDa1 !== false) facts.da1 = await askDa1();
  }
  return chooseImageMode(wanted, facts);
}
