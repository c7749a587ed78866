// The one way the interactive commands (`awrl-tui`, `awrl-tui watch RUN`) open the cockpit: paint
// the splash at once, connect the targets behind it (the transport and the session load only
// then), open the cockpit on the chosen screen, and on the way out close the session and every
// connection. The splash is closed on every path, so a failure leaves a clean terminal and one
// CliError.
import { CliError, EXIT } from './errors.js';
import { openSplash } from '../ui/chrome.js';
import type { ScreenId } from '../ui/keys.js';
import type { CockpitFlags } from '../ui/cockpit-args.js';
import type { LiveSessionOptions } from '../session/live-session.js';
import { boundDashboardHeap } from '../session/dashboard-heap.js';
import type { ImageChoice } from '../images/detect.js';

export interface CockpitFlow {
  /** Target flags as parsed (with the cockpit's own, e.g. --check-nodes), handed to resolveTargets. */
  flags: CockpitFlags;
  /** The screen the splash paints and the cockpit opens on. */
  screen: ScreenId;
  /** Refuse (exit 2) when a --workdir given on the command line does not exist on a target. */
  checkWorkdir?: boolean;
  /** What the splash says while connecting. */
  connecting: string;
  /** When set, no target at all is this error (watch has nowhere to look for its run). */
  noTargets?: string;
  /** Open even when no target could be connected (the Runs screen says why for each, `r` retries). */
  openDisconnected?: boolean;
  /** How screenshots are drawn (`--images`, detected). */
  images?: ImageChoice;
  /** The session's options besides the connections. */
  session: Omit<LiveSessionOptions, 'targets'>;
}

/** Connect, run the cockpit until the user quits; returns the targets that could not be reached. */
export async function openCockpitBehindSplash(flow: CockpitFlow): Promise<{ failures: string[]; targets: number }> {
  // Before any burst: the heap stays near what the dashboard holds (dashboard-heap.ts).
  boundDashboardHeap();
  const splash = openSplash(process.stdout, flow.screen, flow.connecting);
  const { resolveTargets, connectTargets } = await import('../ui/connect.js');
  let connections: Awaited<ReturnType<typeof connectTargets>>['connections'] = [];
  let failures: string[] = [];
  let count = 0;
  try {
    const targets = await resolveTargets(flow.flags).catch((err: Error) => {
      throw new CliError(err.message, EXIT.usage);
    });
    if (targets.length === 0 && flow.noTargets) throw new CliError(flow.noTargets, EXIT.usage);
    count = targets.length;
    ({ connections, failures } = await connectTargets(targets, { keepWhenNoneConnected: flow.openDisconnected }));
    if (targets.length > 0 && connections.length === 0)
      throw new CliError(`cannot connect: ${failures.join('; ')}`, EXIT.disconnected);
    // `watch RUN --target T --workdir W`: a W that is not there is said (exit 2), not shown as "no runs".
    if (flow.checkWorkdir && flow.flags.workdir !== undefined) await workdirsExist(connections);
    // A host-key or passphrase question may have written over the splash.
    splash.painter.invalidate();
    splash.status('loading…');
  } catch (err) {
    splash.close();
    throw err;
  }
  const { createLiveSession } = await import('../session/live-session.js');
  const { runCockpit } = await import('../ui/index.js');
  const session = createLiveSession({ ...flow.session, targets: connections });
  try {
    await runCockpit({ session, initialScreen: flow.screen, splash, ...(flow.images ? { images: flow.images } : {}) });
  } finally {
    splash.close();
    await session.close();
    if (session.farewell) process.stderr.write(`awrl-tui: ${session.farewell}\n`);
    await Promise.all(connections.map((c) => c.transport.close().catch(() => {})));
  }
  return { failures, targets: count };
}

async function workdirsExist(
  connections: Array<{ target: { name: string; workdir: string }; transport: { stat(p: string): Promise<unknown> } }>,
): Promise<void> {
  for (const c of connections) {
    if ((await c.transport.stat(c.target.workdir).catch(() => 'unknown')) === null) {
      await Promise.all(
        connections.map((x) => (x.transport as { close?: () => Promise<void> }).close?.().catch(() => {})),
      );
      throw new CliError(
        `workdir ${c.target.workdir} does not exist on ${c.target.name}: give --workdir the AsyncWebRL checkout there`,
        EXIT.usage,
        { code: 'workdir-missing' },
      );
    }
  }
}
