// What the alerts did while nobody was looking: a bounded history per alert rule+subject. The rules
// (src/metrics, src/health) only say what is wrong NOW; an alert that fired at 03:00 and cleared at
// 03:20 is gone from their output by morning. RunAlerts (run-alerts.ts) feeds it every evaluation
// (`observe`) on the LOG's clock, record by record, so a backfilled night has its fired/cleared pairs
// at the times they happened. Pure: the caller passes `now` (any one scale; RunAlerts uses the
// trainer's local time read as this machine's, the scale the cockpit prints).
import type { Alert } from './alert.js';

export interface AlertHistoryEntry {
  /** Rule + subject (see `alertHistoryKey`). */
  key: string;
  /** The alert as last seen (its title, severity, detail and advice). */
  alert: Alert;
  /** When it was first seen (the caller's clock, ms; the log's for RunAlerts), and the alert's step then. */
  firstSeenAt: number;
  firstStep: number | null;
  /** When it was last seen active, and its step then. */
  lastSeenAt: number;
  lastStep: number | null;
  /** How many times it went from not active to active (the first time included), the last time, and
   *  the alert's step then. */
  fired: number;
  lastFiredAt: number;
  lastFiredStep: number | null;
  active: boolean;
  /** When it was first seen inactive again (null while active). */
  clearedAt: number | null;
  /** It stopped standing because the run ended (no step came to clear it: a hang the run died in),
   *  not because the trainer got past it. Never shown as "cleared", which would claim a recovery. */
  endedWithRun: boolean;
}

export const ALERT_HISTORY_CAP = 200;

/**
 * The identity of an alert across evaluations. Most rule ids already name their subject
 * (`drift:<key>`, `health/stall/<phase>`), but an error alert's id is its index in the feed's
 * event ring, which shifts as old events fall out of it: errors are told apart by time and title.
 */
export function alertHistoryKey(a: Alert): string {
  if (a.id.startsWith('error:')) return `error@${a.time ?? ''}|${a.title}`;
  return a.id;
}

export class AlertHistory {
  private readonly byKey = new Map<string, AlertHistoryEntry>();
  private list: readonly AlertHistoryEntry[] = [];
  private changed = false;
  /** Entries removed by the cap so far (the history says so). */
  private droppedCount = 0;
  /** The latest `now` observed: a later call with an earlier time (a record that arrived late) is
   *  taken as happening at this time, so no entry clears before it fired. */
  private lastNow = -Infinity;

  constructor(readonly cap = ALERT_HISTORY_CAP) {}

  /** Record one evaluation: `active` is everything the rules report now. `firedAt` dates the alerts
   *  that fire in this call when they started earlier than `now` (a threshold crossed between two
   *  observations). Returns whether the history changed (an alert fired, cleared, or moved on to
   *  another step); `fired`, when given, receives the alerts that went from not active to active.
   *  `endsWithRun`: the run is over, and an alert it matches that stops standing now ended with it. */
  observe(
    active: readonly Alert[],
    now: number,
    firedAt?: ReadonlyMap<string, number>,
    fired?: Alert[],
    endsWithRun?: (a: Alert) => boolean,
  ): boolean {
    now = Math.max(now, this.lastNow);
    this.lastNow = now;
    const seen = new Set<string>();
    let changed = false;
    for (const a of active) {
      const key = alertHistoryKey(a);
      if (seen.has(key)) continue;
      seen.add(key);
      const step = a.step ?? null;
      const e = this.byKey.get(key);
      const from = Math.min(now, firedAt?.get(key) ?? now);
      if (!e) {
        this.byKey.set(key, {
          key,
          alert: a,
          firstSeenAt: from,
          firstStep: step,
          lastSeenAt: now,
          lastStep: step,
          fired: 1,
          lastFiredAt: from,
          lastFiredStep: step,
          active: true,
          clearedAt: null,
          endedWithRun: false,
        });
        fired?.push(a);
        changed = true;
        continue;
      }
      // Only what is shown counts as a change: lastSeenAt moving on alone is not one, or every
      // frame of a long-standing alert would rebuild the history.
      if (!e.active || e.lastStep !== step || e.alert.title !== a.title || e.alert.detail !== a.detail) changed = true;
      if (!e.active) {
        e.fired++;
        e.lastFiredAt = Math.max(from, e.clearedAt ?? from);
        e.lastFiredStep = step;
        fired?.push(a);
        e.active = true;
        e.clearedAt = null;
        e.endedWithRun = false;
      }
      e.alert = a;
      e.lastSeenAt = now;
      e.lastStep = step;
    }
    for (const e of this.byKey.values()) {
      if (e.active && !seen.has(e.key)) {
        e.active = false;
        e.clearedAt = now;
        e.endedWithRun = endsWithRun?.(e.alert) ?? false;
        changed = true;
      }
    }
    if (changed) {
      this.trim();
      this.changed = true;
    }
    return changed;
  }

  /** Over the cap, the entries that cleared longest ago go first; active ones only when nothing
   *  cleared is left (hundreds of distinct active alerts: the oldest-seen go). */
  private trim(): void {
    const over = this.byKey.size - this.cap;
    if (over <= 0) return;
    const victims = [...this.byKey.values()]
      .sort(
        (x, y) => Number(x.active) - Number(y.active) || (x.clearedAt ?? x.lastSeenAt) - (y.clearedAt ?? y.lastSeenAt),
      )
      .slice(0, over);
    for (const v of victims) this.byKey.delete(v.key);
    this.droppedCount += victims.length;
  }

  /** How many entries the cap has removed (the oldest cleared first). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Whether this key is active in the history now. */
  isActive(key: string): boolean {
    return this.byKey.get(key)?.active === true;
  }

  /** Whether this key stopped standing because the run ended (see `AlertHistoryEntry.endedWithRun`). */
  endedWithRun(key: string): boolean {
    return this.byKey.get(key)?.endedWithRun === true;
  }

  /** Every entry, active ones first (the latest to fire first), then the cleared ones (most recently cleared
   *  first). Copies, rebuilt only after a change: a view may hold on to the array. */
  entries(): readonly AlertHistoryEntry[] {
    if (this.changed) {
      this.changed = false;
      this.list = [...this.byKey.values()]
        .sort(
          (x, y) =>
            Number(y.active) - Number(x.active) ||
            (x.active ? y.lastFiredAt - x.lastFiredAt : (y.clearedAt ?? 0) - (x.clearedAt ?? 0)),
        )
        .map((e) => ({ ...e }));
    }
    return this.list;
  }

  get size(): number {
    return this.byKey.size;
  }
}
