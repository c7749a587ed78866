// Why a connection attempt failed, named where it fails (ssh-connect.ts, ssh-config.ts), so that
// callers branch on a kind and never on the words of a message. Kept free of ssh2 so that commands
// which only parse can check for it without loading the ssh client.
import { scrubSecrets } from './follow-status.js';

export const CONNECT_FAILURE_KINDS = [
  // Retrying may help (the transport keeps reconnecting after these):
  'unreachable', // the TCP connection failed: refused, no route, DNS, a jump host that could not forward
  'timeout', // no SSH handshake within ConnectTimeout (a host that accepts but never answers)
  'closed', // the server closed the connection during the handshake (MaxStartups, a dying sshd)
  'handshake-failed', // the SSH handshake itself failed (no common algorithm, a protocol error)
  // Retrying cannot help (fatal: the transport stops at once):
  'host-key-unknown', // first contact, and nobody accepted the key (headless without --accept-new-host-key)
  'host-key-mismatch', // the key differs from the one known_hosts records
  'host-key-revoked', // known_hosts marks the key @revoked
  'auth-failed', // the server refused every key / the agent
  'key-encrypted', // the only usable key is encrypted and no passphrase could be asked (headless)
  'wrong-passphrase', // the passphrase typed does not decrypt the key
  'login-needs-person', // the server asks keyboard-interactive questions (a one-time code) and no one
  //                       can answer: headless without a terminal, or a reconnect (asked once only)
  'ssh-settings', // not an ssh target (`-x`, a space), settings ssh -G refuses, an unusable known_hosts
] as const;
export type ConnectFailureKind = (typeof CONNECT_FAILURE_KINDS)[number];

const RETRYABLE: ReadonlySet<ConnectFailureKind> = new Set(['unreachable', 'timeout', 'closed', 'handshake-failed']);

/** Is a failure of this kind worth another attempt? */
export const isRetryable = (kind: ConnectFailureKind): boolean => RETRYABLE.has(kind);

/**
 * What the failure site knew, as values: the cockpit's advice and the `--json` error line read
 * these, never the message's words (a reworded message must not lose a fingerprint). Each is set
 * only where it is known. Never a secret: no passphrase, no key material, no environment value.
 */
export interface ConnectFacts {
  /** The ssh host as written: an alias, `user@host[:port]`, or a ProxyJump hop as the chain names it. */
  alias?: string;
  /** The login user. */
  user?: string;
  /** The address dialled (HostName after the ssh config). */
  host?: string;
  port?: number;
  /** The ProxyJump hop (as written) that was to open the connection to `host:port`. */
  jumpHost?: string;
  /** The socket error's code (ECONNREFUSED, ENOTFOUND, ...). */
  errno?: string;
  /** HostKeyAlias: the name known_hosts records the key under instead of `host:port` (port 22). */
  hostKeyAlias?: string;
  /** The key the server offered, `SHA256:...` as `ssh-keygen -l` prints it. */
  fingerprint?: string;
  /** Mismatch, revoked: the file holding the line that decided; unknown: where the key would be added. */
  knownHostsFile?: string;
  /** 1-based line of knownHostsFile that decided (mismatch, revoked). */
  knownHostsLine?: number;
  /** The private key file that is encrypted or whose passphrase was wrong (its path only). */
  keyFile?: string;
  /** The ssh config file given with -F / sshConfigFile, when one was. */
  sshConfigFile?: string;
  /** What the server asked in keyboard-interactive (its prompts, as it worded them). */
  loginPrompt?: string;
}

/** The facts' names, in the order the `--json` error line prints them. */
export const CONNECT_FACT_KEYS = [
  'alias',
  'user',
  'host',
  'port',
  'jumpHost',
  'errno',
  'hostKeyAlias',
  'fingerprint',
  'knownHostsFile',
  'knownHostsLine',
  'keyFile',
  'sshConfigFile',
  'loginPrompt',
] as const satisfies readonly (keyof ConnectFacts)[];

/** A failed connection attempt, with what kind of failure it was and what was known about it. */
export class ConnectFailure extends Error {
  override name = 'ConnectFailure';
  /** Retrying cannot fix it (host key, login, passphrase, target): the transport gives up. */
  readonly fatal: boolean;
  /** What the failure site knew (empty for a failure made without facts). */
  readonly facts: Readonly<ConnectFacts>;
  constructor(
    readonly kind: ConnectFailureKind,
    message: string,
    facts: ConnectFacts = {},
  ) {
    super(message);
    this.fatal = !isRetryable(kind);
    this.facts = Object.freeze(definedOnly(facts));
  }
}

/** The facts without keys set to undefined (so `{...facts}` and JSON carry only what is known). */
function definedOnly(facts: ConnectFacts): ConnectFacts {
  const out: Record<string, unknown> = {};
  for (const k of CONNECT_FACT_KEYS) if (facts[k] !== undefined && facts[k] !== '') out[k] = facts[k];
  return out as ConnectFacts;
}

/** The facts with every text value scrubbed of secrets (an alias is whatever the person typed):
 *  for showing them (the cockpit's advice, the --json error line). */
export function scrubbedFacts(facts: ConnectFacts): ConnectFacts {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) out[k] = typeof v === 'string' ? scrubSecrets(v) : v;
  return out as ConnectFacts;
}

/**
 * The facts of a connection failure: a ConnectFailure's own, else those of the failure it wraps
 * (`cause`: src/runs' ConnectError keeps it). `{}` when none: an error from elsewhere, or an older
 * one made without facts.
 */
export const connectFactsOf = (err: unknown): ConnectFacts => factsOf(err, 0);

function factsOf(err: unknown, depth: number): ConnectFacts {
  if (err instanceof ConnectFailure) return { ...err.facts };
  if (!(err instanceof Error) || depth > 4) return {};
  return err.cause !== undefined ? factsOf(err.cause, depth + 1) : {};
}
