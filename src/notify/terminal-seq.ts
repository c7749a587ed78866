// The escape sequences terminals show as desktop notifications, and the tab's progress. PURE.
// OSC 9 (iTerm2, WezTerm, Windows Terminal, ghostty), OSC 777 (VTE terminals, foot, urxvt), OSC 99
// (kitty); inside tmux wrapped in its passthrough (`ESC P tmux; … ESC \`, every ESC doubled: shown
// when the pane allows passthrough), and always a bare BEL after it, which tmux passes on by itself
// and its `monitor-bell` marks the window with. OSC 9;4 is the tab's progress (red: an error stands).
// Text embedded in a sequence is stripped of control bytes: a log line cannot end the sequence
// early and write its own escapes to the person's terminal.

export type TerminalKind = 'osc9' | 'osc777' | 'osc99';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** Which notification sequence this terminal understands (by what it sets in the environment). */
export function terminalKind(env: Record<string, string | undefined>): TerminalKind {
  if (env.KITTY_WINDOW_ID || env.TERM === 'xterm-kitty') return 'osc99';
  if (env.VTE_VERSION || env.TERM === 'foot' || env.TERM?.startsWith('rxvt')) return 'osc777';
  return 'osc9';
}

/** C0, DEL and C1 controls out (a newline becomes a space). */
export function stripControls(s: string): string {
  return s.replace(/[\n\r\t]+/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, '');
}

/** The notification's OSC itself (not wrapped). */
export function notifyOsc(kind: TerminalKind, title: string, body: string): string {
  const t = stripControls(title).slice(0, 200);
  const b = stripControls(body).slice(0, 400);
  switch (kind) {
    case 'osc9':
      // One text; it starts with the title ("awrl …"), never with a digit (`9;4;` is progress).
      return `${ESC}]9;${b ? `${t}: ${b}` : t}${BEL}`;
    case 'osc777':
      // `;` separates the fields.
      return `${ESC}]777;notify;${t.replace(/;/g, ',')};${b.replace(/;/g, ',')}${BEL}`;
    case 'osc99':
      return b ? `${ESC}]99;i=awrl:d=0;${t}${ST}${ESC}]99;i=awrl:d=1:p=body;${b}${ST}` : `${ESC}]99;;${t}${ST}`;
  }
}

/** OSC 9;4: 0 off, 1 normal, 2 error (red), 3 indeterminate, 4 warning; percent 0–100. */
export function progressOsc(state: 0 | 1 | 2 | 3 | 4, percent: number): string {
  const p = Math.max(0, Math.min(100, Math.round(percent)));
  return `${ESC}]9;4;${state};${p}${BEL}`;
}

/** A sequence as it must be written to reach the outer terminal: inside tmux, in its passthrough. */
export function throughTmux(seq: string, inTmux: boolean): string {
  if (!inTmux) return seq;
  return `${ESC}Ptmux;${seq.replaceAll(ESC, ESC + ESC)}${ST}`;
}

/** A notification as written: the OSC (wrapped inside tmux), then a BEL. */
export function notificationBytes(kind: TerminalKind, title: string, body: string, inTmux: boolean): string {
  return `${throughTmux(notifyOsc(kind, title, body), inTmux)}${BEL}`;
}
