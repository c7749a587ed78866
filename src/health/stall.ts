// Per-phase stall: a phase that has run for more than 3× its median in this run (and at least 10 min)
// is named, with what usually causes it there. It also owns the whole-step stall (no step for 3× the
// median step time) whenever it knows the phase: one hang gets one alert, the one that says WHERE
// the trainer is stuck, which decides what to look at; src/metrics' whole-step rule defers to it
// (HealthMonitor.judgesStall) and speaks only when the phase has no history yet.
import type { Alert } from './alert.js';
import { PHASE_LABEL, type Phase, type PhaseTracker } from './phases.js';
import { formatDuration, naiveIso } from './time.js';

export const STALL_FACTOR = 3;
export const STALL_FLOOR_S = 10 * 60;
/** A median of one sample is a guess; two already exclude the first step's warm-up outlier poorly, but
 *  a run stuck at step 3 must still be caught. */
export const STALL_MIN_SAMPLES = 2;

const NCCL = 'NCCL would time out after 2 h';

const CAUSE: Record<Phase, { likely: string; advice: string }> = {
  rollout_wait: {
    likely: 'likely stuck rollout workers or an Omniboxes outage (no finished episodes)',
    advice:
      'Check the rollout workers in stdout.log (Ray-forwarded lines) for [EPISODE_TIMEOUT] and "Instance alloc attempt", and the Omniboxes cluster the token points at.',
  },
  recompute_logp: {
    likely: `likely a hung collective on the training GPUs; ${NCCL}`,
    advice:
      'Look for one actor rank that died or is in a different phase (py-spy dump on the actor workers), and for GPU errors in dmesg/nvidia-smi on the training nodes.',
  },
  ref_logp: {
    likely: `likely a hung collective on the training GPUs; ${NCCL}`,
    advice:
      'Look for one ref/actor rank that died or is in a different phase (py-spy dump), and for GPU errors on the training nodes.',
  },
  compute_advantages: {
    likely: `likely a hung collective on the training GPUs; ${NCCL}`,
    advice: 'Look for one actor rank that died or is in a different phase (py-spy dump on the actor workers).',
  },
  ppo_update: {
    likely: `likely a hung collective or a straggling rank in the PPO update; ${NCCL}`,
    advice:
      'Look for one actor rank that died or is much slower (py-spy dump, nvidia-smi utilisation per GPU on the training nodes).',
  },
  update_weights: {
    likely: `likely a stuck weight sync; ${NCCL}`,
    advice:
      'Check that every SGLang server is alive and reachable from the actor nodes (weight_update_mode xccl broadcasts to all of them); a dead rollout server blocks the broadcast. Stopping now and resuming from the recover checkpoint saves the 2 h wait.',
  },
  save: {
    likely: 'likely a slow or full filesystem under cluster.fileroot',
    advice:
      'Check free space and write speed of cluster.fileroot on the head node (df -h, a test write); a recover checkpoint of an 8B model is ~50 GB.',
  },
};

/** The whole-step clock: since when a step is awaited (the latest step or restart record, naive ms)
 *  and the run's median step time. */
export interface StepClock {
  sinceMs: number | null;
  medianS: number | null;
}

export function stallAlert(
  tracker: PhaseTracker,
  nowMs: number,
  step: StepClock = { sinceMs: null, medianS: null },
): Alert | null {
  const cur = tracker.phase;
  if (!cur) return null;
  const { medianS, samples } = tracker.stats(cur.phase);
  if (medianS === null || samples < STALL_MIN_SAMPLES) return null;
  const elapsedS = (nowMs - cur.sinceMs) / 1000;
  const limitS = Math.max(STALL_FACTOR * medianS, STALL_FLOOR_S);
  const sinceStepS = step.sinceMs === null ? null : (nowMs - step.sinceMs) / 1000;
  // The whole-step trigger is the metrics rule's, taken over (3× the median step, no floor).
  const stepOver =
    sinceStepS !== null && step.medianS !== null && step.medianS > 0 && sinceStepS > STALL_FACTOR * step.medianS;
  if (elapsedS <= limitS && !stepOver) return null;
  const cause = CAUSE[cur.phase];
  const phaseText = `${cur.phase} has run ${formatDuration(elapsedS)} (median ${formatDuration(medianS)}): ${cause.likely}`;
  const alert: Alert = {
    id: `health/stall/${cur.phase}`,
    severity: 'warning',
    title: `Stalled ${PHASE_LABEL[cur.phase]} (${cur.phase})`,
    detail:
      elapsedS > limitS || sinceStepS === null
        ? phaseText
        : `no step for ${formatDuration(sinceStepS)} (median step ${formatDuration(step.medianS!)}); ${phaseText}`,
    advice: cause.advice,
    time: naiveIso(cur.sinceMs),
  };
  if (cur.step !== undefined) alert.step = cur.step;
  return alert;
}
