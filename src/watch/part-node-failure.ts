// The watch's part for a Slurm run's node failures (node-facts.ts asks Slurm): a failure found
// stops the rules' clock (the log's silence is the dead node's, not the trainer's: no "stalled
// waiting for the rollout batch"), and a hang is told only once Slurm was asked about the nodes.
import type { Alert } from '../metrics/index.js';
import type { RunSummary } from '../runs/list.js';
import { isActive } from '../runs/run-state.js';
import { NodeFailureWatch } from './node-facts.js';
import { logClockRuns } from './watch-lifecycle.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class NodeFailurePart implements WatchPart {
  private readonly nodes: NodeFailureWatch;
  /** The latest node-failure alert of the run's job (null: none). */
  private failure: Alert | null = null;

  constructor(private readonly core: WatchCore) {
    this.nodes = new NodeFailureWatch(core.o.transport, core.o.target, (a) => this.onFailure(a));
  }

  onRunState(s: RunSummary): void {
    this.nodes.update(s.record, isActive(s.state));
  }

  beforeHang(): Promise<unknown> {
    return this.nodes.check();
  }

  standing(): readonly Alert[] {
    return this.failure ? [this.failure] : [];
  }

  close(): void {
    this.nodes.stop();
  }

  /** A node of the run's job failed (Slurm's verdict), or the job runs again without it (info):
   *  while the failure stands the rules' clock stops, and runs again with the job. */
  private onFailure(a: Alert): void {
    const core = this.core;
    if (core.closed) return;
    const was = this.failure;
    this.failure = a;
    const stands = a.severity !== 'info';
    // From the last record's arrival: the silence since then is the dead node's.
    if (stands && (!was || was.severity === 'info')) core.alerts.unobserved(0);
    else if (!stands && was && was.severity !== 'info' && logClockRuns(core.life)) core.alerts.observed(core.clock());
    core.tell(a.id !== was?.id ? [a] : []);
  }
}
