// Every alert rule of one run (the metrics room's, the health room's, the error lifecycle) over its
// records, with the alert history kept on the LOG's clock. The cockpit and `follow` both use it, so
// they agree on what is active and when it fired.
//
// Why record by record: a cockpit attaching in the morning backfills the night's log in one burst.
// Evaluated once at the end, everything that fired and cleared in the night is lost and what is left
// is dated by our clock. Here the rules are asked just BEFORE each record, at its time (what the gap
// since the previous record crossed: a stall), and just AFTER it (what the record raised or cleared),
// so the history holds the night's fired/cleared pairs at the record timestamps and steps. A
// time-driven alert found at a record is dated back to the moment its threshold was crossed, by
// bisection between the two observations. Live, "now" is the latest record's time plus the wall time
// since it arrived: the same scale, whatever the target's zone. A record read long after it was
// written (attaching to a run that hung at 02:00, at 09:00) counts as arriving when the log was last
// written, once the caller knows it (`logWrittenAt`, from the file's mtime as an age on the target's
// own clock): the hang is seen at the first evaluation, not 3x the median step after attaching.
// Pure; bounded (the history's cap).
import { ErrorAlertTracker, stallAlert, stepAlerts, type Alert } from '../metrics/alerts.js';
import type { MetricsStore } from '../metrics/store.js';
import { evalAlerts } from '../metrics/eval-history.js';
import { AlertHistory, alertHistoryKey, ALERT_HISTORY_CAP } from './alert-history.js';
import { HealthMonitor } from './monitor.js';
import type { HealthEvent } from './phases.js';
import { displayMs, formatDuration, naiveMs } from './time.js';
import { adoptState } from './state-graph.js';

export interface RunAlertsOptions {
  consumerBatchSize?: number;
  maxHeadOffpolicyness?: number;
  recoverFreqSecs?: number;
  /** actor.behav_imp_weight_cap (null: none set; absent: not known here). */
  behavImpWeightCap?: number | null;
  historyCap?: number;
}

/** The alerts that say the run is hung (no step coming). */
export function isHangAlert(a: Alert): boolean {
  return a.id === 'stall' || a.id.startsWith('health/stall/') || a.id === 'health/resume/no-progress';
}

/** How precisely a time-driven alert's start is dated (ms). */
const DATING_PRECISION_MS = 1000;

export class RunAlerts {
  readonly health = new HealthMonitor();
  readonly history: AlertHistory;
  private readonly errors = new ErrorAlertTracker();
  /** Naive ms (time.ts) of the latest record time, and the wall clock when that record arrived. */
  private lastLogMs: number | null = null;
  private lastArrivalWall = 0;
  /** Wall time since the latest arrival during which the log could not be read (`unobserved`). */
  private unobservedCreditMs = 0;
  private unobservedSince: number | null = null;
  /** Naive ms of the latest observation. */
  private observedAt: number | null = null;
  private ended = false;
  private current: Alert[] = [];
  private stepMemo: {
    version: number;
    budget: number | undefined;
    cap: number | null | undefined;
    stalenessJudgedElsewhere: boolean;
    alerts: readonly Alert[];
  } | null = null;
  /** The Slurm job's end, for the wall-time rule (null: not a Slurm job, or not known yet). */
  private slurmEndTime: string | null = null;

  constructor(
    readonly store: MetricsStore,
    private o: RunAlertsOptions = {},
  ) {
    this.history = new AlertHistory(o.historyCap ?? ALERT_HISTORY_CAP);
  }

  /** The run's config facts once known (RunWatch reads the config while its follower starts, and
   *  hands no record on before this). */
  setConfigFacts(
    f: Pick<RunAlertsOptions, 'consumerBatchSize' | 'maxHeadOffpolicyness' | 'recoverFreqSecs' | 'behavImpWeightCap'>,
  ): void {
    this.o = { ...this.o, ...f };
  }

  /**
   * One record, read at wall-clock `arrivedWall` (this feeds the store and the health monitor: do
   * not ingest it there too). Returns the alerts that fired around it, in the order they fired.
   */
  ingest(e: HealthEvent, arrivedWall: number): Alert[] {
    const fired = this.arriving(e);
    if (e.type !== 'save') this.store.ingest(e);
    fired.push(...this.read(e, arrivedWall));
    return fired;
  }

  /**
   * For a caller that feeds the store itself (src/watch's RunWatch): the rules look just BEFORE the
   * record, at its time, on the store as it was (what the gap since the previous record crossed).
   * Then the caller stores the record and calls `read`.
   */
  arriving(e: HealthEvent): Alert[] {
    const fired: Alert[] = [];
    // A restarted trainer's first word: the gap before it is the downtime between two attempts (a
    // crash, a requeue, a resume hours later), not a phase that ran on. Its look is `read`'s.
    if (e.type === 'resume' || e.type === 'start') return fired;
    const t = 'time' in e ? naiveMs(e.time) : null;
    if (t !== null && this.observedAt !== null && t > this.observedAt) this.observe(t, false, fired);
    return fired;
  }

