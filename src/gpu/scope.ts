// Which hosts the GPU panel asks for a run (pure: the caller passes what it knows). A Slurm run's
// GPUs are on its allocation's nodes, never on the login node it was submitted from. A direct run
// (Ray over hosts the user named) has GPUs on the head it was launched on AND on each named host.

export interface GpuPollScope {
  /** Hosts asked over ssh from the head (absent: the head alone, without any ssh hop). */
  nodes?: string[];
  /** Ask the head's own GPUs too, listed first. */
  includeHead?: boolean;
  /** Why the scope is not the run's (a Slurm run without an allocation: `no allocation (pending)`,
   *  nothing polled; a direct run whose nodes are unknown: the head is polled, the note shown). */
  note?: string;
  /** The head's name in the panel (its hostname, as the run's other nodes are named). */
  headName?: string;
}

/**
 * `nodes`: the run's known nodes (a Slurm job's live or recorded node list; for a direct run,
 * any it recorded). `extraNodes`: hosts the user named (`--check-nodes`-style). Spread the result
 * into `GpuPollerOptions`.
 */
export function gpuPollScope(
  backend: 'slurm' | 'direct',
  nodes: readonly string[],
  extraNodes: readonly string[] = [],
): GpuPollScope {
  const all = [...new Set([...nodes, ...extraNodes])];
  if (all.length === 0) return {};
  // A Slurm run with no known node yet: like `stop`'s leftover scope, the head plus the named hosts.
  if (backend === 'slurm' && nodes.length > 0) return { nodes: all, includeHead: false };
  return { nodes: all, includeHead: true };
}
