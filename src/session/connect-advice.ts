// What the cockpit says about a target it could not connect to: per kind of failure (src/remote's
// ConnectFailure kind, never the words of its message), what happened and what the person at the
// cockpit can do about it, and whether retrying can help. The transport's messages are written for
// the headless commands (e.g. "--accept-new-host-key", which the cockpit has no use for: it asks);
// here the advice is the cockpit's. The facts a person needs (host:port, the key's fingerprint,
// the known_hosts line, the key file) come from the failure's own facts, set where it failed, so a
// reworded message loses none of them; a failure without facts (an older error object, an error
// the transport did not name) is described by the target's name and its message kept as detail.
// Pure: no ssh2, no I/O.
import {
  ConnectFailure,
  connectFactsOf,
  isRetryable,
  scrubbedFacts,
  type ConnectFacts,
  type ConnectFailureKind,
} from '../remote/connect-failure.js';
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
  /** The failure's facts (secrets scrubbed); `{}` when it carried none: then `what` names only the
   *  target and `detail` is the one place the specifics are. */
  facts: ConnectFacts;
}

/** `host:port` when both are known. */
const addressOf = (f: ConnectFacts): string | undefined =>
  f.host !== undefined && f.port !== undefined ? `${f.host}:${f.port}` : undefined;

/** The name known_hosts records the key under, as OpenSSH looks it up: HostKeyAlias (at port 22,
 *  as OpenSSH uses it), else the address; `[host]:port` off port 22 (what `ssh-keygen -R` takes). */
function keyNameOf(f: ConnectFacts): { shown: string; token: string } | undefined {
  const host = f.hostKeyAlias ?? f.host;
  const port = f.hostKeyAlias !== undefined ? 22 : f.port;
  if (host === undefined || port === undefined) return undefined;
  return { shown: `${host}:${port}`, token: port === 22 ? host : `[${host}]:${port}` };
}

