// The sentinel's notifications: its watch's outputs through src/notify's one notifier (the same
// policy, bodies, retries and redaction as every other watch), its delivery failures kept for
// sentinel.json (attached watches show them as their own) and its log.
import { notifyFromWatch, parseChannels, redactUrl, type NotifiedWatch } from '../notify/index.js';
import type { SentinelFailure } from '../runs/sentinel-status.js';
import type { SentinelInput } from './sentinel-input.js';

export interface SentinelSender {
  readonly channels: number;
  /** The channels with their secret parts replaced (what sentinel.json and `runs` show). */
  readonly redacted: string[];
  readonly sent: number;
  readonly failures: SentinelFailure[];
  /** Resolves once everything handed over was delivered or given up, or after `ms`. */
  flush(ms: number): Promise<void>;
}

/** Failures kept for sentinel.json (the latest ones). */
const KEPT_FAILURES = 5;

export function makeSender(input: SentinelInput, watch: NotifiedWatch, log: (text: string) => void): SentinelSender {
  const { channels, errors } = parseChannels(input.notify, input.bases);
  for (const e of errors) log(`notification channel ${e}: not used`);
  const failures: SentinelFailure[] = [];
  const notifier = notifyFromWatch(watch, {
    runId: input.runId,
    target: input.target.name,
    channels,
    // Started with the run: its end is news even if the run never got to run.
    announceEnd: true,
    onFailure: (f) => {
      log(`notify: ${f.event} not sent to ${f.channel}: ${f.reason}`);
      failures.push({ at: new Date().toISOString(), channel: f.channel, event: f.event, error: f.reason });
      failures.splice(0, Math.max(0, failures.length - KEPT_FAILURES));
    },
  });
  return {
    channels: channels.length,
    redacted: input.notify.map(redactUrl),
    get sent() {
      return notifier.sent;
    },
    failures,
    flush: async (ms) => {
      await notifier.finish(ms);
    },
  };
}
