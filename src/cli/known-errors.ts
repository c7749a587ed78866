// Errors from the rooms below that are the user's to fix, not bugs: turned into the CliError the
// user reads (one line, an exit code from the table, a --json code) wherever a command fails.
// Light: main.ts loads it on every failure.
import { TargetCommandMissing } from '../remote/remote-files.js';
import { CliError, EXIT } from './errors.js';

/** `err` as the CliError it stands for, or `err` itself (a CliError already, or a bug). */
export function knownCliError(err: unknown): unknown {
  if (err instanceof TargetCommandMissing)
    return new CliError(err.message, EXIT.usage, {
      code: 'command-missing',
      hint: `install GNU coreutils on ${err.target} (or put it first on the login PATH); nothing was checked or changed there`,
    });
  return err;
}
