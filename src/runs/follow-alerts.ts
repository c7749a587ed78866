// Alerts for `--launch --follow` and `follow`: the same rules as the cockpit (RunAlerts: the metric
// rules, the run-health rules, the error lifecycle, one alert per hang) over the same events the
// follower prints. An alert is reported when it FIRES (goes from not active to active): a second
// hang, or an error after a recovered one, is reported again; one still standing is not repeated.
// Events are evaluated as they arrive, on the log's own clock; a stall shows no events at all, so
// the caller also asks on a timer. The timer's "now" is the last record's log time plus the wall
// time since it arrived: the target's clock and zone never enter (a zone difference would otherwise
// read as hours of stall).
import { RunAlerts } from '../health/index.js';
import { MetricsStore, type Alert } from '../metrics/index.js';
import type { TrainerEvent } from '../trainer-log/index.js';

export interface FollowAlertsOptions {
  /** rollout.max_head_offpolicyness (staleness rules). */
  maxHeadOffpolicyness?: number;
  /** recover.freq_secs (Slurm wall-time rule, with slurmEndTime). */
  recoverFreqSecs?: number;
}

export class FollowAlerts {
  private readonly alerts: RunAlerts;
  /** The alerts standing at the last takeCleared, by id. */
  private standing = new Map<string, Alert>();

  constructor(opts: FollowAlertsOptions = {}) {
    this.alerts = new RunAlerts(new MetricsStore({ capacity: 256 }), {
      ...(opts.maxHeadOffpolicyness !== undefined ? { maxHeadOffpolicyness: opts.maxHeadOffpolicyness } : {}),
      ...(opts.recoverFreqSecs !== undefined ? { recoverFreqSecs: opts.recoverFreqSecs } : {}),
    });
  }

  /** Feeds one event (arrived at wall-clock `arrivedMs`); returns the alerts that fired with it. */
  push(e: TrainerEvent, arrivedMs: number = Date.now()): Alert[] {
    return this.alerts.ingest(e, arrivedMs);
  }

  /** Re-evaluates the time-based rules (stalls, resume guard) at wall-clock `wallMs`. */
  tick(wallMs: number = Date.now()): Alert[] {
    const fired: Alert[] = [];
    this.alerts.evaluate(wallMs, fired);
    return fired;
  }

  /** The alerts standing as of the last push or tick. */
  get active(): readonly Alert[] {
    return this.alerts.active;
  }

  /** The alerts that stood at the previous call, or fired since (`fired`: what push or tick
   *  returned), and no longer stand: a script that acted on an alert learns when it is over (a
   *  reward back above 0, a stall ended by a step). A hang found at the record that ends it
   *  fires and clears with that one record. */
  takeCleared(fired: readonly Alert[] = []): Alert[] {
    const now = new Map(this.alerts.active.map((a) => [a.id, a]));
    const was = new Map(this.standing);
    for (const a of fired) was.set(a.id, a);
    this.standing = now;
    return [...was.values()].filter((a) => !now.has(a.id));
  }
}

/** `{"type":"alert-cleared","id":…,"title":…}`: the alert with that id no longer stands. */
export function alertClearedJsonLine(a: Alert): string {
  return JSON.stringify({ type: 'alert-cleared', id: a.id, severity: a.severity, title: a.title });
}

/** `alert cleared: title` for humans. */
export function alertClearedLine(a: Alert): string {
  return `alert cleared: ${a.title}`;
}

/** `{"type":"alert",...}`: one JSON line, next to the event lines of `--follow --json`. */
export function alertJsonLine(a: Alert): string {
  return JSON.stringify({ type: 'alert', id: a.id, severity: a.severity, title: a.title, detail: a.detail, advice: a.advice, ...(a.step !== undefined ? { step: a.step } : {}), ...(a.time !== undefined ? { time: a.time } : {}) });
}

/** `alert: [warning] title: detail (advice)` for humans. */
export function alertLine(a: Alert): string {
  return `alert: [${a.severity}] ${a.title}${a.detail ? `: ${a.detail}` : ''}${a.advice ? ` → ${a.advice}` : ''}`;
}
