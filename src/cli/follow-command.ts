// `awrl-tui follow RUN [--target T] [--json] [--reconnect-timeout S]`: the headless way back to a
// run that is already going (after Ctrl-C of `--launch --follow`, from another script, or from
// cron): the same lines as `--launch --follow`, from the log's first byte, so `--json` gives every
// event once, then follows to the run's end (the human lines from the run's sentinel watch snapshot
// where it keeps one: follow-digest.ts). Exit codes as `--launch --follow`.
// Imported file by file, not through src/runs' index: that would load the config engine (and the
// yaml library) before connecting. The run's config is evaluated by a module loaded meanwhile.
import type { Target } from '../runs/targets.js';
import { assertWorkdir } from '../runs/twins.js';
import { readRecord } from '../runs/launch.js';
import { listRuns, runsRoot } from '../runs/list.js';
import type { RunRecord } from '../runs/run-record.js';
import type { Transport } from '../remote/transport.js';
import { RunError } from '../runs/run-error.js';
import { parseCli } from '../runs/cli-target.js';
import { connectOrExit } from './connect-target.js';
import { runLogPath } from '../runs/run-record.js';
import { CliError, EXIT } from './errors.js';
import { followAndPrint } from './follow-output.js';
import { targetWords, wholeNumber } from './cli-words.js';
import { withJsonErrors } from './json-errors.js';
import { cliErrorFromRun, cliTarget } from './run-errors.js';
import { cliNotify, NOTIFY_LIST, NO_TERMINAL_NOTIFY } from './notify-words.js';

const USAGE =
  'usage: awrl-tui follow RUN --target T [--json] [--reconnect-timeout S] [--notify URL]… [--no-terminal-notify]';

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => follow(args));

async function follow(args: string[]): Promise<number> {
  // process.stdout is not touched: the lines go straight to fd 1 (follow-output.ts), whose EPIPE
  // (`… | head`) ends the command quietly there.
  let p;
  try {
    p = parseCli(args, {
      values: ['--reconnect-timeout'],
      lists: [NOTIFY_LIST],
      switches: ['--json', '--accept-new-host-key', NO_TERMINAL_NOTIFY],
    });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError(`follow needs a RUN id (see awrl-tui runs --target T)\n${USAGE}`, EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'\n${USAGE}`, EXIT.usage);
  const reconnectTimeoutS = wholeNumber('--reconnect-timeout', p.values['--reconnect-timeout'], 300);
  const target: Target = cliTarget(p.flags);
  const notify = cliNotify(p, target.notify);
  // Compiled while the handshake waits on the network.
  const evaluating = import('../runs/run-facts-eval.js');
  evaluating.catch(() => undefined);
  const transport = await connectOrExit(target, {
    acceptNewHostKey: p.switches.has('--accept-new-host-key'),
    reconnectTimeoutMs: reconnectTimeoutS * 1000,
  });
  try {
    // Both asked at once (one round trip less before the first line); a workdir that is not there
    // is said as such (exit 2), not as "no run".
    const reading = readRecord(transport, `${runsRoot(target)}/${runId}`).catch(() => null);
    await assertWorkdir(transport, target).catch((e) => {
      throw e instanceof RunError ? cliErrorFromRun(e) : e;
    });
    // A run.json cut short (a full disk) or corrupt: the run is still there, its log still followable.
    const record = (await reading) ?? (await unreadableRecord(transport, target, runId));
    if (!record)
      throw new CliError(`no run ${runId} on ${target.name} (${runsRoot(target)})`, EXIT.usage, {
        code: 'run-not-found',
        hint: `list them with: awrl-tui runs ${targetWords(args)}`,
        hintInLine: true,
      });
    // Read and evaluated while the follower starts (its records wait for the facts).
    const facts = evaluating.then(({ readRunFacts }) => readRunFacts(transport, record)).catch(() => ({}));
    return await followAndPrint({
      transport,
      target,
      runId,
      logPath: runLogPath(record),
      json: p.switches.has('--json'),
      facts,
      reconnectTimeoutS,
      where: targetWords(args),
      notify,
      digest: true,
    });
  } finally {
    await transport.close().catch(() => undefined);
  }
}

/** The stand-in record of a run whose run.json cannot be read (runs lists it as unknown), said on
 *  stderr; null when there is no such run. Its end cannot be told from run.json: follow it until
 *  Ctrl-C, or stop it (its pid file). */
async function unreadableRecord(transport: Transport, target: Target, runId: string): Promise<RunRecord | null> {
  const [s] = await listRuns(transport, target, { only: runId, tailBytes: 0 }).catch(() => []);
  if (!s || s.state !== 'unknown' || s.record.attempts.length > 0) return null;
  process.stderr.write(`awrl-tui: ${runId}: ${s.detail}: following its log all the same\n`);
  return s.record;
}
