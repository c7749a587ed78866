// The held-out eval of a run, round after round (webgym's test rollout: trainer.md §8): the
// completed rounds with a 95 % Wilson interval on each reward, the running round, the best so far,
// the eval thread's crashes, and the two rules a researcher needs from them: a round below the
// previous one beyond both intervals, and the eval that stopped (a crash, or no round for 3 × the
// median round time: no round also means no new HF checkpoint, which webgym saves only then).
// Pure and bounded (the last ROUNDS_CAP rounds).
import type { ErrorEvent, EvalEvent, EvalProgressEvent, TrainerEvent } from '../trainer-log/events.js';
import { exceptionLine } from '../trainer-log/classify.js';
import { isoTimeToMs } from '../trainer-log/text.js';
import type { Alert } from './alerts.js';

export const ROUNDS_CAP = 500;
/** Rounds whose times make the median round time. */
const MEDIAN_OF = 20;
/** z of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;
const CRASH = 'Test rollout thread crashed';

/** The error of the eval thread (it retries; the training goes on): the eval rule's, not an error
 *  alert of the run (src/metrics/alert-errors.ts leaves it out). */
export const isEvalThreadCrash = (e: ErrorEvent): boolean => e.message.startsWith(CRASH);

export interface Interval {
  lo: number;
  hi: number;
}

/** The 95 % Wilson score interval of a success rate `p` over `n` episodes (webgym's rewards are 0
 *  or 1 per task: `reward` is the share of the `completed` tasks that succeeded); null when n is 0
 *  or p is no rate. */
export function wilson(p: number, n: number, z = Z95): Interval | null {
  if (!(n > 0) || !(p >= 0 && p <= 1)) return null;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}

export interface EvalRound {
  event: EvalEvent;
  interval: Interval | null;
  /** The completion time on the log's naive clock (isoTimeToMs), NaN when unreadable. */
  ms: number;
}

export interface EvalCrash {
  time: string | null;
  ms: number;
  /** The exception line of its traceback, when it has one. */
  cause: string | null;
}

export class EvalHistory {
  /** Completed rounds, oldest first (the last ROUNDS_CAP). */
  readonly rounds: EvalRound[] = [];
  /** Rounds dropped off the front. */
  dropped = 0;
  /** The running round's latest progress (null once it completed, or before any). */
  running: EvalProgressEvent | null = null;
  /** The latest crash of the eval thread since its last sign of life (progress, a round). */
  crash: EvalCrash | null = null;
  /** Index in `rounds` of the best reward (the earliest of equals), -1 before any. */
  private bestAt = -1;

  constructor(private readonly cap = ROUNDS_CAP) {}

  ingest(e: TrainerEvent): void {
    if (e.type === 'eval') this.completed(e);
    else if (e.type === 'eval-progress') {
      this.running = e;
      this.clearCrashBefore(isoTimeToMs(e.time));
    } else if (e.type === 'error' && isEvalThreadCrash(e)) {
      const ms = e.time === null ? Number.NaN : isoTimeToMs(e.time);
      this.crash = { time: e.time, ms, cause: exceptionLine(e.detail.split('\n')) };
      this.running = null;
    }
  }

  /** The best round so far (highest reward, the earliest of equals), or null. */
  get best(): EvalRound | null {
    return this.bestAt < 0 ? null : this.rounds[this.bestAt];
  }

  get last(): EvalRound | null {
    return this.rounds.length ? this.rounds[this.rounds.length - 1] : null;
  }

  /** The median time of the latest rounds (s), or null before any. */
  medianRoundS(): number | null {
    const times = this.rounds
      .slice(-MEDIAN_OF)
      .map((r) => r.event.timeS)
      .filter((t) => Number.isFinite(t) && t > 0)
      .sort((a, b) => a - b);
    if (!times.length) return null;
    const mid = times.length >> 1;
    return times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  }

  private completed(e: EvalEvent): void {
    const round: EvalRound = { event: e, interval: wilson(e.reward, e.completed), ms: isoTimeToMs(e.time) };
    this.rounds.push(round);
    if (this.bestAt < 0 || e.reward > this.rounds[this.bestAt].event.reward) this.bestAt = this.rounds.length - 1;
    if (this.rounds.length > this.cap) {
      this.rounds.shift();
      this.dropped++;
      this.bestAt--;
      if (this.bestAt < 0) this.bestAt = bestIndex(this.rounds);
    }
    if (this.running !== null && this.running.round === e.round) this.running = null;
    this.clearCrashBefore(round.ms);
  }

