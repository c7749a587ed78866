// `--baseline` of the cockpit and `watch`: a run id (looked for on every target, as before), or a
// local log file, told apart as `compare` tells its sides apart (parseSide: a path with a `/`, or a
// file that exists here). A file is read over a connection to this machine opened here, through
// the same watch and backfill as a run's log; the caller closes it once the session is closed.
import { existsSync, statSync } from 'node:fs';
import type { LiveSessionOptions } from '../session/live-session.js';
import type { Target } from '../runs/targets.js';
import { parseSide } from './compare-sides.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { cliTarget } from './run-errors.js';

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

export type BaselineChoice = { kind: 'none' } | { kind: 'run'; runId: string } | { kind: 'file'; path: string };

/** What `--baseline VALUE` names; a file that is not there (or not a file) is a usage error. */
export function baselineChoice(value: string | undefined): BaselineChoice {
  if (value === undefined) return { kind: 'none' };
  // A run id is kept as given (TARGET:RUN included): the session looks for it on every target.
  const side = value.includes('/') || isFile(value) ? parseSide(value) : null;
  if (side?.kind !== 'file') return { kind: 'run', runId: value };
  if (!isFile(side.path))
    throw new CliError(`--baseline ${value}: no such log file (${side.path})`, EXIT.usage, {
      code: 'file-unreadable',
      hint: 'give a run id (RUN) or the path of a trainer log here',
      hintInLine: true,
    });
  return { kind: 'file', path: side.path };
}

/** The session options for the choice, and what closes the connection a file needed. */
export async function baselineSessionOptions(
  choice: BaselineChoice,
): Promise<{ options: Pick<LiveSessionOptions, 'baselineRunId' | 'baselineFile'>; close(): Promise<void> }> {
  if (choice.kind === 'none') return { options: {}, close: async () => {} };
  if (choice.kind === 'run') return { options: { baselineRunId: choice.runId }, close: async () => {} };
  const target: Target = { ...cliTarget({ target: 'local', workdir: '/' }), name: 'local' };
  const transport = await connectOrExit(target, { acceptNewHostKey: false });
  return {
    options: { baselineFile: { path: choice.path, local: { target, transport } } },
    close: () => transport.close().catch(() => undefined),
  };
}
