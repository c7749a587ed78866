// `awrl-tui stop RUN [--target T] [--grace SECONDS] [--yes] [--check-nodes H1,H2] [--json]`: SIGTERM to the
// job's group, grace, SIGKILL; scancel on Slurm. Then the leftover check on the run's nodes (Slurm:
// every node an attempt ran on, as run.json recorded them, reached from the head in one command;
// direct: the target, plus the --check-nodes hosts): processes still carrying the
// run's tag (torchrun/Ray workers in their own sessions) and processes holding GPU memory, listed
// with PID and command. Only the tagged ones are stopped, and only with --yes or a "y" at the
// terminal; without either (and without a TTY) they are listed with how to stop them, exit 1.
// Nothing is ever matched by a name pattern. Without --target, every target in targets.yaml is
// searched for RUN. --json: one line on stdout (what was done, the state after, stopRequestedAt on
// the head's clock, the leftovers), the human lines on stderr; a failure is the cli-error line.
import { createInterface } from 'node:readline/promises';
import {
  stopRun,
  stoppedBy,
  readRecord,
  runsRoot,
  runNodes,
  setupInWorkdir,
  RunError,
  type RunRecord,
  type StopReport,
  type Target,
} from '../runs/index.js';
import { directAttemptNodes } from '../runs/direct-nodes.js';
import {
  checkLeftovers,
  stopLeftovers,
  formatLeftovers,
  type Leftover,
  type LeftoverOptions,
  type NodeFailure,
} from '../preflight/leftovers.js';
import { withOtherRuns } from '../preflight/other-runs.js';
import { parseCli, readProfiles, targetFromFlags, connect, connectExit } from '../runs/cli-target.js';
import type { Transport } from '../remote/transport.js';
import { knownCliError } from './known-errors.js';
import { CliError, EXIT } from './errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { withJsonErrors } from './json-errors.js';
import { cliErrorFromConnect, cliErrorFromRun } from './run-errors.js';

export function formatStopReport(r: StopReport, target: string): string {
  if (r.removedAbandoned)
    return `${r.runId} on ${target} was an abandoned launch (nothing had started): its run dir is removed`;
  if (r.alreadyEnded)
    return `${r.runId} on ${target} had already ended (${r.alreadyEnded.state}: ${r.alreadyEnded.detail}): nothing to stop, its state is kept`;
  if (r.backend === 'slurm') {
    return r.cancelledJobs.length
      ? `stopped ${r.runId} on ${target}: scancel ${r.cancelledJobs.join(' ')}`
      : `${r.runId} on ${target}: no Slurm job left to cancel`;
  }
  const parts: string[] = [];
  if (r.terminated.length) parts.push(`SIGTERM to process group ${r.terminated.join(', ')}`);
  if (r.killed.length) parts.push(`SIGKILL to process group ${r.killed.join(', ')} after the grace period`);
  if (r.swept.length)
    parts.push(`swept ${r.swept.length} leftover process(es) tagged with the run id: ${r.swept.join(', ')}`);
  if (parts.length === 0) parts.push('no process was running');
  const left = r.left.length ? `; STILL RUNNING: ${r.left.join(', ')}` : '';
  return `stopped ${r.runId} on ${target}: ${parts.join('; ')}${left}`;
}

const indent = (s: string) =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Where leftovers can be: a run's recorded nodes (Slurm's; a direct multi-node run's, head first by
 *  its hostname); else a direct run's target (plus --check-nodes). */
export function leftoverScope(
  record: RunRecord | null,
  extraNodes: readonly string[],
): Pick<LeftoverOptions, 'nodes' | 'includeHead'> {
  if (record) {
    const nodes = runNodes(record);
    if (nodes.length > 0) return { nodes: [...new Set([...nodes, ...extraNodes])], includeHead: false };
  }
  return extraNodes.length > 0 ? { nodes: [...extraNodes], includeHead: true } : {};
}

