// The watch's part that tells the connection's story: lost (the time since the target last
// answered is unobserved, not trainer silence) and restored; and, connected, a target that sends
// nothing for longer than the state poll takes (host-silence.ts: "no data from HOST for N s"),
// then answers again. `follow` (whenEnded 'stop') ends when the connection fails or is closed.
import type { ConnectionState } from '../remote/transport.js';
import { HostSilence, NO_DATA_MARGIN_MS, lastAnswerAt } from './host-silence.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class ConnectionWatch implements WatchPart {
  private readonly hostSilence: HostSilence;
  private offState: (() => void) | null = null;
  private lostAt: number | null = null;

  /** `pollIntervalMs`: the state poll's interval now (the target answers at least that often). */
  constructor(
    private readonly core: WatchCore,
    pollIntervalMs: () => number,
  ) {
    this.hostSilence = new HostSilence({
      transport: core.o.transport,
      clock: core.clock,
      silentAfterMs: () => pollIntervalMs() + (core.o.noDataMarginMs ?? NO_DATA_MARGIN_MS),
      onSilent: (since) => this.onHostSilence(since),
      onAnswering: (since) => this.onHostSilence(null, since),
    });
  }

  /** Since when the target has sent nothing while connected (null: it answers). */
  get silentSince(): number | null {
    return this.hostSilence.since;
  }

  start(): void {
    this.offState = this.core.o.transport.onState((s) => this.onConnection(s));
    this.hostSilence.start();
  }

  close(): void {
    this.offState?.();
    this.hostSilence.stop();
  }

  private onConnection(s: ConnectionState): void {
    const core = this.core;
    if (core.closed) return;
    const ready = s.state === 'ready';
    const was = core.life.connected;
    const now = core.clock();
    // The connection's own story from here: a silence it ends is told as the loss (or is over).
    const silentSince = this.hostSilence.since;
    this.hostSilence.forget();
    if (ready) core.dispatch({ type: 'answering', answering: true });
    core.dispatch({ type: 'connection', ready }, ready ? undefined : (silentSince ?? this.lastAlive(now)));
    if (was && !ready && this.lostAt === null) {
      this.lostAt = now;
      const reason = s.state === 'reconnecting' ? s.lastError : s.state === 'failed' ? s.reason : s.state;
      core.emit({ type: 'connection', state: 'lost', since: now, ...(reason ? { reason } : {}) });
      // The rules look at once: a stall that grew while keepalive had not yet noticed the dead
      // link (its time is unobserved now) is cleared, not left standing until the next tick.
      core.tick();
    } else if (ready && this.lostAt !== null) {
      const since = this.lostAt;
      this.lostAt = null;
      // Nothing may come: the log is measured once it is quiet (part-log-silence.ts hears this).
      core.emit({ type: 'connection', state: 'restored', since });
    }
    if ((s.state === 'failed' || s.state === 'closed') && core.o.whenEnded === 'stop') {
      core.finish({ kind: 'disconnected', reason: s.state === 'failed' ? s.reason : 'the connection was closed' });
    }
  }

  /** A dead link is declared lost when keepalive gives up, up to a minute after the target last
   *  answered: the log was unreadable since then, not trainer silence. The transport's last answer
   *  (the state poll's, every few seconds; bytes) when it tells one, on our clock, else now. */
  private lastAlive(now: number): number {
    return lastAnswerAt(this.core.o.transport, now) ?? now;
  }

  /** The target went silent while connected (`since`), or answers again (null; `was`: since when
   *  it had been silent). Nothing is known meanwhile: the rules' clock stops where it last answered. */
  private onHostSilence(since: number | null, was?: number): void {
    const core = this.core;
    if (core.closed) return;
    const now = core.clock();
    if (since !== null) {
      core.dispatch({ type: 'answering', answering: false }, since);
      core.emit({ type: 'connection', state: 'silent', since, silentMs: now - since });
      core.tick();
      return;
    }
    core.dispatch({ type: 'answering', answering: true });
    // What the trainer did meanwhile comes as bytes; if none, its mtime says whether it was silent.
    core.emit({ type: 'connection', state: 'answering', since: was ?? now, silentMs: now - (was ?? now) });
  }
}
