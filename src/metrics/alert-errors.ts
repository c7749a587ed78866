// The error alerts' lifecycle: when an `error` record stops being an active alert and becomes
// history (fired/cleared). Pure, bounded.
import type { ErrorEvent, ErrorKind, TrainerEvent } from '../trainer-log/events.js';
import { isoTimeToMs } from '../trainer-log/text.js';
import { exceptionLine } from '../trainer-log/classify.js';
import type { Alert } from './alerts.js';
import { isEvalThreadCrash } from './eval-history.js';

/** Errors kept active at once; more (a crash loop logging thousands) keep the latest. */
export const MAX_ACTIVE_ERRORS = 64;

/**
 * New steps of the same attempt after which an error is taken as survived (not fatal). Not 1: the
 * step in flight when a worker died can still be logged before the trainer stops.
 */
export const NONFATAL_ERROR_STEPS = 2;

// A failed run does not restart by itself (not even with --auto-resume, which resubmits only after
// TIMEOUT, PREEMPTED or NODE_FAIL): the advice says how to resume it, never that it will.
const RESUME =
  'then `awrl-tui --launch --resume RUN` (with its target options) restarts it from its last recover checkpoint';

const ERROR_ADVICE: Record<ErrorKind, string> = {
  oom: `Lower actor.mb_spec.max_tokens_per_mb or the batch size, or give the actor more GPUs; ${RESUME}.`,
  'nccl-timeout': `A collective hung for the NCCL watchdog timeout: look for a dead or stuck rank (node down, GPU error); ${RESUME}.`,
  'sglang-launch':
    'An SGLang server did not come up: check the rollout node (GPU free? actor.path a local path?) and its server log.',
  'worker-failed':
    "A worker process exited: read that worker's log (merged.log or the Ray output) for the first error.",
  'ray-actor-died':
    'A Ray actor died (node lost, OOM-killed or crashed): check `ray status` and the worker output on the controller stdout.',
  other: `Read the traceback; once fixed, ${RESUME.replace(/^then /, '')} (same experiment and trial names).`,
};

interface StandingError {
  alert: Alert;
  /** A restart (resume or fresh start) came after it. */
  restarted: boolean;
  /** The record's time (naive ms), or null when its header was cut. */
  atMs: number | null;
  /** Steps of the same attempt written after it. */
  stepsAfter: number;
  /** What failed: its kind and exception line (failureKey). */
  key: string;
  /** The message of its latest telling: the same message again is a new occurrence, another one
   *  (the logged form, then the uncaught traceback) the same failure told twice. */
  lastMessage: string;
}

/** An error's kind and the exception line that names what failed (its traceback's last one, else
 *  its message): the same for a failure logged and then printed uncaught. */
function failureKey(e: ErrorEvent): string {
  return `${e.kind}\n${exceptionLine(e.detail.split('\n')) ?? e.message}`;
}

/**
 * An error raises an alert. It clears when the run is past it:
 * - fatal: the trainer restarted after it (a resume or fresh-start record) AND made a step after
 *   that restart; until then it stays active, however long (it explains why no step comes);
 * - survived: the same attempt made NONFATAL_ERROR_STEPS steps written after it (a step record
 *   timed before the error, e.g. the main's step read before a worker's piped error line, does not
 *   count): the trainer kept stepping, so the error is history, not an alert standing for days.
 * Either way the history keeps it as fired/cleared. Ids number the run's errors (`error:N`, the
 * Nth error read), stable as the list changes.
 */
export class ErrorAlertTracker {
  private active: StandingError[] = [];
  private count = 0;
  private list: Alert[] | null = [];

  ingest(e: TrainerEvent): void {
    if (e.type === 'error') {
      // The eval thread's crash is the eval rule's (eval-history.ts): the training goes on.
      if (isEvalThreadCrash(e)) return;
      // Identical failures (kind and exception line) are one alert while it stands: a count and the
      // first and latest time (28 `Workflow execution failed` are one alert, not 28). One failure
      // told twice (AsyncWebRL logs it and Python prints it uncaught; upstream logs `Training failed
      // with exception` and the uncaught traceback follows) is one occurrence.
      const key = failureKey(e);
      const same = this.active.find((a) => !a.restarted && a.key === key);
      if (same !== undefined) {
        this.count++;
        if (e.message !== same.lastMessage && same.stepsAfter === 0) {
          same.lastMessage = e.message;
          return;
        }
        // It recurs: the alert stands until the run is past this latest occurrence.
        same.stepsAfter = 0;
        same.lastMessage = e.message;
        const atMs = e.time === null ? Number.NaN : isoTimeToMs(e.time);
        if (Number.isFinite(atMs)) same.atMs = atMs;
        const count = (same.alert.count ?? 1) + 1;
        same.alert = { ...same.alert, count, ...(e.time ? { lastTime: e.time } : {}) };
        this.list = null;
        return;
      }
      const atMs = e.time === null ? Number.NaN : isoTimeToMs(e.time);
      this.active.push({
        alert: errorAlert(e, this.count++),
        key,
        lastMessage: e.message,
        restarted: false,
        atMs: Number.isFinite(atMs) ? atMs : null,
        stepsAfter: 0,
      });
      if (this.active.length > MAX_ACTIVE_ERRORS) this.active.splice(0, this.active.length - MAX_ACTIVE_ERRORS);
      this.list = null;
    } else if (e.type === 'resume' || e.type === 'start') {
      for (const a of this.active) a.restarted = true;
    } else if (e.type === 'step' && this.active.length) {
      const stepMs = isoTimeToMs(e.time);
      let cleared = false;
      for (const a of this.active) {
        if (a.restarted) cleared = true;
        else if (a.atMs === null || !Number.isFinite(stepMs) || stepMs >= a.atMs)
          cleared = ++a.stepsAfter >= NONFATAL_ERROR_STEPS || cleared;
      }
      if (cleared) {
        this.active = this.active.filter((a) => !a.restarted && a.stepsAfter < NONFATAL_ERROR_STEPS);
        this.list = null;
      }
    }
  }

  /** The error alerts standing now, oldest first (the same array until one fires or clears). */
  alerts(): Alert[] {
    return (this.list ??= this.active.map((a) => a.alert));
  }

  /** An error stands that came after the latest restart and that the trainer has not stepped past:
   *  it failed and no step is coming until it is restarted (a stall alert would say the same thing
   *  worse). */
  get failedSinceRestart(): boolean {
    return this.active.some((a) => !a.restarted);
  }

  /** Errors read so far. */
  get errorCount(): number {
    return this.count;
  }
}

function errorAlert(e: ErrorEvent, index: number): Alert {
  const src = e.source && e.source !== 'main' ? ` (${e.source})` : '';
  return {
    id: `error:${index}`,
    severity: 'error',
    title: `${e.kind === 'other' ? 'Error' : e.kind}${src}: ${e.message}`.slice(0, 200),
    detail: e.detail,
    advice: ERROR_ADVICE[e.kind],
    ...(e.time ? { time: e.time } : {}),
  };
}