/** What the leftover check found and did (the `leftovers` of `stop --json`). */
export interface LeftoverResult {
  /** The hosts looked at. */
  checked: string[];
  /** Processes carrying the run's tag, and GPU holders without it (never touched), as found. */
  tagged: Leftover[];
  untagged: Leftover[];
  /** Tagged processes stopped (--yes or a "y"), and tagged ones still alive at the end. */
  stopped: Leftover[];
  remaining: Leftover[];
  /** Nodes that could not be checked, and why; `error` when no host could be checked at all. */
  unreachable: NodeFailure[];
  /** Nodes reached whose GPU memory could not be checked (nvidia-smi missing or failing), and why. */
  gpuUnchecked: NodeFailure[];
  /** A direct multi-node run whose other nodes are unknown (why), so they were not looked at. */
  nodesUnknown: string | null;
  error: string | null;
}

/** Every host was looked at completely (processes and GPUs): otherwise `stop` exits 1 (EXIT.failed),
 *  since nothing can be said about what the unchecked part holds. */
export const leftoversFullyChecked = (r: LeftoverResult): boolean =>
  !r.error && r.unreachable.length === 0 && r.gpuUnchecked.length === 0 && r.nodesUnknown === null;

/**
 * The leftover check after a stop; `say` prints its human lines (stdout, or stderr under --json).
 * Tagged processes left alive (not confirmed, or they survived SIGKILL) end in `remaining`; GPU
 * holders without the tag never count: not ours to judge.
 */
