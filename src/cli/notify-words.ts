// The notification words every watching command takes: `--notify URL` (repeatable), the target's
// `notify:` in targets.yaml, AWRL_NOTIFY, and `--no-terminal-notify`. A URL that is not a channel is
// bad input (exit 2, before anything is connected or started), said without its secret parts.
import type { ParsedCli } from '../runs/cli-args.js';
import { notifyChannels, type Channel } from '../notify/index.js';
import type { CockpitNotify } from '../session/run-notify.js';
import { CliError, EXIT } from './errors.js';

export const NOTIFY_LIST = '--notify';
export const NO_TERMINAL_NOTIFY = '--no-terminal-notify';

export interface CliNotify {
  channels: Channel[];
  /** The person's terminal is notified (unless `--no-terminal-notify`). */
  terminal: boolean;
}

export function cliNotify(
  p: Pick<ParsedCli, 'lists' | 'switches'>,
  profile: readonly string[] | undefined,
  env: Record<string, string | undefined> = process.env,
): CliNotify {
  const { channels, errors } = notifyChannels({ flags: p.lists[NOTIFY_LIST], profile, env });
  if (errors.length)
    throw new CliError(errors[0], EXIT.usage, {
      hint: 'give --notify ntfy://host/topic, json://host/path, slack://A/B/C, discord://ID/TOKEN or exec:/path',
    });
  return { channels, terminal: !p.switches.has(NO_TERMINAL_NOTIFY) };
}

/** The cockpit's (`awrl-tui`, `watch`): its terminal is the one Ink draws on; a target's own
 *  `notify:` is added by the session when its run is opened. */
export function cockpitNotify(p: Pick<ParsedCli, 'lists' | 'switches'>): CockpitNotify {
  const { channels, terminal } = cliNotify(p, undefined);
  return {
    channels,
    terminal: terminal ? { write: (s) => void process.stdout.write(s), env: process.env } : null,
  };
}
