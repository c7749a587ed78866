// The headless commands' first connection: a failure becomes the CLI's one-line error with its exit
// code (2 when retrying cannot help: a refused host key or login; 4 when the host is unreachable)
// and a stable code for `--json` (host-key-unknown, host-key-mismatch, auth-failed, …).
import { connect, connectExit } from '../runs/cli-target.js';
import type { Target } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';
import { CliError, EXIT, type ErrorCode } from './errors.js';

/**
 * What kind of connection failure a message describes. The transport says fatal-or-not but not
 * which kind, so the kind is read from its messages (src/remote/ssh-connect.ts words them); an
 * unrecognised fatal one is `connect-failed`, never a wrong specific code.
 */
export function connectFailure(message: string, exitCode: number): { code: ErrorCode; hint: string } {
  if (exitCode !== EXIT.usage) {
    return { code: 'host-unreachable', hint: 'check that the host is up and the port right, then try again (retrying may help)' };
  }
  if (/host key of .* is unknown/.test(message)) {
    return { code: 'host-key-unknown', hint: "check the fingerprint with the host's administrator, then pass --accept-new-host-key" };
  }
  if (/host key of .* (does NOT match|is REVOKED)/.test(message)) {
    return { code: 'host-key-mismatch', hint: 'if the host was really re-keyed, remove the old known_hosts line (ssh-keygen -R) and connect again' };
  }
  if (/authentication to .* failed|wrong passphrase/.test(message)) {
    return { code: 'auth-failed', hint: 'check User and IdentityFile in your ssh config, or load your key with ssh-add' };
  }
  return { code: 'connect-failed', hint: 'retrying will not help: fix the ssh settings for this target' };
}

export async function connectOrExit(target: Target, opts: Parameters<typeof connect>[1]): Promise<Transport> {
  try {
    return await connect(target, opts);
  } catch (e) {
    const message = (e as Error).message;
    const exit = connectExit(e);
    throw new CliError(message, exit, connectFailure(message, exit));
  }
}
