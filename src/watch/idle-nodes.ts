// A node of a multi-node run whose GPUs stay idle while the others work (pure): its Ray worker never
// joined, or joined and got nothing. Fed the GPU panel's rounds; the alert stands once the node has
// been idle for `forMs` (default 2 min: a step's phases leave GPUs briefly empty, never that long
// on every GPU of one node while the rest hold memory), and clears when it holds memory again.
import type { Alert } from '../metrics/index.js';

export interface NodeGpuRound {
  node: string;
  gpus: Array<{ usedMiB: number | null }>;
  /** Not asked this round (unreachable, stale): says nothing about idleness. */
  unreachable?: boolean;
  stale?: boolean;
}

const IDLE_MIB = 1024;
const BUSY_MIB = 10 * 1024;

export class IdleNodeWatch {
  private since = new Map<string, number>();

  constructor(private readonly forMs = 120_000) {}

  /** One round at `atMs`; the alert for the nodes idle long enough, or null. */
  push(round: readonly NodeGpuRound[], atMs: number): Alert | null {
    const asked = round.filter((n) => !n.unreachable && !n.stale && n.gpus.length > 0);
    const busy = asked.filter((n) => n.gpus.some((g) => (g.usedMiB ?? 0) >= BUSY_MIB));
    const idle = asked.filter((n) => n.gpus.every((g) => g.usedMiB !== null && g.usedMiB < IDLE_MIB));
    // Only when others work: a run between phases, or ended, has every node idle.
    if (busy.length === 0 || asked.length < 2) {
      this.since.clear();
      return null;
    }
    const idleNames = new Set(idle.map((n) => n.node));
    for (const k of [...this.since.keys()]) if (!idleNames.has(k)) this.since.delete(k);
    for (const n of idleNames) if (!this.since.has(n)) this.since.set(n, atMs);
    const long = [...this.since].filter(([, t]) => atMs - t >= this.forMs).map(([n]) => n);
    if (long.length === 0) return null;
    const mins = Math.floor((atMs - Math.min(...long.map((n) => this.since.get(n)!))) / 60_000);
    const who = long.length === 1 ? `node ${long[0]} holds` : `nodes ${long.join(', ')} hold`;
    return {
      id: `gpu/idle-nodes/${long.join(',')}`,
      severity: 'warning',
      title: `${who} no GPU memory while ${busy.map((n) => n.node).join(', ')} ${busy.length === 1 ? 'works' : 'work'} (for ${mins} min)`,
      detail: `under ${IDLE_MIB} MiB on every GPU of ${long.join(', ')}; ${busy.length} node(s) above ${BUSY_MIB / 1024} GiB`,
      advice:
        'its Ray worker may not have joined the cluster (ray status on the head) or got no work: check the bring-up lines in the log',
    };
  }
}
