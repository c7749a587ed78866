// `awrl-tui stop RUN [--target T] [--grace SECONDS] [--yes] [--check-nodes H1,H2]`: SIGTERM to the
// job's group, grace, SIGKILL; scancel on Slurm. Then the leftover check on the run's nodes (Slurm:
// every node an attempt ran on, as run.json recorded them, reached from the head in one command;
// direct: the target, plus the --check-nodes hosts): processes still carrying the
// run's tag (torchrun/Ray workers in their own sessions) and processes holding GPU memory, listed
// with PID and command. Only the tagged ones are stopped, and only with --yes or a "y" at the
// terminal; without either (and without a TTY) they are listed with how to stop them, exit 1.
// Nothing is ever matched by a name pattern. Without --target, every target in targets.yaml is
// searched for RUN.
import { createInterface } from 'node:readline/promises';
import { stopRun, readRecord, runsRoot, runNodes, setupInWorkdir, RunError, type RunRecord, type StopReport, type Target } from '../runs/index.js';
import { findLeftovers, stopLeftovers, formatLeftovers, type Leftover, type LeftoverOptions, type NodeFailure } from '../preflight/leftovers.js';
import { parseCli, readProfiles, targetFromFlags, connect, connectExit } from '../runs/cli-target.js';
import type { Transport } from '../remote/transport.js';
import { CliError, EXIT } from './errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { cliErrorFromConnect, cliErrorFromRun } from './run-errors.js';

export function formatStopReport(r: StopReport, target: string): string {
  if (r.alreadyEnded) return `${r.runId} on ${target} had already ended (${r.alreadyEnded.state}: ${r.alreadyEnded.detail}): nothing to stop, its state is kept`;
  if (r.backend === 'slurm') {
    return r.cancelledJobs.length ? `stopped ${r.runId} on ${target}: scancel ${r.cancelledJobs.join(' ')}` : `${r.runId} on ${target}: no Slurm job left to cancel`;
  }
  const parts: string[] = [];
  if (r.terminated.length) parts.push(`SIGTERM to process group ${r.terminated.join(', ')}`);
  if (r.killed.length) parts.push(`SIGKILL to process group ${r.killed.join(', ')} after the grace period`);
  if (r.swept.length) parts.push(`swept ${r.swept.length} leftover process(es) tagged with the run id: ${r.swept.join(', ')}`);
  if (parts.length === 0) parts.push('no process was running');
  const left = r.left.length ? `; STILL RUNNING: ${r.left.join(', ')}` : '';
  return `stopped ${r.runId} on ${target}: ${parts.join('; ')}${left}`;
}

const out = (s: string) => process.stdout.write(`${s}\n`);
const indent = (s: string) => s.split('\n').map((l) => `  ${l}`).join('\n');
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Where leftovers can be: a Slurm run's recorded nodes; a direct run's target (plus --check-nodes). */
export function leftoverScope(record: RunRecord | null, extraNodes: readonly string[]): Pick<LeftoverOptions, 'nodes' | 'includeHead'> {
  if (record?.backend === 'slurm') {
    const nodes = runNodes(record);
    if (nodes.length > 0) return { nodes: [...new Set([...nodes, ...extraNodes])], includeHead: false };
  }
  return extraNodes.length > 0 ? { nodes: [...extraNodes], includeHead: true } : {};
}

/**
 * The leftover check after a stop. Returns false when processes tagged with the run are still alive
 * (not confirmed, or they survived SIGKILL); GPU holders without the tag never count: not ours to judge.
 */
