// Alerts a watch tells as its own but does not judge from the log: something outside the watch
// knows them (the run's sentinel gone silent: src/sentinel/sentinel-alert.ts). Each source holds at
// most one alert and is given to the watch when it is built (RunWatchOptions.outsideAlerts); the
// watch tells its changes through the same path as the rules' alerts (`alert` / `alert-cleared`
// outputs: notifications, the cockpit's alert list and `follow` see them like any other).
import type { Alert } from '../metrics/index.js';

export class OutsideAlert {
  private current: Alert | null = null;
  private listener: ((fired: Alert | null) => void) | null = null;

  /** The alert standing now (null: none). */
  get alert(): Alert | null {
    return this.current;
  }

  /** Raises the alert (the same id again: it goes on standing, not fired twice); null clears it. */
  set(a: Alert | null): void {
    const fired = a !== null && a.id !== this.current?.id ? a : null;
    if (a === null && this.current === null) return;
    this.current = a;
    this.listener?.(fired);
  }

  /** The watch listens (one watch per source): `fired` is a new alert, null a clear or an update. */
  listen(l: (fired: Alert | null) => void): () => void {
    this.listener = l;
    return () => {
      if (this.listener === l) this.listener = null;
    };
  }
}
