// Exit codes shared by every command (documented in README and --help), and the user-facing error.
export const EXIT = {
  ok: 0,
  failed: 1, // the run failed / a check found a problem at runtime
  usage: 2, // bad input: config errors, bad arguments, missing file, refused host key or login
  stopped: 3, // the run was stopped
  disconnected: 4, // the connection could not be re-established in time (or the host is unreachable)
  internal: 70,
} as const;

/**
 * Stable machine-readable names for what went wrong, as `--json` prints them in
 * `{"type":"cli-error","code":…}`. Scripts branch on these: add new ones, never rename one.
 */
export const ERROR_CODES = [
  'usage', // bad or missing arguments
  'file-unreadable', // a config or targets file cannot be read
  'targets-file', // targets.yaml does not parse or names an unknown field
  'config-invalid', // the trainer config has errors
  'secret-missing', // an environment variable the trainer needs is unset
  'host-unreachable', // no connection (refused, timed out, DNS): retrying may help
  'host-key-unknown', // first contact, refused headless without --accept-new-host-key
  'host-key-mismatch', // the host key differs from known_hosts (or is revoked)
  'auth-failed', // the login was refused (no key, wrong key, encrypted key headless)
  'login-needs-person', // the server asks for a second factor (keyboard-interactive) and no one can answer
  'connect-failed', // another connection failure that retrying cannot fix
  'disconnected', // the connection was lost beyond --reconnect-timeout
  'run-not-found', // no run with that id on the target(s)
  'run-active', // a run of the same experiment+trial is active (or the run to resume still is)
  'preflight-failed', // the pre-flight found errors (or could not run)
  'workdir-missing', // the checkout does not exist on the target
  'remote-failed', // a command on the target failed (sbatch, scancel, the start script, listing)
  'launch-cancelled', // a signal stopped the launch before its start: nothing was started
  'run-finished', // --resume of a run that finished: it needs --force (or a yes)
  'interrupted', // a signal stopped the command (what it ran on the target was ended)
  'no-dumps', // the run has no trajectory dumps (dumping off, not yet written, or wiped)
  'command-missing', // the target lacks a command awrl-tui needs there (GNU stat), or has a BusyBox one
  'internal', // a bug: please report it
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The code an error gets when its thrower named none: the broad meaning of its exit code. */
export function defaultCode(exitCode: number): ErrorCode {
  if (exitCode === EXIT.usage) return 'usage';
  if (exitCode === EXIT.disconnected) return 'host-unreachable';
  if (exitCode === EXIT.internal) return 'internal';
  return 'remote-failed';
}

/** An error meant for the user: printed as one line, no stack trace, with an exit code. */
export class CliError extends Error {
  readonly code: ErrorCode;
  /** What to do about it, when the message alone does not say (JSON `hint`; '' when none). */
  readonly hint: string;
  /** The human line says the hint after the message (`MESSAGE; HINT`): for errors whose message
   *  alone leaves out what to do, while --json keeps the two apart for scripts. */
  readonly hintInLine: boolean;
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    opts: { code?: ErrorCode; hint?: string; hintInLine?: boolean } = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.code = opts.code ?? defaultCode(exitCode);
    this.hint = opts.hint ?? '';
    this.hintInLine = !!opts.hintInLine && this.hint !== '';
  }

  /** What stderr shows after `awrl-tui: `. */
  get humanLine(): string {
    return this.hintInLine ? `${this.message}; ${this.hint}` : this.message;
  }
}
