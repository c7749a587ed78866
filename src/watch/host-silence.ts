// A target that sends nothing at all (a dead path, a suspended VPN, a frozen host) looks connected
// until ssh keepalive gives up, up to a minute later (ServerAliveInterval 15 s × 3). Meanwhile
// nothing is known about the trainer: no byte of its log, no answer to the state poll. The watch
// asks this file two things: until when the target is known to have answered (the rules are judged
// up to there, never on time nobody saw), and whether it has been silent for longer than its
// answers ever take (then it says "no data from HOST for N s" and the rules' clock stops).
import type { Transport } from '../remote/transport.js';

/** Longer than keepalive takes to notice a dead link (ServerAliveInterval 15 s × count 3, plus a
 *  command's own wait): a last answer older than this is not that link's (another clock, a test's). */
const MAX_UNNOTICED_MS = 5 * 60_000;

/** How much longer than the state poll's interval an answer may take before the target counts as
 *  silent: a poll's own round trip on a loaded head, with room to spare. */
export const NO_DATA_MARGIN_MS = 8_000;

/** When the target last answered, on `now`'s clock (a command's output or exit, a follower's
 *  bytes), or null when that is not known: a transport that does not tell (local), none yet, or
 *  a time that cannot be this link's (after `now`, or older than keepalive could leave unnoticed). */
export function lastAnswerAt(transport: Transport, now: number): number | null {
  const heard = transport.lastHeardAt;
  if (heard === undefined || heard === null || heard > now || now - heard > MAX_UNNOTICED_MS) return null;
  return heard;
}

export interface HostSilenceOptions {
  transport: Transport;
  clock: () => number;
  /** How long without any answer counts as silence (the state poll's interval plus a margin). */
  silentAfterMs: () => number;
  /** Nothing came since `since` (our clock) for longer than answers take, while connected. */
  onSilent(since: number): void;
  /** The target answered again after a silence that started at `since`. */
  onAnswering(since: number): void;
  /** How often the last answer is looked at (default 1 s). */
  checkMs?: number;
}

/** Looks at the transport's last answer every second while connected (no traffic of its own: the
 *  state poll and the follower are what the target answers). A lost connection is the
 *  connection's own story: silence is only told while the transport says `ready`. */
export class HostSilence {
  private silentSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: HostSilenceOptions) {}

  /** When the current silence started (null: the target answers). */
  get since(): number | null {
    return this.silentSince;
  }

  start(): this {
    this.timer = setInterval(() => this.check(), this.o.checkMs ?? 1000);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The connection was lost or came back: a silence in progress is over (told by the connection). */
  forget(): void {
    this.silentSince = null;
  }

  check(): void {
    if (this.o.transport.state.state !== 'ready') return;
    const now = this.o.clock();
    const heard = lastAnswerAt(this.o.transport, now);
    if (heard === null) return;
    const since = this.silentSince;
    if (since === null) {
      if (now - heard <= this.o.silentAfterMs()) return;
      this.silentSince = heard;
      this.o.onSilent(heard);
    } else if (heard > since) {
      this.silentSince = null;
      this.o.onAnswering(since);
    }
  }
}
