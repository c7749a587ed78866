// `--launch --follow`: follow a run's log and state until it ends, or until the connection is
// lost for good. Events go to the caller once each (byte offsets, see follow-run.ts).
import type { Transport, FollowProblem } from '../remote/transport.js';
import type { TrainerEvent, StepEvent } from '../trainer-log/index.js';
import type { CheckpointSaveEvent } from '../health/index.js';
import { isoTimeToMs } from '../trainer-log/index.js';
import type { Target } from './targets.js';
import type { RunState } from './run-record.js';
import { followRun } from './follow-run.js';
import { watchRunState } from './watch-state.js';
import { isTerminal } from './run-state.js';
import type { RunSummary } from './list.js';
import { SlurmEndWatch } from './slurm-job-end.js';

export type FollowOutcome = { kind: 'ended'; state: RunState; detail: string } | { kind: 'disconnected'; reason: string };

export interface FollowToEndOptions {
  onEvent(e: TrainerEvent): void;
  /** The trainer's checkpoint saves, in log order among the events (for the health rules). */
  onSave?(e: CheckpointSaveEvent): void;
  /** A Slurm run: its latest job's end (squeue %e, null: none known), asked once the run's state is
   *  first known and then every `jobEndPollMs` (default 60 s), told when it changes. */
  onSlurmEnd?(end: string | null): void;
  jobEndPollMs?: number;
  /** The log was truncated or replaced: the events after this restart from the new file's start
   *  (a `--follow --json` reader cannot tell them from a resume's repeated steps otherwise). */
  onReset?(reason: string): void;
  /** The log cannot be followed although the connection works, or null: it is read again. */
  onProblem?(problem: FollowProblem | null): void;
  onState?(s: RunSummary): void;
  pollMs?: number;
}

export function followToEnd(transport: Transport, target: Target, runId: string, logPath: string, opts: FollowToEndOptions): Promise<FollowOutcome> {
  return new Promise((resolve) => {
    const follower = followRun(transport, logPath, {
      onEvent: opts.onEvent,
      ...(opts.onSave ? { onSave: opts.onSave } : {}),
      ...(opts.onReset ? { onReset: opts.onReset } : {}),
      ...(opts.onProblem ? { onProblem: opts.onProblem } : {}),
    });
    let done = false;
    // The job end is asked about the run as the state watcher last saw it (its latest job: a
    // requeue or an --auto-resume chain moves it), from the first state on.
    let jobEnd: SlurmEndWatch | null = null;
    const finish = (o: FollowOutcome, drain: boolean) => {
      if (done) return;
      done = true;
      watcher.stop();
      jobEnd?.close();
      offState();
      if (drain) {
        // A run that ended while the log's tail could not be read (the connection failed during
        // the drain) is reported as a lost connection: its last events are missing.
        void follower.finish().then(
          (drained) => resolve(drained || transport.state.state !== 'failed' ? o : { kind: 'disconnected', reason: (transport.state as { reason: string }).reason }),
          () => resolve(o),
        );
      } else {
        follower.close();
        resolve(o);
      }
    };
    const offState = transport.onState((s) => {
      if (s.state === 'failed') finish({ kind: 'disconnected', reason: s.reason }, false);
    });
    const onSlurmEnd = opts.onSlurmEnd;
    const watcher = watchRunState(transport, target, runId, {
      intervalMs: opts.pollMs ?? 2000,
      onChange: (s) => {
        opts.onState?.(s);
        if (onSlurmEnd && !jobEnd && !done && s.record.backend === 'slurm') {
          jobEnd = new SlurmEndWatch({
            conn: { target, transport },
            runId,
            findRun: () => (watcher.current ? { run: watcher.current } : null),
            onEnd: onSlurmEnd,
            ...(opts.jobEndPollMs !== undefined ? { intervalMs: opts.jobEndPollMs } : {}),
          }).start();
        }
        // A Slurm TIMEOUT with a queued resubmission is reported as pending, not terminal.
        if (isTerminal(s.state)) finish({ kind: 'ended', state: s.state, detail: s.detail }, true);
      },
    });
  });
}

/** `step 12/160  reward 0.4312  step time 61.2s  staleness 1.23`: one line per step for humans. */
export function progressLine(e: StepEvent, previous: StepEvent | null): string {
  const r = e.stats['rollout/reward'];
  const st = e.stats['staleness/gap/offpolicy_avg'];
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
