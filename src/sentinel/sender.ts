// The sentinel's notifications: what its watch tells, handed to the channels it was given.
import type { SentinelFailure } from '../runs/sentinel-status.js';
import type { WatchOutput } from '../runs/watch-output.js';
import type { SentinelInput } from './sentinel-input.js';

export interface SentinelSender {
  readonly channels: number;
  /** The channels with their secret parts replaced (what sentinel.json and `runs` show). */
  readonly redacted: string[];
  readonly sent: number;
  readonly failures: SentinelFailure[];
  told(o: WatchOutput): void;
  /** Resolves once everything handed over was delivered or given up, or after `ms`. */
  flush(ms: number): Promise<void>;
}

export function makeSender(input: SentinelInput, _log: (text: string) => void): SentinelSender {
  return {
    channels: input.notify.length,
    redacted: input.notify.map(redactUrl),
    sent: 0,
    failures: [],
    told: () => undefined,
    flush: () => Promise.resolve(),
  };
}

/** `scheme://host/***`: a URL's path, user and query may hold tokens. */
function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/@?#]*@)?([^/?#]*)/i.exec(url);
  return m ? `${m[1]}${m[3]}/***` : '***';
}
