// `awrl-tui watch RUN [--target T]`: the dashboard of one run. Without --target, the run is looked
// for on every target of the profile file. The first frame is painted before anything heavy loads.
import { CliError, EXIT } from './errors.js';
import { openSplash } from '../ui/chrome.js';
import { notInteractiveReason } from '../ui/tty.js';
import { parseCockpitArgs } from '../ui/cockpit-args.js';

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
  const splash = openSplash(process.stdout, 'dashboard', `connecting to find ${runId}…`);
  const { resolveTargets, connectTargets } = await import('../ui/connect.js');
  let connections: Awaited<ReturnType<typeof connectTargets>>['connections'] = [];
  try {
    const targets = await resolveTargets(parsed.flags).catch((err: Error) => {
      throw new CliError(err.message, EXIT.usage);
    });
    if (targets.length === 0) throw new CliError(`no target to look for ${runId} on: give --target T (or define targets in targets.yaml)`, EXIT.usage);
    const c = await connectTargets(targets);
    connections = c.connections;
    if (connections.length === 0) throw new CliError(`cannot connect: ${c.failures.join('; ')}`, EXIT.disconnected);
    splash.painter.invalidate();
    splash.status('loading…');
  } catch (err) {
    splash.close();
    throw err;
  }
  const { createLiveSession } = await import('../ui/session/live-session.js');
  const { runCockpit } = await import('../ui/index.js');
  const session = createLiveSession({ targets: connections, openRunId: runId });
  try {
    await runCockpit({ session, initialScreen: 'dashboard', splash });
  } finally {
    splash.close();
    await session.close();
    await Promise.all(connections.map((c) => c.transport.close().catch(() => {})));
  }
  return EXIT.ok;
}
