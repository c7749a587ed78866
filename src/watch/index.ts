// The watch's front door for callers that load it whole (the demo imports it lazily).
export { StepProgress, followToEnd, progressLine } from './follow-to-end.js';
export type { FollowOutcome, FollowToEndOptions } from './follow-to-end.js';
export { latestSlurmJob, slurmJobEnd, SlurmEndWatch } from './slurm-job-end.js';
export type { JobEndConnection, SlurmEndWatchOptions } from './slurm-job-end.js';
export { createRunWatch } from './create-run-watch.js';
