// Resume guard: a resumed run must make progress past its recover point, and its first steps must
// respect the staleness budget (rollouts generated before the crash by the old policy can be replayed).
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
        (phase ? `; ${PHASE_LABEL[phase.phase]} (${phase.phase}) for ${formatDuration((nowMs - phase.sinceMs) / 1000)}` : ''),
      advice:
        'Check stdout.log of the new attempt for an error during recovery (a checkpoint written by a different config or model, a missing shard) and that rollout workers came back; stop it rather than let it hold the GPUs.',
      step: r.resumeStep,
      time: naiveIso(r.atMs),
    });
  }
  if (r.worstStaleness && maxHeadOffpolicyness !== undefined && r.worstStaleness.value > maxHeadOffpolicyness) {
    out.push({
      id: 'health/resume/staleness',
      severity: 'warning',
      title: 'Stale rollouts after the resume',
      detail: `staleness/gap/offpolicy_max reached ${r.worstStaleness.value} at step ${r.worstStaleness.step} after resuming at step ${r.resumeStep}; the budget rollout.max_head_offpolicyness is ${maxHeadOffpolicyness}`,
      advice:
        'The resumed trainer trained on rollouts older than the budget (the version counter and the rollout queue disagree after recovery). Watch ppo_actor/behave_cap_ratio and importance weights; if it persists, restart from the recover checkpoint.',
      step: r.worstStaleness.step,
    });
  }
  return out;
}