/** The cockpit's words for one failed connection attempt. */
export function connectProblem(target: string, err: unknown): ConnectProblem {
  const detail = scrubSecrets(err instanceof Error ? err.message : String(err));
  const kind = err instanceof ConnectFailure ? err.kind : 'unknown';
  const facts = scrubbedFacts(connectFactsOf(err));
  const address = addressOf(facts);
  // The ssh host as written (an alias, user@host) beside the address it resolved to: which of
  // the two is wrong is the first question when a host cannot be reached. Through a jump host,
  // the hop that could not reach it is the other thing to check.
  // A target written as the address itself (`user@10.0.0.7:2222`) is said once, as written.
  const written = facts.alias?.replace(/^[^@]*@/, '');
  const named =
    address === undefined
      ? target
      : !written
        ? address
        : written !== address && written !== facts.host
          ? `${facts.alias} at ${address}`
          : facts.alias!.slice(0, facts.alias!.length - written.length) + address;
  const host = facts.jumpHost ? `${named} through ${facts.jumpHost}` : named;
  const keyName = keyNameOf(facts);
  const keyOf = keyName?.shown ?? target;
  const who = address === undefined ? target : facts.user ? `${facts.user}@${address}` : address;
  const fp = facts.fingerprint;
  const keyFile = facts.keyFile;
  const retry = kind === 'unknown' || isRetryable(kind);
  const p = (what: string, todo: string, retryOnceFixed?: string): ConnectProblem => ({
    target,
    kind,
    what,
    todo,
    retry,
    ...(retryOnceFixed && !retry ? { retryOnceFixed } : {}),
    detail,
    facts,
  });
  const DONE = 'once that is done';
  switch (kind) {
    case 'unreachable':
      return p(
        `cannot reach ${host}${facts.errno ? ` (${facts.errno})` : ''}`,
        `check that the host is up, the host name and port, your VPN, and any ProxyJump in the ssh config`,
      );
    case 'timeout':
      return p(
        `${host} did not answer the SSH handshake in time`,
        `check that the host is up and your VPN (ConnectTimeout in the ssh config sets the wait)`,
      );
    case 'closed':
      return p(
        `${host} closed the connection during the handshake`,
        `the server may be busy (sshd MaxStartups) or restarting`,
      );
    case 'handshake-failed':
      return p(
        `the SSH handshake with ${host} failed`,
        `no common algorithm or a protocol error: compare the server's sshd with the ssh config (see details)`,
      );
    case 'host-key-unknown':
      return p(
        `host key of ${keyOf} is not known${fp ? `: ${fp}` : ''}`,
        "check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh",
        'once it is in known_hosts',
      );
    case 'host-key-mismatch': {
      const line =
        facts.knownHostsFile && facts.knownHostsLine ? `${facts.knownHostsFile}:${facts.knownHostsLine}` : undefined;
      const fix =
        keyName && facts.knownHostsFile ? `ssh-keygen -R '${keyName.token}' -f ${facts.knownHostsFile}` : undefined;
      return p(
        `host key of ${keyOf} does NOT match known_hosts${line ? ` (${line})` : ''}${fp ? `: the server offered ${fp}` : ''}`,
        `this may be an attack: ask the host's administrator; only if it was really re-keyed, ${fix ?? 'remove the old known_hosts line (ssh-keygen -R)'} and accept the new key`,
        DONE,
      );
    }
    case 'host-key-revoked': {
      const line =
        facts.knownHostsFile && facts.knownHostsLine ? ` (${facts.knownHostsFile}:${facts.knownHostsLine})` : '';
      return p(
        `host key of ${keyOf} is marked @revoked in known_hosts${line}${fp ? `: ${fp}` : ''}`,
        "do not connect: ask the host's administrator for the current key",
      );
    }
    case 'auth-failed':
      return p(
        `${who} refused the login (no key or agent identity was accepted)`,
        'check User and IdentityFile in the ssh config, or load your key with ssh-add',
        DONE,
      );
    case 'key-encrypted':
      return p(
        `${keyFile ? `the key ${keyFile}` : 'the only usable key'} is encrypted and no passphrase was given (${who})`,
        `a passphrase is needed: load the key into ssh-agent (ssh-add${keyFile ? ` ${keyFile}` : ''}), or type it when awrl-tui starts`,
        'once the key is in ssh-agent',
      );
    case 'wrong-passphrase':
      return p(
        `wrong passphrase for ${keyFile ?? 'the key'}`,
        `type the right one when awrl-tui starts, or load the key into ssh-agent (ssh-add${keyFile ? ` ${keyFile}` : ''})`,
        'once the key is in ssh-agent',
      );
    case 'login-needs-person':
      return p(
        `${host} needs you to log in again (a second factor: "${facts.loginPrompt ?? 'keyboard-interactive'}")`,
        "press r to type it here (the server's prompt opens as a dialog, answered once), or log in once through an OpenSSH ControlMaster (ControlMaster auto, ControlPath in ~/.ssh/config)",
        "and asks the server's prompt here",
      );
    case 'ssh-settings':
      return p(`the ssh settings for ${target} cannot be used`, 'fix the target or the ssh config (see details)', DONE);
    case 'unknown':
      return p(`cannot connect to ${target}`, 'see details; retrying may help');
  }
}

/** One line, for stderr and the one-line error when no target could be reached. */
export function connectProblemText(p: ConnectProblem): string {
  // The advice stands for the transport's words when it holds the facts; the message is kept when
  // the advice needs it (an unknown error, bad settings, a failed handshake: its reason) or when
  // the failure carried no facts (the advice then names only the target).
  const noFacts = Object.keys(p.facts ?? {}).length === 0;
  const needsDetail = noFacts || p.kind === 'unknown' || p.kind === 'ssh-settings' || p.kind === 'handshake-failed';
  const todo = p.todo.replace(/ \(see details\)/, '').replace(/^see details; /, '');
  return `${p.target}: ${p.what}${needsDetail ? ` (${p.detail})` : ''}; ${todo}`;
}
