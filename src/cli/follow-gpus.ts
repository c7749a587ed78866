// `follow`'s GPU rounds for a multi-node run: the same scope and poller as the cockpit's GPU panel
// (src/session/run-gpu-scope.ts), fed to the one RunWatch, which names a node whose GPUs stay idle
// while the others work. Nothing is polled for a run on one node (no other node to compare with) or
// without an allocation; the scope is derived again when the run's allocation changes (a requeue).
import { allocationKey, defaultGpuPoller, runGpuScope } from '../session/run-gpu-scope.js';
import type { RunWatch } from '../watch/run-watch.js';
import type { RunSummary } from '../runs/list.js';
import type { Target } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';

/** A round every 15 s: the idle-node alert stands after 2 minutes, so this is ample. */
const FOLLOW_GPU_POLL_MS = 15_000;

export class FollowGpus {
  private stopPoll: (() => void) | null = null;
  private allocation = '';
  private closed = false;

  constructor(
    private readonly conn: { target: Target; transport: Transport },
    private readonly watch: RunWatch,
    private readonly intervalMs = FOLLOW_GPU_POLL_MS,
  ) {}

  /** The run's state as the watch told it: poll its nodes while it runs. */
  update(run: RunSummary): void {
    const key = allocationKey(run);
    if (this.closed || key === this.allocation) return;
    this.allocation = key;
    this.stopPoll?.();
    this.stopPoll = null;
    if (run.state !== 'running') return;
    void runGpuScope(this.conn, run)
      .then((scope) => {
        const nodes = (scope.nodes?.length ?? 0) + (scope.includeHead ? 1 : 0);
        if (this.closed || this.allocation !== key || nodes < 2) return;
        this.stopPoll = defaultGpuPoller(this.conn, scope, (s) => this.watch.gpuRound(s), this.intervalMs);
      })
      .catch(() => undefined);
  }

  stop(): void {
    this.closed = true;
    this.stopPoll?.();
  }
}
