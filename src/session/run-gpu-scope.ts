// Which hosts a run's GPU panel polls, and src/gpu's poller adapted to the panel: a Slurm run's
// GPUs are on its allocation (asked of squeue, else as run.json recorded it), a direct run's on its
// head plus the hosts the user named. Pure lookups and adapters; the selected run's poller
// lifecycle is in selected-run-gpus.ts.
import { GpuPoller, gpuPollScope, type GpuPollScope, type GpuSnapshot as PolledGpus } from '../gpu/index.js';
import { setupInWorkdir } from '../runs/targets.js';
import type { RunSummary as RunsSummary } from '../runs/list.js';
import { pendingGpuNote } from '../runs/pending-gpus.js';
import { directGpuScope } from '../runs/direct-nodes.js';
import type { GpuPollerFactory, TargetConnection } from './live-options.js';
import type { GpuSnapshot } from './types.js';

/**
 * Hostnames of a Slurm run's current allocation ([] when not on Slurm or not running). The target's
 * setup line runs first, as for every Slurm command (it may be what puts squeue on PATH or sets
 * SLURM_CONF); its output is dropped so that it never reads as a hostname.
 */
export async function slurmNodes(conn: TargetConnection, run: RunsSummary): Promise<string[]> {
  const job = [...run.record.attempts].reverse().find((a) => a.jobId)?.jobId;
  if (run.record.backend !== 'slurm' || !job) return [];
  const script =
    '[ -n "$2" ] && { eval "$2"; } >/dev/null 2>&1 </dev/null; n=$(squeue -h -j "$1" -o %N) && [ -n "$n" ] && scontrol show hostnames "$n"';
  const r = await conn.transport.exec(['bash', '-c', script, 'awrl-nodes', job, setupInWorkdir(conn.target)]);
  if (r.code !== 0) return [];
  return r.stdout
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * Which hosts a run's GPU panel polls (src/gpu's gpuPollScope). Slurm: the live allocation, else
 * the nodes the latest attempt recorded in run.json (squeue may not answer, or the job just ended).
 * Direct: the head, plus the target's `directRunHosts` when the user named them (never added to a
 * Slurm run: its GPUs are on its allocation only).
 */
export async function runGpuScope(conn: TargetConnection, run: RunsSummary): Promise<GpuPollScope> {
  const note = pendingGpuNote(run); // queued or requeued: its previous nodes are not its GPUs
  if (note) return { note };
  const direct = directGpuScope(run.record, conn.directRunHosts ?? []);
  if (direct) return direct;
  let nodes: string[] = [];
  if (run.record.backend === 'slurm') {
    nodes = await slurmNodes(conn, run).catch(() => []);
    if (nodes.length === 0) nodes = [...run.record.attempts].reverse().find((a) => a.nodes?.length)?.nodes ?? [];
  }
  return gpuPollScope(run.record.backend, nodes, run.record.backend === 'direct' ? (conn.directRunHosts ?? []) : []);
}

/** What a Slurm run's allocation depends on, as the run list sees it. */
export function allocationKey(run: RunsSummary): string {
  const last = run.record.attempts.at(-1);
  return [run.state, run.record.attempts.length, last?.jobId ?? '', (last?.nodes ?? []).join(',')].join('|');
}

/** One round of `poller`, then stopped (the factory only knows how to start and stop: the round
 *  may be delivered before the factory returns). Returns a stop for a close meanwhile. */
export function finalPoll(
  poller: GpuPollerFactory,
  conn: TargetConnection,
  scope: GpuPollScope,
  onSnapshots: (s: GpuSnapshot[]) => void,
): () => void {
  let done = false;
  let stop: (() => void) | null = null;
  stop = poller(conn, scope, (s) => {
    if (done) return;
    done = true;
    onSnapshots(s);
    // After the poller's own bookkeeping for this round (it arms its next round after calling
    // back: stopping inside the callback would leave that timer armed).
    queueMicrotask(() => stop?.());
  });
  return () => {
    done = true;
    stop?.();
  };
}

/** src/gpu's snapshot as the panel reads it (unreachable and stale carried, never zero GPUs). */
export function gpuView(n: PolledGpus): GpuSnapshot {
  return {
    node: n.node,
    at: n.at,
    gpus: n.gpus.map((g, i) => ({
      index: g.index ?? i,
      name: g.name ?? undefined,
      usedMiB: g.memoryUsedMiB,
      totalMiB: g.memoryTotalMiB,
      utilPct: g.utilizationPct,
    })),
    ...(n.error !== undefined ? { error: n.error } : {}),
    ...(n.unreachable ? { unreachable: true } : {}),
    ...(n.stale ? { stale: true } : {}),
    ...(n.figuresAt !== undefined ? { figuresAt: n.figuresAt } : {}),
    ...(n.lostGpus?.length ? { lostGpus: [...n.lostGpus] } : {}),
  };
}

/** src/gpu's poller: one exec per round on the head (fanning out to the scope's nodes), every 5 s
 *  (the panel's pace; `follow` asks less often); the target's setup line runs before nvidia-smi on
 *  each node. */
export const defaultGpuPoller = (
  conn: Parameters<GpuPollerFactory>[0],
  scope: GpuPollScope,
  onSnapshots: (s: GpuSnapshot[]) => void,
  intervalMs = 5000,
): (() => void) => {
  const p = new GpuPoller(conn.transport, {
    ...scope,
    setup: setupInWorkdir(conn.target) || undefined,
    headName: scope.headName ?? conn.target.name,
    intervalMs,
    onSnapshot: (snaps) => onSnapshots(snaps.map(gpuView)),
  });
  p.start();
  return () => p.stop();
};
