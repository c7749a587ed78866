// src/runs throws RunError(message, exitCode, kind) for what the user must fix, and ConnectError
// (message, kind) for a first connection that failed; the CLI gives each the stable `--json` code
// a script can branch on: from its kind, never from the words of its message.
import { ConnectError, readProfiles, targetFromFlags } from '../runs/cli-target.js';
import { connectFactsOf, scrubbedFacts, type ConnectFailureKind } from '../remote/connect-failure.js';
import type { Target, TargetFlags } from '../runs/index.js';
import type { RunErrorKind } from '../runs/launch.js';
import { CliError, EXIT, defaultCode, type ErrorCode } from './errors.js';
import { ConnectCliError } from './json-errors.js';

export function runErrorCode(e: { exitCode: number; kind?: RunErrorKind }): ErrorCode {
  return e.kind ?? defaultCode(e.exitCode);
}

export const cliErrorFromRun = (e: { message: string; exitCode: number; kind?: RunErrorKind }): CliError =>
  new CliError(e.message, e.exitCode, { code: runErrorCode(e) });

const UNREACHABLE_HINT = 'check that the host is up and the port right, then try again (retrying may help)';
const AUTH_HINT = 'check User and IdentityFile in your ssh config, or load your key with ssh-add';

/** Each kind of connection failure: its --json code (the codes scripts already branch on) and hint. */
const CONNECT_CODES: Record<ConnectFailureKind, { code: ErrorCode; hint: string }> = {
  unreachable: { code: 'host-unreachable', hint: UNREACHABLE_HINT },
  timeout: {
    code: 'host-unreachable',
    hint: 'the host did not answer the SSH handshake in time: check that it is up (retrying may help; ConnectTimeout in the ssh config sets the wait)',
  },
  closed: { code: 'host-unreachable', hint: UNREACHABLE_HINT },
  'handshake-failed': { code: 'host-unreachable', hint: UNREACHABLE_HINT },
  'host-key-unknown': {
    code: 'host-key-unknown',
    hint: "check the fingerprint with the host's administrator, then pass --accept-new-host-key",
  },
  'host-key-mismatch': {
    code: 'host-key-mismatch',
    hint: 'if the host was really re-keyed, remove the old known_hosts line (ssh-keygen -R) and connect again',
  },
  'host-key-revoked': {
    code: 'host-key-mismatch',
    hint: "the key is marked @revoked in known_hosts: ask the host's administrator for the current key",
  },
  'auth-failed': { code: 'auth-failed', hint: AUTH_HINT },
  'key-encrypted': {
    code: 'auth-failed',
    hint: 'load the encrypted key into ssh-agent (ssh-add), or open the cockpit in a terminal to type its passphrase',
  },
  'wrong-passphrase': { code: 'auth-failed', hint: AUTH_HINT },
  'login-needs-person': {
    code: 'login-needs-person',
    hint: "run it in a terminal to type the server's code, or log in once through an OpenSSH ControlMaster (ControlMaster auto, ControlPath, ControlPersist in ~/.ssh/config): awrl-tui then rides that connection",
  },
  'ssh-settings': { code: 'connect-failed', hint: 'retrying will not help: fix the ssh settings for this target' },
};

/** The --json code and hint of a connection failure of this kind. */
export const connectErrorCode = (kind: ConnectFailureKind): { code: ErrorCode; hint: string } => CONNECT_CODES[kind];

/** A failed first connection (what connect() threw) as the CLI's error; `message` replaces its own.
 *  It keeps the failure's facts (host, port, fingerprint, …) for the --json line. */
export function cliErrorFromConnect(e: unknown, message = e instanceof Error ? e.message : String(e)): CliError {
  const kind: ConnectFailureKind = e instanceof ConnectError ? e.kind : 'unreachable';
  const exit = e instanceof ConnectError ? e.exitCode : EXIT.disconnected;
  return new ConnectCliError(message, exit, connectErrorCode(kind), scrubbedFacts(connectFactsOf(e)));
}

/** The target from the flags and targets.yaml: a bad profile file is `targets-file`, bad flags `usage`. */
export function cliTarget(flags: TargetFlags): Target {
  let profiles: Record<string, Target>;
  try {
    profiles = readProfiles();
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { code: 'targets-file' });
  }
  try {
    return targetFromFlags(flags, profiles);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
}
