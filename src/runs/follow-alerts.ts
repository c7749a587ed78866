// Alerts for `--launch --follow`: the run-health rules (src/health) and the metric rules
// (src/metrics) over the same events the follower prints, each alert reported once, when it first
// appears (deduplicated by id). Events are evaluated as they arrive (on the log's own clock); a stall
// shows no events at all, so the caller also asks on a timer. The timer's "now" is the last record's
// log time plus the wall time since it arrived: the target's clock and zone never enter (a zone
// difference would otherwise read as hours of stall).
import { HealthMonitor, naiveMs, type HealthContext } from '../health/index.js';
import { MetricsStore, evaluateAlerts, type Alert } from '../metrics/index.js';
import type { TrainerEvent } from '../trainer-log/index.js';

export interface FollowAlertsOptions {
  /** rollout.max_head_offpolicyness (staleness rules). */
  maxHeadOffpolicyness?: number;
  /** recover.freq_secs (Slurm wall-time rule, with slurmEndTime). */
  recoverFreqSecs?: number;
}

/** Ids seen are kept so each alert is reported once; a run produces a handful, bounded anyway. */
const MAX_SEEN = 10_000;

export class FollowAlerts {
  private readonly health = new HealthMonitor();
  private readonly store = new MetricsStore({ capacity: 256 });
  private readonly seen = new Set<string>();
  private errors = 0;
  private lastTime: string | null = null;
  /** Wall-clock ms when the event carrying lastTime arrived. */
  private lastArrivalMs = 0;

  constructor(private readonly opts: FollowAlertsOptions = {}) {}

  /** Feeds one event (arrived at wall-clock `arrivedMs`); returns the alerts that appear for the first time. */
  push(e: TrainerEvent, arrivedMs: number = Date.now()): Alert[] {
    this.health.ingest(e);
    this.store.ingest(e);
    if (e.time && naiveMs(e.time) !== null) {
      this.lastTime = e.time;
      this.lastArrivalMs = arrivedMs;
    }
    const found: Alert[] = [];
    // The metric rules number error alerts by their index in the list they are given: renumber them
    // by the run's error count, so every error gets its own id.
    for (const a of evaluateAlerts(this.store, e.type === 'error' ? [e] : [], this.ctxMetrics())) {
      found.push(a.id === 'error:0' ? { ...a, id: `error:${this.errors}` } : a);
    }
    if (e.type === 'error') this.errors++;
    if (this.lastTime) found.push(...this.health.evaluate(this.ctxHealth(this.lastTime)));
    return this.fresh(found);
  }

  /** Re-evaluates the time-based rules (stalls, resume guard) at wall-clock `wallMs`. */
  tick(wallMs: number = Date.now()): Alert[] {
    if (this.lastTime === null) return [];
    const logNow = naiveMs(this.lastTime)! + Math.max(0, wallMs - this.lastArrivalMs);
    return this.fresh(this.health.evaluate(this.ctxHealth(new Date(logNow).toISOString().slice(0, 23))));
  }

  private ctxMetrics() {
    return this.opts.maxHeadOffpolicyness !== undefined ? { maxHeadOffpolicyness: this.opts.maxHeadOffpolicyness } : {};
  }

  private ctxHealth(now: Date | string): HealthContext {
    return {
      now,
      ...(this.opts.maxHeadOffpolicyness !== undefined ? { maxHeadOffpolicyness: this.opts.maxHeadOffpolicyness } : {}),
      ...(this.opts.recoverFreqSecs !== undefined ? { recoverFreqSecs: this.opts.recoverFreqSecs } : {}),
    };
  }

  private fresh(alerts: Alert[]): Alert[] {
    const out: Alert[] = [];
    for (const a of alerts) {
      if (this.seen.has(a.id) || this.seen.size >= MAX_SEEN) continue;
      this.seen.add(a.id);
      out.push(a);
    }
    return out;
  }
}

/** `{"type":"alert",...}`: one JSON line, next to the event lines of `--follow --json`. */
export function alertJsonLine(a: Alert): string {
  return JSON.stringify({ type: 'alert', id: a.id, severity: a.severity, title: a.title, detail: a.detail, advice: a.advice, ...(a.step !== undefined ? { step: a.step } : {}), ...(a.time !== undefined ? { time: a.time } : {}) });
}

/** `alert: [warning] title: detail (advice)` for humans. */
export function alertLine(a: Alert): string {
  return `alert: [${a.severity}] ${a.title}${a.detail ? `: ${a.detail}` : ''}${a.advice ? ` → ${a.advice}` : ''}`;
}
