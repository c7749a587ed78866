// The open run's Slurm job end, for the wall-time rule: asked in src/runs (slurm-job-end.ts), where
// `follow` asks too, so the cockpit and the command line read the same end the same way.
export { latestSlurmJob, slurmJobEnd, SlurmEndWatch, type SlurmEndWatchOptions, type JobEndConnection } from '../../runs/slurm-job-end.js';
