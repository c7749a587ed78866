// Why a connection attempt failed, named where it fails (ssh-connect.ts, ssh-config.ts), so that
// callers branch on a kind and never on the words of a message. Kept free of ssh2 so that commands
// which only parse can check for it without loading the ssh client.

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
  'ssh-settings', // not an ssh target (`-x`, a space), settings ssh -G refuses, an unusable known_hosts
] as const;
export type ConnectFailureKind = (typeof CONNECT_FAILURE_KINDS)[number];

const RETRYABLE: ReadonlySet<ConnectFailureKind> = new Set(['unreachable', 'timeout', 'closed', 'handshake-failed']);

/** Is a failure of this kind worth another attempt? */
export const isRetryable = (kind: ConnectFailureKind): boolean => RETRYABLE.has(kind);

/** A failed connection attempt, with what kind of failure it was. */
export class ConnectFailure extends Error {
  override name = 'ConnectFailure';
  /** Retrying cannot fix it (host key, login, passphrase, target): the transport gives up. */
  readonly fatal: boolean;
  constructor(
    readonly kind: ConnectFailureKind,
    message: string,
  ) {
    super(message);
    this.fatal = !isRetryable(kind);
  }
}
