// A silent sentinel is an alert of the attached watch (`follow`, the cockpit): raised when the run's
// sentinel stops beating while its run runs, cleared when a heartbeat comes again. It goes through
// the watch's own alert path (src/watch/outside-alerts.ts), so it reaches the notifications like any
// other; the attached watch sends it itself (the silent sentinel cannot), and its clear too, even
// once a sentinel beats again and sends the rest (sentinelQuiets).
import type { Alert } from '../metrics/index.js';
import type { NotifyEvent } from '../notify/index.js';
import { sentinelText, type SentinelView } from '../runs/sentinel-status.js';
import { shellQuote } from '../remote/quote.js';

export const SENTINEL_SILENT_ALERT_ID = 'sentinel-silent';

/** The alert for the sentinel as the run dir shows it (null: it beats, stopped, or there is none);
 *  `target`: the target's name as `--target` takes it. */
export function sentinelSilentAlert(v: SentinelView, runId: string, target = 'TARGET'): Alert | null {
  if (v.state !== 'silent') return null;
  return {
    id: SENTINEL_SILENT_ALERT_ID,
    severity: 'warning',
    title: "the run's sentinel is silent",
    // Only what is known: silent is no beat for two periods (its process may be alive and stuck,
    // or gone), and other cockpits may be attached; what is known is that no sentinel is seen.
    detail: `${sentinelText(v)}; no sentinel is seen watching the run: once this watch detaches, it may go unwatched`,
    advice: `start another: awrl-tui sentinel start ${runId} --target ${shellQuote(target)}`,
    ...(v.heartbeatAt ? { time: v.heartbeatAt } : {}),
  };
}

/** Whether an attached watch keeps `e` from its channels: while the sentinel sends, everything but
 *  the sentinel's own silence (which only the attached watch knows and tells). */
export function sentinelQuiets(sending: boolean, e: NotifyEvent): boolean {
  return sending && e.alertId !== SENTINEL_SILENT_ALERT_ID;
}
