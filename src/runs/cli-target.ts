// Command-line plumbing shared by `--launch`, `runs` and `stop`: target flags, the profile file,
// and opening the transport with a one-line error. Lives here (not in src/cli) so the three
// commands parse targets identically.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { openTransport, type Transport } from '../remote/index.js';
// The light module (no ssh2): commands that only parse must not load the ssh client.
import { ConnectFailure, isRetryable, type ConnectFailureKind } from '../remote/connect-failure.js';
import { terminalAnswerLogin } from '../remote/terminal-login.js';
import {
  loadTargets,
  resolveTarget,
  targetsFilePath,
  TargetsFileError,
  type Target,
  type TargetFlags,
} from './targets.js';

export { parseCli, TARGET_VALUE_FLAGS, type ParsedCli } from './cli-args.js';

/** Reads the profile file (absent = no profiles); a bad file is an error naming file:line. */
export function readProfiles(env: Record<string, string | undefined> = process.env): Record<string, Target> {
  const path = env.AWRL_TARGETS_FILE || targetsFilePath(env, homedir());
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  try {
    return loadTargets(text, path);
  } catch (err) {
    if (err instanceof TargetsFileError) throw new Error(err.message);
    throw err;
  }
}

export function targetFromFlags(flags: TargetFlags, profiles: Record<string, Target>): Target {
  const t = resolveTarget(flags, profiles);
  if (typeof t === 'string') throw new Error(t);
  return t;
}

/** A failed first connection, with what kind of failure it was (set where the transport failed,
 *  src/remote/connect-failure.ts) and the CLI's exit code: when retrying cannot help (a refused or
 *  unknown host key, failed authentication, a wrong passphrase, a target that is not one) it is bad
 *  input, 2, as README's exit codes say; an unreachable host is a lost connection, 4. */
export class ConnectError extends Error {
  override name = 'ConnectError';
  readonly exitCode: number;
  readonly fatal: boolean;
  constructor(
    message: string,
    readonly kind: ConnectFailureKind,
    // The ConnectFailure it rewraps: its facts (host:port, fingerprint, key file) reach --json.
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.fatal = !isRetryable(kind);
    // A login that needs a person is not bad input: the same command works where one can answer.
    this.exitCode = this.fatal && kind !== 'login-needs-person' ? 2 : 4;
  }
}

/** The exit code for whatever connect() threw. */
export const connectExit = (e: unknown): number => (e instanceof ConnectError ? e.exitCode : 4);

/** Opens the transport headless; an unknown host key is accepted only with --accept-new-host-key. */
export async function connect(
  target: Target,
  opts: { acceptNewHostKey?: boolean; reconnectTimeoutMs?: number } = {},
): Promise<Transport> {
  try {
    return await openTransport(target.host, {
      sshConfigFile: target.sshConfigFile,
      ...(target.backlogCodec ? { followCompressCodec: target.backlogCodec } : {}),
      ...(target.sshClient ? { sshClient: target.sshClient } : {}),
      acceptNewHostKey: opts.acceptNewHostKey,
      // A second factor (keyboard-interactive) is typed at this terminal, if there is one.
      answerLogin: terminalAnswerLogin(),
      reconnect: opts.reconnectTimeoutMs !== undefined ? { maxElapsedMs: opts.reconnectTimeoutMs } : undefined,
    });
  } catch (err) {
    // Anything the transport did not name (it names every failure it knows) counts as not
    // reaching the host: retrying is the one thing left to try.
    const kind = err instanceof ConnectFailure ? err.kind : 'unreachable';
    throw new ConnectError(
      `cannot connect to ${target.name}: ${err instanceof Error ? err.message : String(err)}`,
      kind,
      err,
    );
  }
}
