// src/runs throws RunError(message, exitCode) for what the user must fix; the CLI gives each the
// stable `--json` code a script can branch on. Read from the message: src/runs words them (see
// launch.ts, stop.ts) and carries no kind; anything not recognised keeps its exit code's broad code.
import { readProfiles, targetFromFlags } from '../runs/cli-target.js';
import type { Target, TargetFlags } from '../runs/index.js';
import { CliError, EXIT, defaultCode, type ErrorCode } from './errors.js';

export function runErrorCode(message: string, exitCode: number): ErrorCode {
  if (/^no run \S+ on /.test(message)) return 'run-not-found';
  if (/is not a run id/.test(message)) return 'usage';
  if (/^missing environment variable|cannot be forwarded|not a usable environment variable name/.test(message)) return 'secret-missing';
  if (/^workdir .* does not exist on /.test(message)) return 'workdir-missing';
  if (/stop it first|launched at the same time|nothing to resume/.test(message)) return 'run-active';
  return defaultCode(exitCode);
}

export const cliErrorFromRun = (e: { message: string; exitCode: number }): CliError =>
  new CliError(e.message, e.exitCode, { code: runErrorCode(e.message, e.exitCode) });

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
