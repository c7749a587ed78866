// The person's own terminal: errors, the run's end and blindness as a desktop notification (the
// sequence its terminal knows, through tmux when inside it, with a BEL), and the run's progress in
// the tab (OSC 9;4, red while an error alert stands). Written only when it changes.
import type { NotifyEvent } from './notify-event.js';
import { eventText } from './notify-event.js';
import { notificationBytes, progressOsc, terminalKind, throughTmux, type TerminalKind } from './terminal-seq.js';

export interface TerminalOut {
  write(s: string): void;
  env: Record<string, string | undefined>;
}

/** Which events ring the terminal: what needs the person, not every warning. */
export function ringsTerminal(e: NotifyEvent): boolean {
  if (e.event === 'alert') return e.severity === 'error';
  return e.event === 'run-end' || e.event === 'blind' || e.event === 'test';
}

/** iTerm2 before 3.6 and Apple's Terminal show any OSC 9 as a notification: a progress update
 *  there would pop up `4;1;37`. iTerm2 says itself in LC_TERMINAL (kept through ssh and tmux). */
function showsProgress(env: Record<string, string | undefined>): boolean {
  const p = env.TERM_PROGRAM;
  return env.LC_TERMINAL !== 'iTerm2' && p !== 'iTerm.app' && p !== 'Apple_Terminal';
}

export class TerminalNotifier {
  private readonly kind: TerminalKind;
  private readonly inTmux: boolean;
  private lastProgress = '';
  private readonly showsProgress: boolean;

  constructor(private readonly out: TerminalOut) {
    this.kind = terminalKind(out.env);
    this.inTmux = Boolean(out.env.TMUX);
    this.showsProgress = showsProgress(out.env);
  }

  event(e: NotifyEvent): void {
    if (!ringsTerminal(e)) return;
    const { title } = eventText(e);
    this.out.write(notificationBytes(this.kind, title, e.message.split('\n')[0] ?? '', this.inTmux));
  }

  /** The run's progress; `error`: an error alert stands (red). */
  progress(step: number, total: number, error: boolean): void {
    if (!this.showsProgress || !(total > 0)) return;
    const seq = progressOsc(error ? 2 : 1, (100 * step) / total);
    if (seq === this.lastProgress) return;
    this.lastProgress = seq;
    this.out.write(throughTmux(seq, this.inTmux));
  }

  /** The tab's progress taken away (watching is over). */
  clear(): void {
    if (!this.lastProgress) return;
    this.lastProgress = '';
    this.out.write(throughTmux(progressOsc(0, 0), this.inTmux));
  }
}
