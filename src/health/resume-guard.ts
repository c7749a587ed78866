// Resume guard: a resumed run must make progress past its recover point, and its first steps must
// respect the staleness budget (rollouts generated before the crash by the old policy can be replayed).
//
// Staleness over budget has one owner at a time (one condition, one alert). This guard owns it from
// the resume on: while EVERY step of the new attempt so far is over budget, and the attempt before
// was within budget at its last step (else the resume did not cause it). The first step within
// budget ends it for this attempt; any later overrun is steady staleness, the metrics room's
// `staleness-over-budget` (which defers meanwhile: `stalenessJudgedElsewhere`, see RunAlerts).
import type { Alert } from './alert.js';
import { PHASE_LABEL, type CurrentPhase } from './phases.js';
import { formatDuration, naiveIso } from './time.js';

export const RESUME_FACTOR = 3;

export interface ResumeState {
  /** 1-based step that runs next (event.resumeStep). */
  resumeStep: number;
  atMs: number;
  /** Set once a step numbered ≥ resumeStep has been logged after the resume. */
  progressed: boolean;
  /** Worst `staleness/gap/offpolicy_max` seen since the resume, and at which step. */
  worstStaleness: { value: number; step: number } | null;
  /** The latest value since the resume, and at which step (null: no step of it had one yet). */
  latestStaleness: { value: number; step: number } | null;
  /** The smallest value since the resume: above the budget means every step so far was over it,
   *  whatever the budget (it is known only when evaluating). */
  minStaleness: number;
  /** The latest value before the resume (the attempt that crashed), or null. */
  stalenessBefore: number | null;
}

/** The new attempt owns its staleness: every step since the resume is over `budget` and the attempt
 *  before was not (then it is not the steady rule's). */
export function resumeOwnsStaleness(r: ResumeState | null, budget: number | undefined): boolean {
  if (!r || budget === undefined || !r.latestStaleness) return false;
  if (r.stalenessBefore !== null && r.stalenessBefore > budget) return false;
  return r.minStaleness > budget;
}

/** Records a staleness value of a step after the resume. */
export function noteResumeStaleness(r: ResumeState, value: number, step: number): void {
  r.latestStaleness = { value, step };
  r.minStaleness = Math.min(r.minStaleness, value);
  if (!r.worstStaleness || value > r.worstStaleness.value) r.worstStaleness = { value, step };
}

export function resumeAlerts(
  r: ResumeState | null,
  nowMs: number,
  medianStepS: number | null,
  finished: boolean,
  maxHeadOffpolicyness: number | undefined,
  /** Where the new attempt is now (the phase stall defers to this alert, so it says it). */
  phase: CurrentPhase | null = null,
): Alert[] {
  if (!r) return [];
  const out: Alert[] = [];
  const waitedS = (nowMs - r.atMs) / 1000;
  if (!r.progressed && !finished && medianStepS !== null && waitedS > RESUME_FACTOR * medianStepS) {
    out.push({
      id: 'health/resume/no-progress',
      severity: 'warning',
      title: `No progress since resuming at step ${r.resumeStep}`,
      detail:
        `resumed ${formatDuration(waitedS)} ago at step ${r.resumeStep} and no step has completed since (median step ${formatDuration(medianStepS)})` +
        (phase
          ? `; ${PHASE_LABEL[phase.phase]} (${phase.phase}) for ${formatDuration((nowMs - phase.sinceMs) / 1000)}`
          : ''),
      advice:
        'Check stdout.log of the new attempt for an error during recovery (a checkpoint written by a different config or model, a missing shard) and that rollout workers came back; stop it rather than let it hold the GPUs.',
      step: r.resumeStep,
      time: naiveIso(r.atMs),
    });
  }
  if (resumeOwnsStaleness(r, maxHeadOffpolicyness) && r.latestStaleness && r.worstStaleness) {
    const latest = r.latestStaleness;
    const worst =
      r.worstStaleness.step !== latest.step
        ? ` (worst ${r.worstStaleness.value} at step ${r.worstStaleness.step})`
        : '';
    out.push({
      id: 'health/resume/staleness',
      severity: 'warning',
      title: 'Stale rollouts since the resume',
      detail:
        `every step since resuming at step ${r.resumeStep} has trained on rollouts staler than the budget: ` +
        `staleness/gap/offpolicy_max ${latest.value} at step ${latest.step}${worst}, rollout.max_head_offpolicyness = ${maxHeadOffpolicyness}` +
        (r.stalenessBefore !== null ? `, while the attempt before ended within it (${r.stalenessBefore})` : '') +
        '; it ends at the first step within the budget',
      advice:
        'The resumed trainer trained on rollouts older than the budget (the version counter and the rollout queue disagree after recovery). Watch ppo_actor/behave_cap_ratio and importance weights; if it persists, restart from the recover checkpoint.',
      step: latest.step,
    });
  }
  return out;
}
