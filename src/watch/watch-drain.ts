// The end of a run as the watch reads it: wait until everything the log holds was read (the
// trainer's last words, a crash's traceback, are the last bytes it writes), and, when it failed,
// the log's last lines (a run that dies at once leaves no trainer record to say why).
import type { FollowProblem, Transport } from '../remote/transport.js';
import { FAILURE_TAIL_BYTES, lastLogLines } from '../runs/log-tail.js';
import type { LogReadEnd } from './watch-output.js';

export interface DrainOptions {
  transport: Transport;
  logPath: string;
  /** Bytes read so far (the follower's). */
  offset(): number;
  problem(): FollowProblem | null;
  /** Longest time without progress while connected. The limit is on time WITHOUT progress, not on
   *  the whole drain: a big backlog is read, and a drop during the drain (the end of a run is when a
   *  laptop sleeps) waits for the reconnect instead of cutting the tail off. */
  timeoutMs: number;
  /** Stop waiting (closed, or the run resumed). */
  stop(): boolean;
}

/** Resolves once reading reached the log's size ('read'), the log is gone ('missing'), or no
 *  progress came for `timeoutMs` while connected / the connection failed ('unreadable' while a
 *  follow problem stands, else 'incomplete'). `size`: the log's last size seen. */
export async function drainLog(o: DrainOptions): Promise<{ readEnd: LogReadEnd; size: number | null }> {
  let lastProgress = Date.now();
  let last = -1;
  let size: number | null = null;
  const gaveUp = () => ({ readEnd: (o.problem() ? 'unreadable' : 'incomplete') as LogReadEnd, size });
  for (;;) {
    if (o.stop()) return gaveUp();
    const st = o.transport.state.state;
    if (st === 'failed' || st === 'closed') return gaveUp();
    // undefined: the stat failed (the connection dropped under it: the transport reconnects).
    const s = await o.transport.stat(o.logPath).then(
      (x) => (x ? x.size : null),
      () => undefined,
    );
    if (s === null) return { readEnd: 'missing', size: null };
    if (s !== undefined) size = s;
    if (s !== undefined && o.offset() >= s) return { readEnd: 'read', size };
    const now = Date.now();
    if (o.offset() !== last || o.transport.state.state !== 'ready') {
      last = o.offset();
      lastProgress = now;
    } else if (now - lastProgress > o.timeoutMs) return gaveUp();
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The last lines of the log (at most 10, from its last 8 KiB), [] when they cannot be read. */
export async function failureLines(transport: Transport, logPath: string, size: number): Promise<string[]> {
  const from = Math.max(0, size - FAILURE_TAIL_BYTES);
  if (size <= 0) return [];
  try {
    const bytes = await transport.readFile(logPath, { offset: from, length: size - from });
    return lastLogLines(bytes, undefined, from > 0);
  } catch {
    return [];
  }
}
