// The incremental form the cockpit keeps for days: fed events as they are parsed, asked for alerts at
// any `now`. Everything it holds is bounded (fixed windows, a few scalars).
import type { Alert } from './alert.js';
import { DriftTracker } from './drift.js';
import { PhaseTracker, type CurrentPhase, type HealthEvent } from './phases.js';
import { noteResumeStaleness, resumeAlerts, resumeOwnsStaleness, type ResumeState } from './resume-guard.js';
import { STALL_MIN_SAMPLES, stallAlert } from './stall.js';
import { naiveMs, toNaiveMs } from './time.js';
import { stepValue } from '../trainer-log/stats-shapes.js';
import { firstLogged, STALENESS_MAX_KEYS } from '../metrics/stat-keys.js';
import { wallTimeAlert } from './walltime.js';
import { RecentWindow } from './window.js';

export interface HealthContext {
  /** The present: a Date or epoch ms (an instant), or an ISO string (zone-less = the trainer's local
   *  time). Naive ms (time.ts) with utcOffsetMinutes 0 are taken as they are. */
  now: Date | string | number;
  /** rollout.max_head_offpolicyness, for the post-resume staleness check. */
  maxHeadOffpolicyness?: number;
  /** recover.freq_secs; the wall-time rule needs it. */
  recoverFreqSecs?: number;
  /** End of the Slurm allocation (squeue %e / scontrol EndTime: zone-less local time, or a Date). */
  slurmEndTime?: Date | string;
  /** The trainer machine's UTC offset, to place a Date `now` on the log's local clock (default: ours). */
  utcOffsetMinutes?: number;
}

export class HealthMonitor {
  private readonly phases = new PhaseTracker();
  private readonly drift = new DriftTracker();
  private readonly stepGaps = new RecentWindow(256);
  private lastStepMs: number | null = null;
  /** The latest step or restart record (naive ms): a step is awaited since then. */
  private awaitingStepSinceMs: number | null = null;
  private resume: ResumeState | null = null;
  /** The latest `staleness/gap/offpolicy_max` value logged (a step lacking it, or nan, keeps the
   *  one before): what the attempt stood at when a resume comes. */
  private lastStaleness: number | null = null;
  private lastCheckpointMs: number | null = null;
  private lastCheckpointStep: number | undefined;
  private finished = false;

  ingest(e: HealthEvent): void {
    this.phases.ingest(e);
    const t = 'time' in e ? naiveMs(e.time) : null;
    switch (e.type) {
      case 'step': {
        // Step time = gap between consecutive step records of the same process.
        if (t !== null && this.lastStepMs !== null && t >= this.lastStepMs) this.stepGaps.push(t - this.lastStepMs);
        if (t !== null) this.lastStepMs = this.awaitingStepSinceMs = t;
        // A train step after the end record: a new attempt runs (with or without a Recover record).
        this.finished = false;
        this.drift.ingestStep(e);
        const r = this.resume;
        if (r && e.globalStep >= r.resumeStep) r.progressed = true;
        // As the metrics rule reads it (store.current): a number that is not nan, inf included.
        const s = firstLogged(STALENESS_MAX_KEYS, (k) => stepValue(e, k))?.value;
        if (typeof s === 'number' && !Number.isNaN(s)) {
          this.lastStaleness = s;
          if (r) noteResumeStaleness(r, s, e.globalStep);
        }
        return;
      }
      case 'start':
      case 'resume':
        this.lastStepMs = null; // the restart gap is not a step time
        if (t !== null) this.awaitingStepSinceMs = t;
        this.finished = false;
        if (t !== null) {
          // The recover timer starts with the process; what was saved before is on disk.
          this.lastCheckpointMs = t;
          if (e.type === 'resume') this.lastCheckpointStep = e.resumeStep - 1;
        }
        if (e.type === 'resume' && t !== null) {
          this.resume = {
            resumeStep: e.resumeStep,
            atMs: t,
            progressed: false,
            worstStaleness: null,
            latestStaleness: null,
            minStaleness: Infinity,
            stalenessBefore: this.lastStaleness,
          };
        }
        // A fresh start (no recover info) is not a resume: the one before no longer speaks.
        if (e.type === 'start') this.resume = null;
        return;
      case 'save':
        if (t !== null) this.lastCheckpointMs = t;
        // `step=N` is the 0-based global step being saved = 1-based step N+1.
        if (e.step !== undefined) this.lastCheckpointStep = e.step + 1;
        return;
      case 'error':
        if (e.source === undefined || e.source === 'main') this.lastStepMs = null;
        return;
      case 'finished':
        this.finished = true;
        return;
      default:
        return;
    }
  }

