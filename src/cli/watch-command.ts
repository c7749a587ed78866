// `awrl-tui watch RUN [--target T]`: the dashboard of one run. Without --target, the run is looked
// for on every target of the profile file.
import { CliError, EXIT } from './errors.js';
import { connectTargets, parseCockpitArgs, resolveTargets } from '../ui/connect.js';
import { notInteractiveReason } from '../ui/tty.js';

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCockpitArgs(args);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
  const runId = parsed.positional[0];
  if (!runId || parsed.positional.length > 1) throw new CliError('usage: awrl-tui watch RUN [--target T]', EXIT.usage);
  const why = notInteractiveReason();
  if (why) throw new CliError(why.replace('the cockpit needs', "'watch' needs") + ` For ${runId}'s state, step and reward without one: 'awrl-tui runs --target T'.`, EXIT.usage);
  const targets = await resolveTargets(parsed.flags).catch((err: Error) => {
    throw new CliError(err.message, EXIT.usage);
  });
  if (targets.length === 0) throw new CliError(`no target to look for ${runId} on: give --target T (or define targets in targets.yaml)`, EXIT.usage);
  const { connections, failures } = await connectTargets(targets);
  if (connections.length === 0) throw new CliError(`cannot connect: ${failures.join('; ')}`, EXIT.disconnected);
  const { createLiveSession } = await import('../ui/session/live-session.js');
  const { runCockpit } = await import('../ui/index.js');
  const session = createLiveSession({ targets: connections, openRunId: runId });
  try {
    await runCockpit({ session, initialScreen: 'dashboard' });
  } finally {
    await session.close();
    await Promise.all(connections.map((c) => c.transport.close().catch(() => {})));
  }
  return EXIT.ok;
}
