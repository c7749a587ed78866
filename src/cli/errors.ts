// Exit codes shared by every command (documented in README and --help).
export const EXIT = {
  ok: 0,
  failed: 1, // the run failed / a check found a problem at runtime
  usage: 2, // bad input: config errors, bad arguments, missing file
  stopped: 3, // the run was stopped
  disconnected: 4, // the connection could not be re-established in time
  internal: 70,
} as const;

/** An error meant for the user: printed as one line, no stack trace, with an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
