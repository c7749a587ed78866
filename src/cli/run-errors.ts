// src/runs throws RunError(message, exitCode, kind) for what the user must fix; the CLI gives each
// the stable `--json` code a script can branch on: its kind, else its exit code's broad code.
import { readProfiles, targetFromFlags } from '../runs/cli-target.js';
import type { Target, TargetFlags } from '../runs/index.js';
import type { RunErrorKind } from '../runs/launch.js';
import { CliError, EXIT, defaultCode, type ErrorCode } from './errors.js';

export function runErrorCode(e: { exitCode: number; kind?: RunErrorKind }): ErrorCode {
  return e.kind ?? defaultCode(e.exitCode);
}

export const cliErrorFromRun = (e: { message: string; exitCode: number; kind?: RunErrorKind }): CliError =>
  new CliError(e.message, e.exitCode, { code: runErrorCode(e) });

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
