// A target the cockpit could not connect to, as the Runs screen shows it under the target's name:
// what happened (red), what to do (wrapped, never cut: it is the point of the row), and the
// transport's own words where the advice needs them (a failed handshake's reason, bad settings).
import { wrap } from '../format.js';
import type { Line } from '../lines.js';
import type { ConnectProblem } from '../session/types.js';

const INDENT = '    ';

/** The target's own row: `NAME  not connected: WHAT` (the caller adds nothing after it). */
export function connectProblemHead(p: ConnectProblem): Line {
  return [{ t: p.target, bold: true, c: 'accent' }, { t: '  ' }, { t: `not connected: ${p.what}`, c: 'bad', bold: true }];
}

/** The rows below it: what to do, then the details when the advice refers to them. */
export function connectProblemRows(p: ConnectProblem, width: number): Line[] {
  const room = Math.max(20, width - INDENT.length);
  const out: Line[] = wrap(`what to do: ${p.todo}`, room).map((t) => [{ t: INDENT + t }]);
  const when = p.retry ? '' : p.retryOnceFixed ? ` ${p.retryOnceFixed}` : null;
  if (when !== null) out.push([{ t: INDENT }, { t: 'r', bold: true, c: 'accent' }, { t: ` connects again${when}` }]);
  // A failure without facts (host:port, fingerprint, key file) has its specifics only in its words.
  if (p.kind === 'handshake-failed' || p.kind === 'ssh-settings' || p.kind === 'unknown' || Object.keys(p.facts).length === 0) {
    out.push(...wrap(`details: ${p.detail}`, room, 3).map((t): Line => [{ t: INDENT + t, c: 'dim' }]));
  }
  return out;
}
