// What the cockpit says about a target it could not connect to: per kind of failure (src/remote's
// ConnectFailure kind, never the words of its message), what happened and what the person at the
// cockpit can do about it, and whether retrying can help. The transport's messages are written for
// the headless commands (e.g. "--accept-new-host-key", which the cockpit has no use for: it asks);
// here the advice is the cockpit's. The facts a person needs (host:port, the key's fingerprint,
// the known_hosts line, the key file) are taken from the message where it names them, else left out.
// Pure: no ssh2, no I/O.
import { ConnectFailure, isRetryable, type ConnectFailureKind } from '../remote/connect-failure.js';
import { scrubSecrets } from '../remote/follow-status.js';

export interface ConnectProblem {
  /** The target's name (profile, or the host as given). */
  target: string;
  /** The transport's kind; 'unknown' for an error it did not name (treated as unreachable). */
  kind: ConnectFailureKind | 'unknown';
  /** What happened, one line. */
  what: string;
  /** What to do about it (the screen adds how to retry when `retry`). */
  todo: string;
  /** Retrying may help by itself (the host or the network may come back). */
  retry: boolean;
  /** Else, when a retry from the cockpit (no prompts) works: once the person has done what `todo`
   *  says outside it (a key in ssh-agent or known_hosts, a fixed ssh config). Absent: never
   *  (a revoked host key). */
  retryOnceFixed?: string;
  /** The transport's own message (secrets scrubbed), for the details the advice leaves out. */
  detail: string;
}

/** The first group of `re` in `text`, or undefined. */
const find = (re: RegExp, text: string): string | undefined => re.exec(text)?.[1];

/** The cockpit's words for one failed connection attempt. */
export function connectProblem(target: string, err: unknown): ConnectProblem {
  const detail = scrubSecrets(err instanceof Error ? err.message : String(err));
  const kind = err instanceof ConnectFailure ? err.kind : 'unknown';
  // `at HOST:PORT` (unreachable, timeout, closed), `(HOST:PORT)` (host keys), `to USER@HOST:PORT` (auth).
  const where = find(/ at (\S+:\d+)\b/, detail) ?? find(/\((\S+:\d+)\)/, detail) ?? find(/ to (\S+:\d+)\b/, detail) ?? target;
  // The ssh host as written (an alias, user@host) beside the address it resolved to: which of
  // the two is wrong is the first question when a host cannot be reached.
  const sshName = find(/(?:reach|to) (\S+) at \S+:\d+/, detail);
  const host = sshName && sshName !== where ? `${sshName} at ${where}` : where;
  const fp = find(/(SHA256:[A-Za-z0-9+/=]+)/, detail);
  const keyFile = find(/(\S+) is encrypted/, detail) ?? find(/wrong passphrase for (\S+)$/, detail);
  const errno = find(/\((E[A-Z]+)\)/, detail);
  const retry = kind === 'unknown' || isRetryable(kind);
  const p = (what: string, todo: string, retryOnceFixed?: string): ConnectProblem => ({ target, kind, what, todo, retry, ...(retryOnceFixed && !retry ? { retryOnceFixed } : {}), detail });
  const DONE = 'once that is done';
  switch (kind) {
    case 'unreachable':
      return p(`cannot reach ${host}${errno ? ` (${errno})` : ''}`, `check that the host is up, the host name and port, your VPN, and any ProxyJump in the ssh config`);
    case 'timeout':
      return p(`${host} did not answer the SSH handshake in time`, `check that the host is up and your VPN (ConnectTimeout in the ssh config sets the wait)`);
    case 'closed':
      return p(`${host} closed the connection during the handshake`, `the server may be busy (sshd MaxStartups) or restarting`);
    case 'handshake-failed':
      return p(`the SSH handshake with ${host} failed`, `no common algorithm or a protocol error: compare the server's sshd with the ssh config (see details)`);
    case 'host-key-unknown':
      return p(
        `host key of ${where} is not known${fp ? `: ${fp}` : ''}`,
        "check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh",
        'once it is in known_hosts',
      );
    case 'host-key-mismatch': {
      const line = find(/(\S+:\d+) says/, detail);
      const fix = find(/\((ssh-keygen -R [^)]*)\)/, detail);
      return p(
        `host key of ${where} does NOT match known_hosts${line ? ` (${line})` : ''}${fp ? `: the server offered ${fp}` : ''}`,
        `this may be an attack: ask the host's administrator; only if it was really re-keyed, ${fix ?? 'remove the old known_hosts line (ssh-keygen -R)'} and accept the new key`,
        DONE,
      );
    }
    case 'host-key-revoked':
      return p(`host key of ${where} is marked @revoked in known_hosts${fp ? `: ${fp}` : ''}`, "do not connect: ask the host's administrator for the current key");
    case 'auth-failed':
      return p(`${where} refused the login (no key or agent identity was accepted)`, 'check User and IdentityFile in the ssh config, or load your key with ssh-add', DONE);
    case 'key-encrypted':
      return p(
        `${keyFile ? `the key ${keyFile}` : 'the only usable key'} is encrypted and no passphrase was given (${where})`,
        `a passphrase is needed: load the key into ssh-agent (ssh-add${keyFile ? ` ${keyFile}` : ''}), or type it when awrl-tui starts`,
        'once the key is in ssh-agent',
      );
    case 'wrong-passphrase':
      return p(`wrong passphrase for ${keyFile ?? 'the key'}`, `type the right one when awrl-tui starts, or load the key into ssh-agent (ssh-add${keyFile ? ` ${keyFile}` : ''})`, 'once the key is in ssh-agent');
    case 'ssh-settings':
      return p(`the ssh settings for ${target} cannot be used`, 'fix the target or the ssh config (see details)', DONE);
    case 'unknown':
      return p(`cannot connect to ${target}`, 'see details; retrying may help');
  }
}

/** One line, for stderr and the one-line error when no target could be reached. */
export function connectProblemText(p: ConnectProblem): string {
  // The advice stands for the transport's words when it holds the facts; the message is kept when
  // the advice needs it (an unknown error, bad settings, a failed handshake: its reason).
  const needsDetail = p.kind === 'unknown' || p.kind === 'ssh-settings' || p.kind === 'handshake-failed';
  const todo = p.todo.replace(/ \(see details\)/, '').replace(/^see details; /, '');
  return `${p.target}: ${p.what}${needsDetail ? ` (${p.detail})` : ''}; ${todo}`;
}
