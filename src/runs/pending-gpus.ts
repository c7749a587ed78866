// What the GPU panel says for a Slurm run that has no allocation (pure): queued, or requeued after
// a node failure. Its previous nodes are not its GPUs any more (another job may hold them, or the
// node is DOWN): polling them would show someone else's GPUs or "ssh to the node failed".
import type { RunSummary } from './list.js';

export const NO_ALLOCATION_NODE = 'allocation';

export function pendingGpuNote(run: Pick<RunSummary, 'state' | 'record'>): string | null {
  if (run.record.backend !== 'slurm') return null;
  return run.state === 'pending' || run.state === 'submitted' ? `no allocation (${run.state})` : null;
}
