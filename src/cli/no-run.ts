// What a command that reads one run says when the run is not there: a workdir that does not exist
// is said as such (exit 2, `workdir-missing`: a --workdir typo), not as "no run" with a list of
// runs that cannot help. One place for alerts, episodes, sentinel and compare.
import type { Transport } from '../remote/transport.js';
import { runsRoot, type Target } from '../runs/index.js';
import { CliError, EXIT } from './errors.js';

/** The error for run `runId` absent on `target`; `list`: the command that lists its runs. */
export async function noRunError(transport: Transport, target: Target, runId: string, list: string): Promise<CliError> {
  // Not caught: a target without GNU stat is said as such (command-missing), not as a missing workdir.
  if ((await transport.stat(target.workdir)) === null)
    return new CliError(
      `workdir ${target.workdir} does not exist on ${target.name}: give --workdir the AsyncWebRL checkout there`,
      EXIT.usage,
      { code: 'workdir-missing' },
    );
  return new CliError(`no run ${runId} on ${target.name} (${runsRoot(target)})`, EXIT.usage, {
    code: 'run-not-found',
    hint: `list them with: ${list}`,
    hintInLine: true,
  });
}
