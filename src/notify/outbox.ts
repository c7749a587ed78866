// The channels' queues: `send` returns at once (the watch never waits on a network); each channel
// sends its events in order, one at a time, at most one a second to a Slack hook (Slack's limit);
// a permanent failure is told to `onFailure` with the channel's redacted name, never its URL.
import type { Channel } from './channel-url.js';
import { deliver, type DeliveryOptions } from './deliver.js';
import type { NotifyEvent } from './notify-event.js';

export interface NotifyFailure {
  channel: string;
  event: NotifyEvent['event'];
  reason: string;
}

export interface OutboxOptions extends Omit<DeliveryOptions, 'signal'> {
  onFailure?(f: NotifyFailure): void;
  onSent?(channel: string, e: NotifyEvent): void;
}

/** Slack takes one message a second per hook; the others pace themselves with 429 + Retry-After. */
const MIN_INTERVAL_MS: Record<Channel['kind'], number> = { slack: 1000, discord: 0, ntfy: 0, json: 0, exec: 0 };

class ChannelQueue {
  private readonly queue: NotifyEvent[] = [];
  private running: Promise<void> | null = null;
  private lastSentAt = -Infinity;

  constructor(
    readonly channel: Channel,
    private readonly o: OutboxOptions,
    private readonly stop: AbortSignal,
  ) {}

  push(e: NotifyEvent): void {
    this.queue.push(e);
    this.running ??= this.run().finally(() => (this.running = null));
  }

  /** Resolves once what was queued so far went out (or failed). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    for (let e = this.queue.shift(); e; e = this.queue.shift()) {
      if (this.stop.aborted) {
        this.o.onFailure?.({
          channel: this.channel.redacted,
          event: e.event,
          reason: 'not sent: watching ended first',
        });
        continue;
      }
      const gap = this.lastSentAt + MIN_INTERVAL_MS[this.channel.kind] - Date.now();
      if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      const d = await deliver(this.channel, e, { ...this.o, signal: this.stop });
      this.lastSentAt = Date.now();
      if (d.ok) this.o.onSent?.(this.channel.redacted, e);
      else this.o.onFailure?.({ channel: this.channel.redacted, event: e.event, reason: d.reason });
    }
  }
}

export class Outbox {
  private readonly queues: ChannelQueue[];
  private readonly stop = new AbortController();

  constructor(channels: readonly Channel[], o: OutboxOptions = {}) {
    this.queues = channels.map((c) => new ChannelQueue(c, o, this.stop.signal));
  }

  get size(): number {
    return this.queues.length;
  }

  send(e: NotifyEvent): void {
    for (const q of this.queues) q.push(e);
  }

  /** Waits up to `timeoutMs` for what was sent to go out (the end of a command: its run-end message);
   *  then whatever is left is abandoned. Returns whether everything went out. */
  async drain(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      Promise.all(this.queues.map((q) => q.idle())).then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!done) this.stop.abort();
    return done;
  }

  close(): void {
    this.stop.abort();
  }
}