async function leftoverCheck(
  transport: Transport,
  target: Target,
  runId: string,
  o: { yes: boolean; graceSeconds: number; extraNodes: string[]; mayAsk: boolean; say: (s: string) => void },
): Promise<LeftoverResult> {
  const { say } = o;
  const setup = setupInWorkdir(target);
  const record = await readRecord(transport, `${runsRoot(target)}/${runId}`);
  const scope = leftoverScope(record, o.extraNodes);
  if (record?.backend === 'slurm' && !scope.nodes) {
    say(
      `leftovers: run.json records no node for ${runId} (the job never started, or it predates node recording): checking ${target.name} only`,
    );
  }
  // A direct multi-node run whose nodes are unknown: "none" on the head is not "none".
  const unknownNodes = record ? (directAttemptNodes(record)?.unknown ?? null) : null;
  if (unknownNodes !== null && o.extraNodes.length === 0) {
    say(
      `leftovers: the nodes of ${runId} are unknown (${unknownNodes}): checking ${target.name} only; name the others with --check-nodes`,
    );
  }
  const hosts = scope.nodes ? [...(scope.includeHead ? [target.name] : []), ...scope.nodes] : [target.name];
  const where = hosts.join(', ');
  const result: LeftoverResult = {
    checked: hosts,
    tagged: [],
    untagged: [],
    stopped: [],
    remaining: [],
    unreachable: [],
    gpuUnchecked: [],
    nodesUnknown: unknownNodes !== null && o.extraNodes.length === 0 ? unknownNodes : null,
    error: null,
  };
  let found: Leftover[];
  try {
    const report = await checkLeftovers(transport, runId, { setup, ...scope });
    // Another run's processes: in use while it runs, leftovers only once it ended.
    found = await withOtherRuns(transport, target, report.list);
    result.unreachable = report.unreachable;
    result.gpuUnchecked = report.gpuUnchecked;
  } catch (e) {
    result.error = `could not check ${where} for leftover processes: ${(e as Error).message}`;
    process.stderr.write(`awrl-tui: ${result.error}\n`);
    return result;
  }
  for (const x of result.unreachable) say(`leftovers: NOT CHECKED on ${x.error} (its processes and GPUs are unknown)`);
  for (const x of result.gpuUnchecked) say(`leftovers: GPU memory NOT CHECKED on ${x.error}`);
  const tagged = (result.tagged = found.filter((l) => l.tagged));
  const holders = (result.untagged = found.filter((l) => !l.tagged));
  if (found.length === 0) {
    // "none" only where it was looked for: an unreachable node or unasked GPUs are not all-clear.
    const unseen = new Set(result.unreachable.map((x) => x.node));
    const noGpu = new Set(result.gpuUnchecked.map((x) => x.node));
    const seen = hosts.filter((h) => !unseen.has(h));
    const gpusSeen = seen.filter((h) => !noGpu.has(h));
    if (seen.length === 0) return result;
    const gpuWords =
      gpusSeen.length === seen.length
        ? 'no GPU memory is held'
        : gpusSeen.length
          ? `no GPU memory is held on ${gpusSeen.join(', ')}`
          : 'GPU memory not checked';
    const rest =
      unknownNodes !== null && o.extraNodes.length === 0 ? `; the run's other nodes are unknown, not checked` : '';
    say(`leftovers: none on ${seen.join(', ')} (no process carries the run's tag, ${gpuWords})${rest}`);
    return result;
  }
  if (tagged.length > 0)
    say(
      `leftovers: ${plural(tagged.length, 'process')} on ${where} still carry the run's tag (AWRL_RUN_ID=${runId}):\n${indent(formatLeftovers(tagged, hosts.length > 1))}`,
    );
  if (holders.length > 0) {
    say(
      `GPU memory on ${where} is held by ${plural(holders.length, 'process')} without this run's tag (left alone: stop them yourself if they are yours):\n${indent(formatLeftovers(holders, hosts.length > 1))}`,
    );
  }
  if (tagged.length === 0) return result;
  const go =
    o.yes ||
    (o.mayAsk &&
      (await confirm(
        `stop the ${plural(tagged.length, 'tagged process')} (SIGTERM, ${o.graceSeconds} s grace, SIGKILL)? [y/N] `,
      )));
  if (!go) {
    say(
      `not stopped: to stop the tagged ${tagged.length === 1 ? 'process' : 'processes'}, run this command again with --yes`,
    );
    result.remaining = tagged;
    return result;
  }
  const sweep = await stopLeftovers(transport, runId, { graceSeconds: o.graceSeconds, setup, ...scope });
  result.stopped = sweep.stopped;
  if (sweep.stopped.length > 0)
    say(
      `stopped ${plural(sweep.stopped.length, 'tagged process')}: PID ${sweep.stopped.map((l) => (scope.nodes ? `${l.node}:${l.pid}` : l.pid)).join(', ')}`,
    );
  result.remaining = sweep.remaining.filter((l) => l.tagged);
  if (result.remaining.length > 0)
    say(
      `STILL RUNNING after SIGKILL (e.g. in uninterruptible sleep):\n${indent(formatLeftovers(result.remaining, hosts.length > 1))}`,
    );
  return result;
}

/** The `stop --json` line: what was done, the state after, and the leftovers. */
export function stopJson(r: StopReport, target: string, leftovers: LeftoverResult): Record<string, unknown> {
  return {
    type: 'stop',
    runId: r.runId,
    target,
    backend: r.backend,
    stoppedBy: stoppedBy(r),
    cancelledJobs: r.cancelledJobs,
    terminated: r.terminated,
    killed: r.killed,
    swept: r.swept,
    left: r.left,
    alreadyEnded: r.alreadyEnded ?? null,
    ...(r.removedAbandoned ? { removedAbandoned: true } : {}),
    stopRequestedAt: r.stopRequestedAt ?? null,
    state: r.after?.state ?? null,
    detail: r.after?.detail ?? null,
    leftovers,
  };
}

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => stop(args));

