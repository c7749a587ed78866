// One subscriber of a watch's outputs for every way a run is watched (`follow`, `--launch --follow`,
// `watch`, the cockpit): the policy decides what reaches the person, the outbox sends it through
// the channels, the terminal shows errors and progress. It never holds the watch up: sending is
// queued, and a failure is told to `onFailure` (stderr, a JSON line, the cockpit's status line).
import type { WatchOutput } from '../watch/watch-output.js';
import type { Channel } from './channel-url.js';
import { NotifyPolicy, type NotifyPolicyOptions } from './notify-policy.js';
import { Outbox, type NotifyFailure, type OutboxOptions } from './outbox.js';
import { TerminalNotifier, type TerminalOut } from './terminal-notify.js';
import type { NotifyEvent } from './notify-event.js';

/** What the notifier needs of a watch (src/watch's RunWatch). */
export interface NotifiedWatch {
  on(listener: (o: WatchOutput) => void): () => void;
  readonly readingBacklog: boolean;
}

export interface NotifierOptions extends NotifyPolicyOptions {
  channels: readonly Channel[];
  /** The person's terminal (null: not a terminal, or turned off). */
  terminal?: TerminalOut | null;
  onFailure(f: NotifyFailure): void;
  delivery?: Omit<OutboxOptions, 'onFailure'>;
  /** While true for an event, the channels are not sent it (the run's sentinel on the target is the
   *  one sender, src/sentinel); the policy still sees everything, and the terminal is still told. */
  quiet?: (e: NotifyEvent) => boolean;
  /** The run's wandb page when known before its log says it; the log's banner (a wandb record
   *  of the watch) replaces it. */
  wandbUrl?: string;
  /** How often time-driven events (blind, a held refire) are looked for (default 5 s). */
  tickMs?: number;
  clock?: () => number;
}

export interface Notifier {
  /** What the policy sent so far (tests, the bench). */
  readonly sent: number;
  /** Waits up to `timeoutMs` for queued messages (the run's end) to go out, then stops. */
  finish(timeoutMs: number): Promise<boolean>;
  close(): void;
}

/** Subscribes to `watch`; nothing at all when there is no channel and no terminal. */
export function notifyFromWatch(watch: NotifiedWatch, o: NotifierOptions): Notifier {
  if (o.channels.length === 0 && !o.terminal) return { sent: 0, finish: () => Promise.resolve(true), close() {} };
  const clock = o.clock ?? Date.now;
  const policy = new NotifyPolicy(o);
  const outbox = new Outbox(o.channels, { ...o.delivery, onFailure: o.onFailure });
  const terminal = o.terminal ? new TerminalNotifier(o.terminal) : null;
  let sent = 0;
  // Every message carries the run's wandb page once the watch has read it (or it was given).
  let wandbUrl = o.wandbUrl;
  const send = (events: NotifyEvent[]) => {
    for (const raw of events) {
      const e = wandbUrl && raw.wandbUrl === undefined ? { ...raw, wandbUrl } : raw;
      terminal?.event(e);
      if (o.quiet?.(e)) continue;
      sent++;
      outbox.send(e);
    }
  };
  const off = watch.on((w) => {
    // A step is the hot path of a catch-up: only the terminal's progress reads it, nothing is sent.
    if (w.type === 'record') {
      if (w.record.type === 'wandb' && w.record.url) wandbUrl = w.record.url;
      if (policy.holdsHistory && !watch.readingBacklog) send(policy.historyRead(clock()));
      if (terminal && w.record.type === 'step' && !w.backfilled)
        terminal.progress(w.record.globalStep, w.record.totalSteps, policy.errorStanding);
      return;
    }
    if (w.type === 'lines' || w.type === 'history') return;
    send(policy.take(w, clock(), watch.readingBacklog));
  });
  const ticker = setInterval(() => send(policy.tick(clock(), watch.readingBacklog)), o.tickMs ?? 5000);
  ticker.unref();
  const stop = () => {
    off();
    clearInterval(ticker);
    terminal?.clear();
  };
  return {
    get sent() {
      return sent;
    },
    async finish(timeoutMs) {
      stop();
      return outbox.drain(timeoutMs);
    },
    close() {
      stop();
      outbox.close();
    },
  };
}
