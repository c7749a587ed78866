// The cockpit's public face. Commands (cockpit, watch, --demo) build a Session and call runCockpit.
export type * from '../session/types.js';
export type { ScreenId } from './keys.js';
export { StaticSession, emptyState } from '../session/static-session.js';
export { ArraySeries } from '../session/array-series.js';
export { sampleRunView, sampleStats } from '../session/sample-run.js';
export { notInteractiveReason } from './tty.js';
export {
  LiveSession,
  createLiveSession,
  type LiveSessionOptions,
  type TargetConnection,
  type GpuPollerFactory,
} from '../session/live-session.js';

import type { ScreenId } from './keys.js';
import type { Session } from '../session/types.js';
import type { Splash } from './chrome.js';
import type { ImageChoice } from '../images/detect.js';
export { openSplash, type Splash } from './chrome.js';

export interface CockpitOptions {
  session: Session;
  /** From openSplash(): the first frame already painted before the heavy modules loaded. */
  splash?: Splash;
  initialScreen?: ScreenId;
  /** How screenshots are drawn (kitty placeholders, else half-blocks). */
  images?: ImageChoice;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** Open the cockpit and resolve when the user quits. Never stops a run. */
export async function runCockpit(opts: CockpitOptions): Promise<void> {
  // React picks its build when first imported: make sure it is the production one (no dev-only
  // bookkeeping growing over a days-long session).
  process.env.NODE_ENV ??= 'production';
  const { renderCockpit } = await import('./render.js');
  await renderCockpit(opts);
}