  /** A sign of life of the eval thread at `ms` ends a crash logged before it. A completed round
   *  reaches us late (the parser holds it for the next step's table): one logged before the crash
   *  does not end it. */
  private clearCrashBefore(ms: number): void {
    if (this.crash !== null && !(this.crash.ms > ms)) this.crash = null;
  }
}

function bestIndex(rounds: readonly EvalRound[]): number {
  let at = -1;
  for (let i = 0; i < rounds.length; i++) if (at < 0 || rounds[i].event.reward > rounds[at].event.reward) at = i;
  return at;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const span = (i: Interval | null) => (i === null ? '(no interval)' : `[${pct(i.lo)}, ${pct(i.hi)}]`);

/** `45.2% [36.1%, 54.6%] of 69/74 at model step 40 (round 3)`. */
export function roundText(r: EvalRound): string {
  const e = r.event;
  return `${pct(e.reward)} ${span(r.interval)} of ${e.completed}/${e.total} at model step ${e.modelStep} (round ${e.round})`;
}

/** `2 h 5 min`, `14 min`, `40 s`. */
function duration(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** The eval rules at `now` (the log's naive clock, ms; null: no clock yet). Monotone in `now`
 *  between two records (RunAlerts dates a time-driven alert by bisection). */
export function evalAlerts(h: EvalHistory, now: number | null): Alert[] {
  const out: Alert[] = [];
  const n = h.rounds.length;
  if (n >= 2) {
    const last = h.rounds[n - 1];
    const prev = h.rounds[n - 2];
    if (last.interval !== null && prev.interval !== null && last.interval.hi < prev.interval.lo) {
      out.push({
        id: 'eval/regression',
        severity: 'warning',
        title: `Eval reward fell below the previous round's interval`,
        detail: `${roundText(last)}, against ${roundText(prev)}: the intervals do not overlap`,
        advice:
          `Compare the rounds by difficulty in the eval table; look at policy drift around model steps ` +
          `${prev.event.modelStep}-${last.event.modelStep} (importance weights, entropy, clip ratio on the RL health ` +
          `screen). The HF checkpoint of model step ${prev.event.modelStep} is the better policy so far.`,
        time: last.event.time,
      });
    }
  }
  if (h.crash !== null) {
    const c = h.crash;
    out.push({
      id: 'eval/thread-crashed',
      severity: 'warning',
      title: 'The eval thread crashed',
      detail:
        `Test rollout thread crashed${c.time ? ` at ${c.time}` : ''}${c.cause ? ` (${c.cause})` : ''}; ` +
        'it retries with a backoff up to 5 min, and no eval round has made progress since',
      advice:
        'Read the traceback in the log (l); the test rollout servers (test_rollout.n_gpus) may be down. ' +
        'No eval round means no new HF checkpoint: webgym saves one only when a round completes.',
      ...(c.time !== null ? { time: c.time } : {}),
    });
  }
  const med = h.medianRoundS();
  const last = h.last;
  if (med !== null && last !== null && now !== null && Number.isFinite(last.ms)) {
    const silentS = (now - last.ms) / 1000;
    if (silentS > 3 * med) {
      out.push({
        id: 'eval/no-round',
        severity: 'warning',
        title: 'No eval round has completed for 3 × the median round time',
        detail:
          `the last round completed ${duration(silentS)} ago (${roundText(last)}); ` +
          `the median round takes ${duration(med)}` +
          (h.running !== null
            ? `; round ${h.running.round} is at ${h.running.completed}/${h.running.total} after ${duration(h.running.elapsedS)}`
            : '; no round has reported progress since'),
        advice:
          'Look for TestRollout lines in the log (l): a crash retried, a grace period, a checkpoint wait. ' +
          'No eval round means no new HF checkpoint: webgym saves one only when a round completes.',
      });
    }
  }
  return out;
}

/** `follow`'s line for a completed round: `eval round 1 done: 46.4% [35.1%, 58.0%] of 69/74 at model
 *  step 1 (round 1), 5 failed, 37 min`. */
export function evalRoundLine(e: EvalEvent): string {
  const r: EvalRound = { event: e, interval: wilson(e.reward, e.completed), ms: Number.NaN };
  return `eval round ${e.round} done: ${roundText(r)}, ${e.failed} failed, ${duration(e.timeS)}`;
}