  ingestAll(events: Iterable<HealthEvent>): void {
    for (const e of events) this.ingest(e);
  }

  /** What the trainer is doing now, for the cockpit's status line. */
  currentPhase(): CurrentPhase | null {
    return this.phases.phase;
  }

  medianStepSeconds(): number | null {
    const m = this.stepGaps.median();
    return m === null ? null : m / 1000;
  }

  /**
   * Whether these rules judge a hang now, so the metrics room's whole-step stall rule must defer
   * (one hang, one alert). They know more whenever they can speak: right after a resume with a step
   * time known (the resume guard: the new attempt has not made a step), or when the phase in
   * progress has a history in this run (the phase stall: where it is stuck and the likely cause).
   * Decided from the records alone, not from whether an alert fires yet, so the owner of a hang
   * never changes while it lasts (which would show one hang as a cleared alert plus a new one).
   */
  judgesStall(): boolean {
    if (this.finished) return false;
    if (this.resumeOwnsHang()) return true;
    const cur = this.phases.phase;
    return cur !== null && this.phases.stats(cur.phase).samples >= STALL_MIN_SAMPLES;
  }

  /**
   * Whether the resume guard owns the staleness above `budget` now (every step since the resume
   * over it, the attempt before within it), so the metrics room's steady-staleness rule must defer:
   * one condition, one alert. See resume-guard.ts.
   */
  judgesStaleness(budget: number | undefined): boolean {
    return resumeOwnsStaleness(this.resume, budget);
  }

  /** After a resume, until its first step: the resume guard speaks for a hang (it knows the attempt
   *  never got going), naming the phase; the phase stall defers to it. */
  private resumeOwnsHang(): boolean {
    return this.resume !== null && !this.resume.progressed && !this.finished && this.medianStepSeconds() !== null;
  }

  evaluate(ctx: HealthContext): Alert[] {
    const nowMs = toNaiveMs(ctx.now, ctx.utcOffsetMinutes);
    if (nowMs === null) throw new TypeError(`health: 'now' is not a time: ${String(ctx.now)}`);
    const medianStepS = this.medianStepSeconds();
    const out: Alert[] = [];
    if (!this.finished && !this.resumeOwnsHang()) {
      const stall = stallAlert(this.phases, nowMs, { sinceMs: this.awaitingStepSinceMs, medianS: medianStepS });
      if (stall) out.push(stall);
    }
    out.push(
      ...resumeAlerts(this.resume, nowMs, medianStepS, this.finished, ctx.maxHeadOffpolicyness, this.phases.phase),
    );
    if (
      !this.finished &&
      ctx.slurmEndTime !== undefined &&
      ctx.recoverFreqSecs !== undefined &&
      ctx.recoverFreqSecs > 0
    ) {
      const endMs = toNaiveMs(ctx.slurmEndTime, ctx.utcOffsetMinutes);
      if (endMs !== null) {
        const a = wallTimeAlert({
          nowMs,
          endMs,
          recoverFreqSecs: ctx.recoverFreqSecs,
          lastCheckpointMs: this.lastCheckpointMs,
          ...(this.lastCheckpointStep !== undefined ? { lastCheckpointStep: this.lastCheckpointStep } : {}),
          medianStepS,
          ...(this.phases.phase?.step !== undefined ? { stepInProgress: this.phases.phase.step } : {}),
        });
        if (a) out.push(a);
      }
    }
    out.push(...this.drift.alerts());
    return out;
  }
}

/** One-shot form: all events so far, evaluated at `ctx.now`. */
export function evaluateHealth(events: Iterable<HealthEvent>, ctx: HealthContext): Alert[] {
  const m = new HealthMonitor();
  m.ingestAll(events);
  return m.evaluate(ctx);
}
