// `--json` failures: a script piping a command into `jq` gets ONE JSON line on stdout when the
// command fails, `{"type":"cli-error","exit":N,"code":"…","message":"…","hint":"…"}`, instead of
// nothing it can parse. Its type is not "error": in `follow --json` and `parse --json` that is the
// trainer's own error event, and a script must tell "the run crashed" from "awrl-tui could not
// follow it". The human line still goes to stderr (main.ts prints it from the rethrown
// error) and the exit code is unchanged. The message is the same text as the human line, which
// never carries a secret's value (secrets travel on the SSH channel's stdin only).
// A failed connection adds what the transport knew where it failed, as fields after those five
// (`"host"`, `"port"`, `"fingerprint"`, `"knownHostsFile"`, `"knownHostsLine"`, `"keyFile"`, …,
// src/remote/connect-failure.ts's ConnectFacts), present only when known: a script reads the
// fingerprint to check, or the known_hosts line to remove, without parsing the message.
import { CONNECT_FACT_KEYS, type ConnectFacts } from '../remote/connect-failure.js';
import { CliError, EXIT, type ErrorCode } from './errors.js';
import { knownCliError } from './known-errors.js';

export interface JsonError extends ConnectFacts {
  type: 'cli-error';
  exit: number;
  code: ErrorCode;
  message: string;
  hint: string;
}

/** A CLI error for a failed connection, with the failure's facts (already scrubbed of secrets). */
export class ConnectCliError extends CliError {
  constructor(
    message: string,
    exitCode: number,
    opts: { code?: ErrorCode; hint?: string },
    readonly facts: Readonly<ConnectFacts>,
  ) {
    super(message, exitCode, opts);
  }
}

export function jsonErrorOf(thrown: unknown): JsonError {
  const err = knownCliError(thrown);
  if (err instanceof CliError) {
    const out: JsonError = {
      type: 'cli-error',
      exit: err.exitCode,
      code: err.code,
      message: err.message,
      hint: err.hint,
    };
    // The facts' own order, after the fields every error line has (so those never move).
    if (err instanceof ConnectCliError)
      for (const k of CONNECT_FACT_KEYS) if (err.facts[k] !== undefined) Object.assign(out, { [k]: err.facts[k] });
    return out;
  }
  // A bug: the message only (the stack stays on stderr for the report).
  const message = err instanceof Error ? err.message : String(err);
  return {
    type: 'cli-error',
    exit: EXIT.internal,
    code: 'internal',
    message: `internal error: ${message}`,
    hint: 'this is a bug in awrl-tui: please report it with the stderr output',
  };
}

export const jsonErrorLine = (e: JsonError): string => `${JSON.stringify(e)}\n`;

/** Was JSON output asked for? (`--json` anywhere before a `--` end of options.) */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

/**
 * Runs a command; with --json in its args, a failure also writes its JSON error line to stdout
 * before the error goes on to main.ts (stderr line, exit code).
 */
export async function withJsonErrors(args: readonly string[], body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    reportJsonError(args, err);
    throw err;
  }
}

/** Errors whose JSON line was written (a command's own wrapper, then main.ts, see the same one). */
const reported = new WeakSet<object>();

/** With --json in `args`, writes the JSON line of `err` once. main.ts calls it for every failure,
 *  so commands without their own wrapper (parse, an unknown command) answer in JSON too. */
export function reportJsonError(args: readonly string[], err: unknown): void {
  if (!wantsJson(args) || stdoutGone()) return;
  if (typeof err === 'object' && err !== null) {
    if (reported.has(err)) return;
    reported.add(err);
  }
  process.stdout.write(jsonErrorLine(jsonErrorOf(err)));
}

/** A reader that went away (`… --json | head -1`) gets nothing more. */
function stdoutGone(): boolean {
  return process.stdout.destroyed || process.stdout.writableEnded;
}