async function stop(args: string[]): Promise<number> {
  quietWhenStdoutCloses();
  let p;
  try {
    p = parseCli(args, {
      values: ['--grace', '--check-nodes'],
      switches: ['--yes', '-y', '--accept-new-host-key', '--json'],
    });
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const json = p.switches.has('--json');
  // Under --json the human lines go to stderr: stdout carries the one JSON line.
  const say = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError('stop needs a RUN id (see awrl-tui runs --target T)', EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'`, EXIT.usage);
  const graceRaw = p.values['--grace'] ?? '10';
  if (!/^\d+$/.test(graceRaw)) throw new CliError(`--grace needs whole seconds, not '${graceRaw}'`, EXIT.usage);
  const extraNodes = (p.values['--check-nodes'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const badNode = extraNodes.find((n) => !/^[A-Za-z0-9_.][A-Za-z0-9_.:@-]*$/.test(n));
  if (badNode !== undefined) throw new CliError(`--check-nodes: '${badNode}' is not a host name`, EXIT.usage);
  let profiles: Record<string, Target>;
  try {
    profiles = readProfiles();
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage, { code: 'targets-file' });
  }
  let targets: Target[];
  try {
    targets = p.flags.target ? [targetFromFlags(p.flags, profiles)] : Object.values(profiles);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  if (targets.length === 0)
    throw new CliError('stop needs --target T (no targets.yaml profiles to search)', EXIT.usage);
  const skipped: Array<{ name: string; message: string; exit: number; error: unknown }> = [];
  for (const target of targets) {
    let transport: Transport;
    try {
      transport = await connect(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
    } catch (e) {
      const message = (e as Error).message;
      if (targets.length === 1) throw cliErrorFromConnect(e);
      process.stderr.write(`awrl-tui: skipping ${target.name}: ${message}\n`);
      skipped.push({ name: target.name, message, exit: connectExit(e), error: e });
      continue;
    }
    try {
      if (targets.length > 1 && !(await readRecord(transport, `${runsRoot(target)}/${runId}`))) continue;
      const graceSeconds = Number(graceRaw);
      // The tag sweep outside the job's group is the leftover check's, below: listed first, stopped on --yes.
      const report = await stopRun(transport, target, runId, { graceSeconds, sweep: false });
      say(formatStopReport(report, target.name));
      const leftovers = await leftoverCheck(transport, target, runId, {
        yes: p.switches.has('--yes') || p.switches.has('-y'),
        graceSeconds,
        extraNodes,
        // Under --json stdout is the one JSON line: no question on it, only --yes stops.
        mayAsk: !json && process.stdin.isTTY === true && process.stdout.isTTY === true,
        say,
      });
      if (json) process.stdout.write(`${JSON.stringify(stopJson(report, target.name, leftovers))}\n`);
      return report.left.length || leftovers.remaining.length || !leftoversFullyChecked(leftovers)
        ? EXIT.failed
        : EXIT.ok;
    } catch (e) {
      if (e instanceof RunError) throw cliErrorFromRun(e);
      const known = knownCliError(e); // a target without GNU stat: said as such, exit 2
      if (known instanceof CliError) throw known;
      throw new CliError(`stop on ${target.name} failed: ${(e as Error).message}`, EXIT.failed, {
        code: 'remote-failed',
      });
    } finally {
      await transport.close().catch(() => undefined);
    }
  }
  const searched = targets.filter((t) => !skipped.some((s) => s.name === t.name)).map((t) => t.name);
  if (skipped.length > 0) {
    // Not found where we could look, but it may be on a target we could not reach: not "no run".
    const worst = skipped.find((s) => s.exit === EXIT.disconnected) ?? skipped[0];
    const where = searched.length ? `no run ${runId} on ${searched.join(', ')}, and ` : '';
    throw cliErrorFromConnect(
      worst.error,
      `${where}could not search ${skipped.map((s) => s.name).join(', ')} for it (${worst.message})`,
    );
  }
  throw new CliError(`no run ${runId} on ${targets.map((t) => t.name).join(', ')}`, EXIT.usage, {
    code: 'run-not-found',
  });
}
