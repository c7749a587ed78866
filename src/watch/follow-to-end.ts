// Following a run to its end for a caller that wants its events only (the demo's progress lines):
// a RunWatch that stops when the run ends, its records handed on once each (byte offsets, see
// follow-run.ts). `follow` and `--launch --follow` render the whole watch (src/cli/follow-output.ts).
import type { Transport } from '../remote/transport.js';
import type { TrainerEvent, StepEvent } from '../trainer-log/index.js';
import { isoTimeToMs, stepValue } from '../trainer-log/index.js';
import type { Target } from '../runs/targets.js';
import type { RunSummary } from '../runs/list.js';
import { evalRoundLine } from '../metrics/eval-history.js';
import { createRunWatch } from './create-run-watch.js';
import type { WatchOutcome } from './watch-output.js';

export type FollowOutcome = WatchOutcome;

export interface FollowToEndOptions {
  onEvent(e: TrainerEvent): void;
  onState?(s: RunSummary): void;
  /** The log was truncated or replaced: the events after this restart from the new file's start. */
  onReset?(reason: string): void;
  pollMs?: number;
}

export function followToEnd(
  transport: Transport,
  target: Target,
  runId: string,
  logPath: string,
  opts: FollowToEndOptions,
): Promise<FollowOutcome> {
  return new Promise((resolve) => {
    const watch = createRunWatch({
      transport,
      target,
      runId,
      logPath,
      whenEnded: 'stop',
      storeSeries: 'rules',
      ...(opts.pollMs !== undefined ? { statePollMs: opts.pollMs } : {}),
    });
    watch.on((w) => {
      if (w.type === 'record' && w.record.type !== 'save') opts.onEvent(w.record);
      else if (w.type === 'state') opts.onState?.(w.summary);
      else if (w.type === 'reset') opts.onReset?.(w.reason);
      else if (w.type === 'end') resolve(w.outcome);
    });
    watch.start();
  });
}

/** Each step's progress line, its step time measured from the previous step of the same attempt:
 *  across a restart (a resume, a fresh start, the log replaced) it is not known (`-`): the time
 *  between two attempts is downtime, not a step. The one keeper of "the previous step" for
 *  `follow` and the demo. */
export class StepProgress {
  private prev: StepEvent | null = null;

  /** The line of a step record; null for any other (a restart record forgets the previous step). */
  take(e: TrainerEvent): string | null {
    if (e.type === 'resume' || e.type === 'start') this.prev = null;
    if (e.type !== 'step') return null;
    const line = progressLine(e, this.prev);
    this.prev = e;
    return line;
  }

  /** The line a person reads for a record (`follow`, the headless demo): a step's progress line, an
   *  error, a resume, a completed eval round, wandb's run (its URL, or an offline run's upload
   *  command); null for the rest. Feeds `take`, so every record goes through here once. */
  line(e: TrainerEvent): string | null {
    const step = this.take(e);
    if (step !== null) return step;
    if (e.type === 'error') return `error: ${e.message}`;
    if (e.type === 'resume') return `resumed at step ${e.resumeStep}`;
    if (e.type === 'eval') return evalRoundLine(e);
    if (e.type === 'wandb')
      return e.url === null
        ? `wandb offline: wandb sync ${e.dir}`
        : `wandb run ${e.url}${e.from === 'config' ? ' (from the config; wandb has not printed it yet)' : ''}`;
    return null;
  }

  /** Goes on after records it did not see (a watch snapshot's history): `prev` the step the next
   *  one's time is measured from (the store's `stepTimeFrom`; null after a restart). */
  continueFrom(prev: StepEvent | null): void {
    this.prev = prev;
  }

  /** The log was truncated or replaced: what follows is another file. */
  reset(): void {
    this.prev = null;
  }
}

/** `step 12/160  reward 0.4312  step time 61.2s  staleness 1.23`: one line per step for humans. */
export function progressLine(e: StepEvent, previous: StepEvent | null): string {
  const r = stepValue(e, 'rollout/reward');
  const st = stepValue(e, 'staleness/gap/offpolicy_avg');
  const dt = previous ? (isoTimeToMs(e.time) - isoTimeToMs(previous.time)) / 1000 : null;
  const parts = [
    `step ${e.globalStep}/${e.totalSteps}`,
    `reward ${statText(r, 4)}`,
    `step time ${dt === null || !Number.isFinite(dt) || dt < 0 ? '-' : `${dt.toFixed(1)}s`}`,
    `staleness ${statText(st, 2)}`,
  ];
  return parts.join('  ');
}

/** A stats value in a progress line: nan, inf, -inf as printed; n/a when its cell held no number. */
function statText(v: number | null | undefined, digits: number): string {
  if (v === undefined) return '-';
  if (v === null) return 'n/a';
  return Number.isFinite(v) ? v.toFixed(digits) : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}
