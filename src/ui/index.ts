// The cockpit's public face. Commands (cockpit, watch, --demo) build a Session and call runCockpit.
export type * from './session/types.js';
export type { ScreenId } from './keys.js';
export { StaticSession, emptyState } from './session/static-session.js';
export { ArraySeries } from './session/array-series.js';
export { sampleRunView, sampleStats } from './session/sample-run.js';

import type { ScreenId } from './keys.js';
import type { Session } from './session/types.js';

export interface CockpitOptions {
  session: Session;
  initialScreen?: ScreenId;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** Why the cockpit cannot open here, or null when stdin and stdout are a terminal. */
export function notInteractiveReason(stdin: { isTTY?: boolean } = process.stdin, stdout: { isTTY?: boolean } = process.stdout): string | null {
  if (stdin.isTTY && stdout.isTTY) return null;
  const which = !stdin.isTTY ? 'stdin' : 'stdout';
  return (
    `the cockpit needs a terminal, but ${which} is not one. ` +
    "Use the headless commands instead: 'awrl-tui runs --target T', 'awrl-tui --launch --target T --config FILE --follow', " +
    "'awrl-tui parse FILE --json', 'awrl-tui config check FILE' (see 'awrl-tui --help')."
  );
}

/** Open the cockpit and resolve when the user quits. Never stops a run. */
export async function runCockpit(opts: CockpitOptions): Promise<void> {
  // React picks its build when first imported: make sure it is the production one (no dev-only
  // bookkeeping growing over a days-long session).
  process.env.NODE_ENV ??= 'production';
  const { renderCockpit } = await import('./render.js');
  await renderCockpit(opts);
}