async function leftoverCheck(transport: Transport, target: Target, runId: string, o: { yes: boolean; graceSeconds: number; extraNodes: string[] }): Promise<boolean> {
  const setup = setupInWorkdir(target);
  const record = await readRecord(transport, `${runsRoot(target)}/${runId}`);
  const scope = leftoverScope(record, o.extraNodes);
  if (record?.backend === 'slurm' && !scope.nodes) {
    out(`leftovers: run.json records no node for ${runId} (the job never started, or it predates node recording): checking ${target.name} only`);
  }
  const where = scope.nodes ? [...(scope.includeHead ? [target.name] : []), ...scope.nodes].join(', ') : target.name;
  const unreachable = (f: NodeFailure[]) => {
    for (const x of f) process.stderr.write(`awrl-tui: could not check for leftover processes: ${x.error}\n`);
  };
  let found: Leftover[];
  try {
    found = await findLeftovers(transport, runId, { setup, ...scope, onUnreachable: unreachable });
  } catch (e) {
    process.stderr.write(`awrl-tui: could not check ${where} for leftover processes: ${(e as Error).message}\n`);
    return true;
  }
  const tagged = found.filter((l) => l.tagged);
  const holders = found.filter((l) => !l.tagged);
  if (found.length === 0) {
    out(`leftovers: none on ${where} (no process carries the run's tag, no GPU memory is held)`);
    return true;
  }
  if (tagged.length > 0) out(`leftovers: ${plural(tagged.length, 'process')} on ${where} still carry the run's tag (AWRL_RUN_ID=${runId}):\n${indent(formatLeftovers(tagged))}`);
  if (holders.length > 0) {
    out(`GPU memory on ${where} is held by ${plural(holders.length, 'process')} without this run's tag (left alone: stop them yourself if they are yours):\n${indent(formatLeftovers(holders))}`);
  }
  if (tagged.length === 0) return true;
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const go = o.yes || (interactive && (await confirm(`stop the ${plural(tagged.length, 'tagged process')} (SIGTERM, ${o.graceSeconds} s grace, SIGKILL)? [y/N] `)));
  if (!go) {
    out(`not stopped: to stop the tagged ${tagged.length === 1 ? 'process' : 'processes'}, run this command again with --yes`);
    return false;
  }
  const sweep = await stopLeftovers(transport, runId, { graceSeconds: o.graceSeconds, setup, ...scope });
  if (sweep.stopped.length > 0) out(`stopped ${plural(sweep.stopped.length, 'tagged process')}: PID ${sweep.stopped.map((l) => (scope.nodes ? `${l.node}:${l.pid}` : l.pid)).join(', ')}`);
  const still = sweep.remaining.filter((l) => l.tagged);
  if (still.length > 0) {
    out(`STILL RUNNING after SIGKILL (e.g. in uninterruptible sleep):\n${indent(formatLeftovers(still))}`);
    return false;
  }
  return true;
}

export async function run(args: string[]): Promise<number> {
  quietWhenStdoutCloses();
  let p;
  try {
    p = parseCli(args, { values: ['--grace', '--check-nodes'], switches: ['--yes', '-y', '--accept-new-host-key'] });
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError('stop needs a RUN id (see awrl-tui runs --target T)', EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'`, EXIT.usage);
  const graceRaw = p.values['--grace'] ?? '10';
  if (!/^\d+$/.test(graceRaw)) throw new CliError(`--grace needs whole seconds, not '${graceRaw}'`, EXIT.usage);
  const extraNodes = (p.values['--check-nodes'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
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
  if (targets.length === 0) throw new CliError('stop needs --target T (no targets.yaml profiles to search)', EXIT.usage);
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
      out(formatStopReport(report, target.name));
      const clean = await leftoverCheck(transport, target, runId, { yes: p.switches.has('--yes') || p.switches.has('-y'), graceSeconds, extraNodes });
      return report.left.length || !clean ? EXIT.failed : EXIT.ok;
    } catch (e) {
      if (e instanceof RunError) throw cliErrorFromRun(e);
      throw new CliError(`stop on ${target.name} failed: ${(e as Error).message}`, EXIT.failed, { code: 'remote-failed' });
    } finally {
      await transport.close().catch(() => undefined);
    }
  }
  const searched = targets.filter((t) => !skipped.some((s) => s.name === t.name)).map((t) => t.name);
  if (skipped.length > 0) {
    // Not found where we could look, but it may be on a target we could not reach: not "no run".
    const worst = skipped.find((s) => s.exit === EXIT.disconnected) ?? skipped[0];
    const where = searched.length ? `no run ${runId} on ${searched.join(', ')}, and ` : '';
    throw cliErrorFromConnect(worst.error, `${where}could not search ${skipped.map((s) => s.name).join(', ')} for it (${worst.message})`);
  }
  throw new CliError(`no run ${runId} on ${targets.map((t) => t.name).join(', ')}`, EXIT.usage, { code: 'run-not-found' });
}