  /** The record is in the store (see `arriving`): the other rules take it, and the rules look
   *  again just after it. Returns what fired. */
  read(e: HealthEvent, arrivedWall: number): Alert[] {
    const fired: Alert[] = [];
    const t = 'time' in e ? naiveMs(e.time) : null;
    if (e.type !== 'save') this.errors.ingest(e);
    this.health.ingest(e);
    // Every timed record re-anchors the log clock, an earlier one too: a log whose clock fell behind
    // ours (a record that arrived late, a trainer that was paused) is judged on ITS clock, or the
    // time it lagged would read as a stall. The history's times never go back (AlertHistory).
    if (t !== null) {
      this.lastLogMs = t;
      this.lastArrivalWall = arrivedWall;
      this.unobservedCreditMs = 0;
    }
    // A record without a time (an error whose header was cut) counts as happening at the latest time.
    const at = t ?? this.observedAt ?? this.lastLogMs;
    if (at !== null) this.observe(at, false, fired);
    return fired;
  }

  /**
   * The Slurm job's end (squeue %e / scontrol EndTime: zone-less cluster local time, the log's own
   * clock), so the wall-time rule runs here like every other rule (record by record, in the
   * history); null when the run is not a Slurm job or its end is not known. Takes effect at the next
   * observation.
   */
  setSlurmEndTime(end: string | null): void {
    this.slurmEndTime = end;
  }

  /** The run has ended (its state says so): no step is coming, so the clock's looks find no hang.
   *  A look at a record still judges the gap before it: the log's own time says the run hung
   *  there, whether or not anyone watched (an ended run's replay tells what its follow told). */
  setEnded(ended: boolean): void {
    this.ended = ended;
  }

  /**
   * The log was last written at wall-clock `wallMs` (our clock: its mtime taken as an age on the
   * target's clock, so neither zone nor skew enters), and every record ingested so far was in the
   * file by then (the caller checks: it read no byte past the size it saw). The latest record was
   * written no later, so it counts as having arrived then: the silence before we read it is part of
   * the wait. Never moves the arrival later (a live record that arrived before is not made newer).
   * Returns whether it moved.
   */
  logWrittenAt(wallMs: number): boolean {
    if (this.lastLogMs === null || !Number.isFinite(wallMs) || wallMs >= this.lastArrivalWall) return false;
    this.lastArrivalWall = wallMs;
    // Measured on the log itself: its silence is a fact, time we could not see included.
    this.unobservedCreditMs = 0;
    return true;
  }

  /**
   * The log cannot be read from wall-clock `wallMs` on (the connection is down; a Slurm job waits
   * in the queue): until `observed`, the time that passes is not the trainer's silence, so no
   * stall, resume-guard or wall-time alert can grow from it. Afterwards silence is judged on what
   * the log shows: the records that arrive (their own times) and, once the caller measured it,
   * the log's mtime (`logWrittenAt`).
   */
  unobserved(wallMs: number): void {
    if (this.unobservedSince === null) this.unobservedSince = wallMs;
  }

  /** The log can be read again from wall-clock `wallMs` (see `unobserved`). */
  observed(wallMs: number): void {
    const since = this.unobservedSince;
    if (since === null) return;
    this.unobservedSince = null;
    this.unobservedCreditMs += Math.max(0, wallMs - Math.max(since, this.lastArrivalWall));
  }

  /** Now on the log's clock (naive ms): the latest record's time plus the wall time since it
   *  arrived, less the time the log could not be read. */
  logNow(wallMs: number): number | null {
    if (this.lastLogMs === null) return null;
    const upTo =
      this.unobservedSince === null ? wallMs : Math.min(wallMs, Math.max(this.unobservedSince, this.lastArrivalWall));
    return this.lastLogMs + Math.max(0, upTo - this.lastArrivalWall - this.unobservedCreditMs);
  }

  /** The alerts active at wall-clock `wallMs` (observed into the history); `fired` receives the ones
   *  that fired since the last observation. */
  evaluate(wallMs: number, fired?: Alert[]): Alert[] {
    const now = this.logNow(wallMs);
    if (now === null) return this.current;
    this.observe(now, true, fired);
    return this.current;
  }

  /** The rules' state as a snapshot left it (src/watch/watch-snapshot.ts: made by replaying the same
   *  records), read at `arrivedWall` (what a backfill says its records arrived at). What this
   *  watch set itself stays: its store (restored apart), its facts, the run's end, the Slurm job's
   *  end, the time the log could not be read. */
  adoptState(from: RunAlerts, arrivedWall: number): void {
    const keep = ['store', 'o', 'ended', 'slurmEndTime', 'unobservedSince', 'lastArrivalWall', 'unobservedCreditMs'];
    adoptState<RunAlerts>(this, from, keep);
    // As `read` leaves them after a timed record that arrived at `arrivedWall`.
    if (this.lastLogMs !== null) {
      this.lastArrivalWall = arrivedWall;
      this.unobservedCreditMs = 0;
    }
  }

