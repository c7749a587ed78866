// `awrl-tui [--target T …] [--config FILE [OVERRIDE…]]`: the cockpit on the Runs screen (or the
// Config screen when a config is given). Needs a terminal; says which headless command to use otherwise.
// The first frame is painted before anything heavy loads (see ui/chrome.ts).
import { readFile } from 'node:fs/promises';
import { CliError, EXIT } from './errors.js';
import { openSplash } from '../ui/chrome.js';
import { notInteractiveReason } from '../ui/tty.js';
import { parseCockpitArgs } from '../ui/cockpit-args.js';

export async function run(args: string[]): Promise<number> {
  const why = notInteractiveReason();
  if (why) throw new CliError(why, EXIT.usage);
  let parsed;
  try {
    parsed = parseCockpitArgs(args);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
  if (parsed.positional.length) throw new CliError(`unexpected argument '${parsed.positional[0]}' (see 'awrl-tui --help')`, EXIT.usage);
  let config: { fileName: string; text: string; overrides: string[] } | null = null;
  if (parsed.configFile) {
    try {
      config = { fileName: parsed.configFile, text: await readFile(parsed.configFile, 'utf8'), overrides: parsed.overrides };
    } catch (err) {
      throw new CliError(`cannot read ${parsed.configFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
    }
  }
  const splash = openSplash(process.stdout, config ? 'config' : 'runs', 'connecting…');
  const { resolveTargets, connectTargets } = await import('../ui/connect.js');
  let connections: Awaited<ReturnType<typeof connectTargets>>['connections'] = [];
  let failures: string[] = [];
  try {
    const targets = await resolveTargets(parsed.flags).catch((err: Error) => {
      throw new CliError(err.message, EXIT.usage);
    });
    ({ connections, failures } = await connectTargets(targets));
    if (targets.length > 0 && connections.length === 0) throw new CliError(`cannot connect: ${failures.join('; ')}`, EXIT.disconnected);
    // A host-key or passphrase question may have written over the splash.
    splash.painter.invalidate();
    splash.status('loading…');
  } catch (err) {
    splash.close();
    throw err;
  }
  const { createLiveSession } = await import('../ui/session/live-session.js');
  const { runCockpit } = await import('../ui/index.js');
  const session = createLiveSession({ targets: connections, config, launchTarget: parsed.flags.target });
  try {
    await runCockpit({ session, initialScreen: config ? 'config' : 'runs', splash });
  } finally {
    splash.close();
    await session.close();
    await Promise.all(connections.map((c) => c.transport.close().catch(() => {})));
  }
  for (const f of failures) process.stderr.write(`awrl-tui: ${f}\n`);
  return EXIT.ok;
}
