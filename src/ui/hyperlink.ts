// OSC 8 hyperlinks (the dashboard header's wandb URL): written only where the terminal is known to
// make them links; elsewhere (unknown terminals, screen, tmux before 3.4, which drops or garbles
// them) the URL stays plain text, which every terminal shows and most let you click anyway.
// Pure: the environment is passed in.

const ESC = '\x1b';
const ST = `${ESC}\\`;
// C0, DEL and C1: any of them inside an OSC would end it early or be read as a command.
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** Text with every control byte removed. */
export function withoutControls(s: string): string {
  return s.replace(CONTROL, '');
}

/** `text` as an OSC 8 link to `url` (control bytes stripped from both); plain text when the url is empty. */
export function osc8(url: string, text: string): string {
  const u = withoutControls(url);
  const t = withoutControls(text);
  if (!u) return t;
  return `${ESC}]8;;${u}${ST}${t}${ESC}]8;;${ST}`;
}

/** tmux's version from its environment (`TERM_PROGRAM_VERSION`, e.g. `3.3a`, `next-3.5`), or null. */
function tmuxVersion(env: NodeJS.ProcessEnv): [number, number] | null {
  if (env.TERM_PROGRAM !== 'tmux') return null;
  const m = /(\d+)\.(\d+)/.exec(env.TERM_PROGRAM_VERSION ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Whether OSC 8 links reach the user as links: inside tmux only from 3.4 (which passes them on);
 *  never inside screen; outside, only in terminals known to support them. Unknown: no. */
export function hyperlinksSupported(env: NodeJS.ProcessEnv): boolean {
  if (env.TMUX) {
    const v = tmuxVersion(env);
    return v !== null && (v[0] > 3 || (v[0] === 3 && v[1] >= 4));
  }
  if (env.STY || env.TERM?.startsWith('screen')) return false;
  if (env.TERM === 'dumb') return false;
  const program = env.TERM_PROGRAM ?? '';
  if (['iTerm.app', 'WezTerm', 'vscode', 'ghostty'].includes(program)) return true;
  if (env.WT_SESSION || env.KITTY_WINDOW_ID || env.WEZTERM_EXECUTABLE) return true;
  if (env.TERM === 'xterm-kitty' || env.TERM === 'foot' || env.TERM === 'alacritty' || env.TERM === 'xterm-ghostty')
    return true;
  // VTE (GNOME Terminal, Tilix…) from 0.50.
  const vte = Number(env.VTE_VERSION);
  return Number.isFinite(vte) && vte >= 5000;
}
