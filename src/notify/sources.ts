// Where a watch's notification channels come from: `--notify URL` (repeatable), the target's
// `notify:` in targets.yaml, and AWRL_NOTIFY (URLs separated by spaces: tokens stay out of shell
// history and `ps`). All of them, each URL once. The URLs stay on this machine: nothing here is
// written to a file or put on a command line sent to the target.
import { basesFromEnv, parseChannels, type Channel } from './channel-url.js';

export interface NotifySources {
  flags?: readonly string[];
  profile?: readonly string[];
  env: Record<string, string | undefined>;
}

export function notifyUrls(s: NotifySources): string[] {
  const fromEnv = (s.env.AWRL_NOTIFY ?? '').split(/\s+/).filter(Boolean);
  return [...new Set([...(s.flags ?? []), ...(s.profile ?? []), ...fromEnv])];
}

/** The channels, or the lines saying which URL is not one (redacted) and where it came from. */
export function notifyChannels(s: NotifySources): { channels: Channel[]; errors: string[] } {
  const bases = basesFromEnv(s.env);
  const { channels, errors } = parseChannels(notifyUrls(s), bases);
  return { channels, errors: errors.map((e) => `notification channel ${e}`) };
}
