// The bytes a terminal notification is written as: the sequence the terminal knows, tmux's
// passthrough with every ESC doubled, a BEL after, and no control byte from the text inside.
import { describe, it, expect } from 'vitest';
import {
  notificationBytes,
  notifyOsc,
  progressOsc,
  stripControls,
  terminalKind,
  throughTmux,
} from '../../src/notify/terminal-seq.js';

const ESC = '\x1b';

describe('terminal notification sequences', () => {
  it('OSC 9, OSC 777 and kitty OSC 99, chosen by what the terminal sets', () => {
    expect(terminalKind({ KITTY_WINDOW_ID: '1' })).toBe('osc99');
    expect(terminalKind({ VTE_VERSION: '7600' })).toBe('osc777');
    expect(terminalKind({ TERM_PROGRAM: 'WezTerm' })).toBe('osc9');
    expect(notifyOsc('osc9', 'awrl r1: NaN', 'grad norm')).toBe(`${ESC}]9;awrl r1: NaN: grad norm\x07`);
    expect(notifyOsc('osc777', 'a;b', 'c;d')).toBe(`${ESC}]777;notify;a,b;c,d\x07`);
    expect(notifyOsc('osc99', 'T', 'B')).toBe(`${ESC}]99;i=awrl:d=0;T${ESC}\\${ESC}]99;i=awrl:d=1:p=body;B${ESC}\\`);
  });

  it('text from a log cannot end the sequence or write its own escapes', () => {
    const evil = `boom\x07${ESC}]0;pwned\x07${ESC}[2J\x9b\nnext`;
    expect(stripControls(evil)).toBe('boom]0;pwned[2J next');
    const seq = notifyOsc('osc9', 'awrl', evil);
    // One ESC (the opener) and one BEL (the terminator): nothing of the text's.
    expect(seq.split(ESC)).toHaveLength(2);
    expect(seq.split('\x07')).toHaveLength(2);
  });

  it('inside tmux: the passthrough, every ESC doubled, then a bare BEL', () => {
    const osc = notifyOsc('osc99', 'T', 'B');
    expect(throughTmux(osc, true)).toBe(`${ESC}Ptmux;${osc.replaceAll(ESC, ESC + ESC)}${ESC}\\`);
    expect(notificationBytes('osc9', 'T', '', true)).toBe(`${ESC}Ptmux;${ESC}${ESC}]9;T\x07${ESC}\\\x07`);
    expect(notificationBytes('osc9', 'T', '', false)).toBe(`${ESC}]9;T\x07\x07`);
  });

  it('OSC 9;4 progress: state and a whole percent within 0..100', () => {
    expect(progressOsc(2, 37.6)).toBe(`${ESC}]9;4;2;38\x07`);
    expect(progressOsc(1, 140)).toBe(`${ESC}]9;4;1;100\x07`);
  });
});
