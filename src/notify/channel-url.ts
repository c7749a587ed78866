// A notification channel named by a URL, in Apprise's conventions (so a user reuses what they have):
// `ntfy://[user:pass@]host[:port]/topic` (`ntfys://`: https; `ntfy://topic`: ntfy.sh), `json://host[:port]/path`
// (`jsons://`), `slack://TokenA/TokenB/TokenC`, `discord://WebhookID/WebhookToken`, and `exec:/path/to/program`
// (the event's JSON on its stdin). PURE: parsing and redaction; delivery is deliver.ts's.
// A URL's secret parts (a topic, a path, tokens, a password) are never printed: `redacted` is what
// every line, error and JSON record says instead (`ntfy://host/***`).

export type Channel =
  | { kind: 'ntfy'; url: string; auth?: string; redacted: string }
  | { kind: 'json'; url: string; auth?: string; redacted: string }
  | { kind: 'slack'; url: string; redacted: string }
  | { kind: 'discord'; url: string; redacted: string }
  | { kind: 'exec'; program: string; redacted: string };

/** Where Slack's and Discord's webhooks live; a test points them at its own receiver. */
export interface ChannelBases {
  slack: string;
  discord: string;
}

export const DEFAULT_BASES: ChannelBases = {
  slack: 'https://hooks.slack.com/services',
  discord: 'https://discord.com/api/webhooks',
};

/** The bases from the environment (`AWRL_NOTIFY_SLACK_BASE`, `AWRL_NOTIFY_DISCORD_BASE`), else the real ones. */
export function basesFromEnv(env: Record<string, string | undefined>): ChannelBases {
  const trim = (s: string) => s.replace(/\/+$/, '');
  return {
    slack: env.AWRL_NOTIFY_SLACK_BASE ? trim(env.AWRL_NOTIFY_SLACK_BASE) : DEFAULT_BASES.slack,
    discord: env.AWRL_NOTIFY_DISCORD_BASE ? trim(env.AWRL_NOTIFY_DISCORD_BASE) : DEFAULT_BASES.discord,
  };
}

const SCHEMES = 'ntfy://, ntfys://, json://, jsons://, slack://, discord:// or exec:/path';

/** What a channel URL shows: its scheme and host, the rest `***` (also for a URL that did not parse). */
export function redactUrl(url: string): string {
  if (url.startsWith('exec:')) return url;
  const m = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url);
  if (!m) return '***';
  const [, scheme, host] = m;
  if (scheme === 'slack' || scheme === 'discord') return `${scheme}://***`;
  // `ntfy://topic` has no host: the topic is the secret.
  if ((scheme === 'ntfy' || scheme === 'ntfys') && !url.slice(m[0].length).replace(/^\//, '')) return `${scheme}://***`;
  return `${scheme}://${host}/***`;
}

/** One URL → its channel, or why it is not one (a line that never repeats the URL's secret parts). */
export function parseChannel(url: string, bases: ChannelBases = DEFAULT_BASES): Channel | string {
  const redacted = redactUrl(url);
  if (url.startsWith('exec:')) {
    const program = url.slice(5);
    if (!program.startsWith('/'))
      return `${redacted}: exec: needs an absolute path to a program (exec:/path/to/notify-me)`;
    return { kind: 'exec', program, redacted };
  }
  const m = /^([a-z]+):\/\/(.*)$/i.exec(url);
  if (!m) return `${redacted}: not a notification URL (want ${SCHEMES})`;
  const scheme = m[1].toLowerCase();
  const rest = m[2];
  switch (scheme) {
    case 'ntfy':
    case 'ntfys': {
      const { userinfo, host, path } = splitAuthority(rest);
      const topic = path.replace(/^\/+|\/+$/g, '');
      // `ntfy://topic` (no host): the public server, over https as Apprise does.
      if (path === '' && host && !host.includes(':') && !host.includes('.'))
        return { kind: 'ntfy', url: `https://ntfy.sh/${encodeURIComponent(host)}`, redacted };
      if (!host || !topic || topic.includes('/')) return `${redacted}: want ${scheme}://host[:port]/topic`;
      const proto = scheme === 'ntfys' ? 'https' : 'http';
      return { kind: 'ntfy', url: `${proto}://${host}/${topic}`, ...auth(userinfo), redacted };
    }
    case 'json':
    case 'jsons': {
      const { userinfo, host, path } = splitAuthority(rest);
      if (!host) return `${redacted}: want ${scheme}://host[:port]/path`;
      const proto = scheme === 'jsons' ? 'https' : 'http';
      return { kind: 'json', url: `${proto}://${host}${path || '/'}`, ...auth(userinfo), redacted };
    }
    case 'slack': {
      const parts = rest.split('/').filter(Boolean);
      if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p)))
        return `${redacted}: want slack://TokenA/TokenB/TokenC (the three parts of the webhook's URL)`;
      return { kind: 'slack', url: `${bases.slack}/${parts.join('/')}`, redacted };
    }
    case 'discord': {
      const parts = rest.split('/').filter(Boolean);
      if (parts.length !== 2 || !/^\d+$/.test(parts[0]) || !/^[A-Za-z0-9_-]+$/.test(parts[1]))
        return `${redacted}: want discord://WebhookID/WebhookToken`;
      return { kind: 'discord', url: `${bases.discord}/${parts.join('/')}`, redacted };
    }
    default:
      return `${redacted}: unknown scheme '${scheme}' (want ${SCHEMES})`;
  }
}

function splitAuthority(rest: string): { userinfo: string | null; host: string; path: string } {
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  const at = authority.lastIndexOf('@');
  return {
    userinfo: at < 0 ? null : decodeURIComponent(authority.slice(0, at)),
    host: at < 0 ? authority : authority.slice(at + 1),
    path,
  };
}

/** `user:pass@` → HTTP basic auth (ntfy's access control, a receiver behind a password). */
function auth(userinfo: string | null): { auth?: string } {
  if (!userinfo) return {};
  return { auth: `Basic ${Buffer.from(userinfo).toString('base64')}` };
}

/** Every URL of a list parsed: the channels (each once), and a line per URL that is not one. */
export function parseChannels(
  urls: readonly string[],
  bases: ChannelBases = DEFAULT_BASES,
): { channels: Channel[]; errors: string[] } {
  const channels: Channel[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const u of urls) {
    if (seen.has(u)) continue;
    seen.add(u);
    const c = parseChannel(u, bases);
    if (typeof c === 'string') errors.push(c);
    else channels.push(c);
  }
  return { channels, errors };
}
