// The lines `follow` prints about the watching itself: the connection lost and restored, and the
// run's end state (with --json the last line on stdout: a script reads the run's fate there).
import type { RunSummary } from '../runs/list.js';
import type { WatchOutput } from '../watch/watch-output.js';

type ConnectionOutput = Extract<WatchOutput, { type: 'connection' }>;

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/** `connection lost to T at ISO (why); reconnecting …` / `connection restored to T after N s …`. */
export function connectionLine(c: ConnectionOutput, target: string, now: number = Date.now()): string {
  const at = new Date(c.since).toISOString();
  if (c.state === 'silent')
    return (
      `no data from ${target} for ${seconds(c.silentMs)} (nothing since ${at}), although connected: ` +
      'nothing is known about the run meanwhile, and this time is not counted as a stall'
    );
  if (c.state === 'answering')
    return `${target} answers again after ${seconds(c.silentMs)} without data; reading the log from where it stopped`;
  if (c.state === 'lost') {
    const why = c.reason ? ` (${c.reason})` : '';
    return (
      `connection lost to ${target} at ${at}${why}; reconnecting. The run goes on; ` +
      'until the log is read again, its silence is not counted as a stall'
    );
  }
  const after = seconds(now - c.since);
  return `connection restored to ${target} after ${after} (lost at ${at}); reading the log from where it stopped`;
}

/** `{"type":"connection","state":"lost"|"restored"|"silent"|"answering","target":…,"since":ISO
 *  [,"reason"][,"silentS"]}`: `silent`/`answering`: connected, but nothing came for `silentS`. */
export function connectionJsonLine(c: ConnectionOutput, target: string): string {
  return JSON.stringify({
    type: 'connection',
    state: c.state,
    target,
    since: new Date(c.since).toISOString(),
    ...('reason' in c && c.reason ? { reason: c.reason } : {}),
    ...('silentMs' in c ? { silentS: Math.round(c.silentMs / 1000) } : {}),
  });
}

/** What `follow` says when the log was truncated, replaced (renamed or rotated: a new file under
 *  its name) or appeared: what is read from here, and what cannot be seen any more. */
export function logResetLine(reason: string, path: string): string {
  if (reason === 'replaced')
    return (
      `log      ${path} was replaced by a new file (renamed or rotated): reading the new file from its first byte. ` +
      'A trainer that still writes to the old (renamed) file is not seen here; its steps do not come, and ' +
      "the new file's silence is not counted as a stall until it holds a record"
    );
  if (reason === 'truncated')
    return (
      `log      ${path} was truncated: reading it again from its first byte (steps it repeats are shown again; ` +
      'its silence is not counted as a stall until it holds a record)'
    );
  return `log      ${path} appeared: reading it from its first byte`;
}

/** `{"type":"log-reset","reason":"replaced"|"truncated"|"appeared","path":…}`. */
export function logResetJsonLine(reason: string, path: string): string {
  return JSON.stringify({ type: 'log-reset', reason, path });
}

/** `{"type":"state","state":…,"exit":N|null,"detail":…[,"lastLines":[…]]}`: the run's end. */
export function stateJsonLine(s: RunSummary, lastLines: readonly string[]): string {
  return JSON.stringify({
    type: 'state',
    runId: s.runId,
    state: s.state,
    exit: s.exitCode ?? null,
    detail: s.detail,
    ...(lastLines.length ? { lastLines } : {}),
  });
}
