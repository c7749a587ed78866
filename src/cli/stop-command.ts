// `awrl-tui stop RUN [--target T] [--grace SECONDS]`: SIGTERM, grace, SIGKILL, sweep by run tag;
// scancel on Slurm. Without --target, every target in targets.yaml is searched for RUN.
import { stopRun, readRecord, runsRoot, RunError, type StopReport, type Target } from '../runs/index.js';
import { parseCli, readProfiles, targetFromFlags, connect } from '../runs/cli-target.js';
import type { Transport } from '../remote/transport.js';
import { CliError, EXIT } from './errors.js';

export function formatStopReport(r: StopReport, target: string): string {
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

export async function run(args: string[]): Promise<number> {
  let p;
  try {
    p = parseCli(args, { values: ['--grace'], switches: ['--yes', '-y', '--accept-new-host-key'] });
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError('stop needs a RUN id (see awrl-tui runs --target T)', EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'`, EXIT.usage);
  const graceRaw = p.values['--grace'] ?? '10';
  if (!/^\d+$/.test(graceRaw)) throw new CliError(`--grace needs whole seconds, not '${graceRaw}'`, EXIT.usage);
  let targets: Target[];
  try {
    const profiles = readProfiles();
    targets = p.flags.target ? [targetFromFlags(p.flags, profiles)] : Object.values(profiles);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  if (targets.length === 0) throw new CliError('stop needs --target T (no targets.yaml profiles to search)', EXIT.usage);
  for (const target of targets) {
    let transport: Transport;
    try {
      transport = await connect(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
    } catch (e) {
      if (targets.length === 1) throw new CliError((e as Error).message, EXIT.disconnected);
      process.stderr.write(`awrl-tui: skipping ${target.name}: ${(e as Error).message}\n`);
      continue;
    }
    try {
      if (targets.length > 1 && !(await readRecord(transport, `${runsRoot(target)}/${runId}`))) continue;
      const report = await stopRun(transport, target, runId, { graceSeconds: Number(graceRaw) });
      process.stdout.write(`${formatStopReport(report, target.name)}\n`);
      return report.left.length ? EXIT.failed : EXIT.ok;
    } catch (e) {
      if (e instanceof RunError) throw new CliError(e.message, e.exitCode);
      throw new CliError(`stop on ${target.name} failed: ${(e as Error).message}`, EXIT.failed);
    } finally {
      await transport.close().catch(() => undefined);
    }
  }
  throw new CliError(`no run ${runId} on ${targets.map((t) => t.name).join(', ')}`, EXIT.usage);
}
