// The watch's part that names a node idle while the others work (idle-nodes.ts), from the GPU
// rounds whoever polls the GPUs hands to RunWatch.gpuRound (the cockpit's panel, `follow`).
import type { Alert } from '../metrics/index.js';
import type { RunSummary } from '../runs/list.js';
import { IdleNodeWatch, type NodeGpuRound } from './idle-nodes.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class IdleNodesPart implements WatchPart {
  private readonly idle: IdleNodeWatch;
  /** The idle-node alert standing now (null: none). */
  private alert: Alert | null = null;

  constructor(private readonly core: WatchCore) {
    this.idle = new IdleNodeWatch(core.o.idleNodeMs);
  }

  onGpuRound(round: readonly NodeGpuRound[]): void {
    // An ended run's nodes are idle by right; a pending one's previous nodes are not its own.
    const s = this.core.summary;
    const live = s === null || s.state === 'running';
    const a = this.idle.push(live ? round : [], this.core.clock());
    const fired = a && a.id !== this.alert?.id ? [a] : [];
    this.alert = a;
    this.core.tell(fired);
  }

  /** No node idle among working ones once the run does not run. */
  onRunState(s: RunSummary): void {
    if (s.state !== 'running' && this.alert) this.onGpuRound([]);
  }

  standing(): readonly Alert[] {
    return this.alert ? [this.alert] : [];
  }
}
