// A user-facing launch problem: one line, with the exit code the CLI should use.

/** What a refusal is about, for a script's sake (`--json`'s error code); absent: only the exit
 *  code's broad meaning. */
export type RunErrorKind =
  'usage' | 'run-not-found' | 'run-active' | 'secret-missing' | 'workdir-missing' | 'launch-cancelled' | 'run-finished';

export class RunError extends Error {
  override name = 'RunError';
  constructor(
    message: string,
    readonly exitCode: number = 2,
    readonly kind?: RunErrorKind,
  ) {
    super(message);
  }
}

/** A signal (or the cockpit quitting) stopped the launch before its start script was sent. */
export class LaunchCancelled extends RunError {
  override name = 'LaunchCancelled';
  constructor(targetName: string) {
    super(`launch cancelled: nothing was started on ${targetName}`, 130, 'launch-cancelled');
  }
}
