// Slurm wall time: when the allocation ends before the next recover checkpoint can be written (plus
// the step that writes it: the trainer checks recover.freq_secs only at the end of a step), the
// steps since the last checkpoint are lost at the kill.
import type { Alert } from './alert.js';
import { formatDuration, naiveIso } from './time.js';

export interface WallTimeInput {
  nowMs: number;
  endMs: number;
  recoverFreqSecs: number;
  /** The last recover checkpoint, or the trainer's (re)start: its timer starts with the process. */
  lastCheckpointMs: number | null;
  /** 1-based step the last checkpoint holds (all steps up to it are safe), when known. */
  lastCheckpointStep?: number;
  medianStepS: number | null;
  stepInProgress?: number;
}

export function wallTimeAlert(i: WallTimeInput): Alert | null {
  const leftS = (i.endMs - i.nowMs) / 1000;
  if (leftS <= 0) return null; // already over: the run-state watcher reports TIMEOUT
  const dueS =
    i.lastCheckpointMs === null
      ? i.recoverFreqSecs
      : Math.max(0, (i.lastCheckpointMs - i.nowMs) / 1000 + i.recoverFreqSecs);
  const stepS = i.medianStepS ?? 0;
  const neededS = dueS + stepS;
  if (leftS >= neededS) return null;
  const lost =
    i.lastCheckpointStep !== undefined
      ? `the steps after step ${i.lastCheckpointStep} would be lost`
      : 'the steps since the last recover checkpoint would be lost';
  const stepPart = i.medianStepS !== null ? ` plus a step of ~${formatDuration(stepS)}` : '';
  const alert: Alert = {
    id: 'health/slurm/walltime',
    severity: leftS < stepS ? 'error' : 'warning',
    title: 'Slurm time limit before the next checkpoint',
    detail: `the allocation ends in ${formatDuration(leftS)}; the next recover checkpoint is due in ~${formatDuration(dueS)}${stepPart}: ${lost}`,
    advice:
      'Extend the job if the cluster allows it (scontrol update JobId=<id> TimeLimit=<longer>) or let --auto-resume pick it up; for the next launch lower recover.freq_secs or raise the time limit so a checkpoint lands before the end.',
    time: naiveIso(i.endMs),
  };
  if (i.stepInProgress !== undefined) alert.step = i.stepInProgress;
  return alert;
}
