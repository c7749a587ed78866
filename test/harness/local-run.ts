// The local target and a running run's summary (the cockpit's) as the tests of a watch on this machine use them:
// one place, so a new Target or RunSummary field is added once.
import type { Target } from '../../src/runs/targets.js';
import type { RunSummary } from '../../src/session/types.js';

/** The target `local` (direct backend) with its workdir. */
export function localTarget(workdir: string): Target {
  return { name: 'local', host: 'local', workdir, python: 'python3', backend: 'direct', slurm: { extraArgs: [] } };
}

/** A running run on `local` of which nothing is known yet (no step, no reward). */
export function runningSummary(id: string): RunSummary {
  return { id, target: 'local', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null };
}