  /** The alerts as of the last observation. */
  get active(): readonly Alert[] {
    return this.current;
  }

  /** Whether `a`, no longer standing, ended with the run rather than cleared (AlertHistoryEntry). */
  endedWithRun(a: Alert): boolean {
    return this.history.endedWithRun(alertHistoryKey(a));
  }

  /** Every rule at log time `t` (naive ms), on the records read so far; `byClock`: a look at the
   *  clock (an ended run's: no hang), not at a record. */
  private alertsAt(t: number, byClock: boolean): Alert[] {
    const metric = this.stepRules(this.health.judgesStaleness(this.o.maxHeadOffpolicyness));
    const stall =
      this.health.judgesStall() || this.errors.failedSinceRestart ? null : stallAlert(this.store, { now: t });
    if (stall) metric.push(stall);
    const health = this.health.evaluate({
      now: t,
      utcOffsetMinutes: 0,
      maxHeadOffpolicyness: this.o.maxHeadOffpolicyness,
      recoverFreqSecs: this.o.recoverFreqSecs,
      ...(this.slurmEndTime !== null ? { slurmEndTime: this.slurmEndTime } : {}),
    });
    const all = [...metric, ...this.errors.alerts(), ...health, ...evalAlerts(this.store.evals, t)];
    if (this.ended && byClock) return all.filter((a) => !isHangAlert(a));
    return this.withSilence(all, t);
  }

  /** The step rules' answer (evaluateAlerts without its stall rule), asked again only when the
   *  store's steps or what they are judged by changed: most records (memory, batch, warnings)
   *  change neither, and the rules are asked at each of them, twice. */
  private stepRules(stalenessJudgedElsewhere: boolean): Alert[] {
    const budget = this.o.maxHeadOffpolicyness;
    const cap = this.o.behavImpWeightCap;
    const m = this.stepMemo;
    if (
      m === null ||
      m.version !== this.store.rulesVersion ||
      m.budget !== budget ||
      m.cap !== cap ||
      m.stalenessJudgedElsewhere !== stalenessJudgedElsewhere
    ) {
      const ctx = { maxHeadOffpolicyness: budget, stalenessJudgedElsewhere, behavImpWeightCap: cap };
      const alerts = stepAlerts(this.store, ctx);
      this.stepMemo = { version: this.store.rulesVersion, budget, cap, stalenessJudgedElsewhere, alerts };
      return [...alerts];
    }
    return [...m.alerts];
  }

  /** A hang alert says how long the log has been silent (since its latest record, on the log's
   *  clock): what a user attaching to a hung run checks first, and what tells a hang from a slow
   *  phase that still writes. */
  private withSilence(alerts: Alert[], t: number): Alert[] {
    const silentS = this.lastLogMs === null ? 0 : (t - this.lastLogMs) / 1000;
    if (silentS < 1) return alerts;
    return alerts.map((a) =>
      isHangAlert(a) ? { ...a, detail: `${a.detail}; the log has been silent for ${formatDuration(silentS)}` } : a,
    );
  }

  private observe(t: number, byClock: boolean, fired?: Alert[]): void {
    const alerts = this.alertsAt(t, byClock);
    let firedAt: Map<string, number> | undefined;
    const from = this.observedAt;
    if (from !== null && t !== from) {
      for (const a of alerts) {
        const key = alertHistoryKey(a);
        if (this.history.isActive(key)) continue;
        // Later than the last look: dated where its threshold was crossed. Earlier (a record that
        // arrived late, e.g. an error closed only when the run's end was read): at the record.
        (firedAt ??= new Map()).set(key, displayMs(t > from ? this.firstActive(key, from, t, byClock) : t));
      }
    }
    // A hang that stops standing because the run is over (its state says it ended, or an error since
    // the last restart says the trainer failed) ended with the run: no step came to clear it.
    const over = (this.ended && byClock) || this.errors.failedSinceRestart;
    this.history.observe(alerts, displayMs(t), firedAt, fired, over ? isHangAlert : undefined);
    this.observedAt = t;
    this.current = alerts;
  }

  /** The earliest time in (from, to] at which `key` is active: the rules are monotone between two
   *  records (nothing changes but the clock), so a bisection finds where the threshold was crossed. */
  private firstActive(key: string, from: number, to: number, byClock: boolean): number {
    let lo = from;
    let hi = to;
    while (hi - lo > DATING_PRECISION_MS) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.alertsAt(mid, byClock).some((a) => alertHistoryKey(a) === key)) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}
