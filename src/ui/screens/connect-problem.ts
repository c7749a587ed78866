// A target the cockpit could not connect to, as the Runs screen shows it under the target's name:
// what happened (red), what to do (wrapped, never cut: it is the point of the row), and the
// transport's own words where the advice needs them (a failed handshake's reason, bad settings).
import { wrap } from '../format.js';
import type { Line } from '../lines.js';
import type { ConnectProblem } from '../../session/types.js';

const INDENT = '    ';

/** The target's own row, `NAME  not connected: WHAT`, wrapped to `width` (the caller adds nothing
 *  after it). Never cut: WHAT ends with the host:port and the error kind, the facts that tell a refused
 *  port from a name that does not resolve; continuation lines are indented like the rows below. */
export function connectProblemHead(p: ConnectProblem, width: number): Line[] {
  const lead = `${p.target}  `;
  const text = `not connected: ${p.what}`.split(/\s+/).filter(Boolean).join(' ');
  const room = Math.max(20, width - INDENT.length);
  // The first line has what the name leaves; a name too long for any of it puts WHAT below.
  const firstRoom = width - [...lead].length;
  const first = firstRoom >= 20 ? (wrap(text, firstRoom)[0] ?? '') : '';
  const rest = text.slice(first.length).trimStart();
  const out: Line[] = [[{ t: p.target, bold: true, c: 'accent' }, { t: '  ' }, { t: first, c: 'bad', bold: true }]];
  for (const t of rest ? wrap(rest, room) : []) out.push([{ t: INDENT }, { t, c: 'bad', bold: true }]);
  return out;
}

/** The rows below it: what to do, then the details when the advice refers to them. */
export function connectProblemRows(p: ConnectProblem, width: number): Line[] {
  const room = Math.max(20, width - INDENT.length);
  const out: Line[] = wrap(`what to do: ${p.todo}`, room).map((t) => [{ t: INDENT + t }]);
  const when = p.retry ? '' : p.retryOnceFixed ? ` ${p.retryOnceFixed}` : null;
  if (when !== null) out.push([{ t: INDENT }, { t: 'r', bold: true, c: 'accent' }, { t: ` connects again${when}` }]);
  // A failure without facts (host:port, fingerprint, key file) has its specifics only in its words.
  if (
    p.kind === 'handshake-failed' ||
    p.kind === 'ssh-settings' ||
    p.kind === 'unknown' ||
    Object.keys(p.facts).length === 0
  ) {
    out.push(...wrap(`details: ${p.detail}`, room, 3).map((t): Line => [{ t: INDENT + t, c: 'dim' }]));
  }
  return out;
}
