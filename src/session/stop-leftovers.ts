// Stopping a run from the cockpit (`x`) and, after a run ended, the leftover processes it may have
// left on its nodes (`o`: list them, `y`: stop the tagged ones). Both act on a run found in the
// runs list, through src/runs and src/preflight: the same code as `awrl-tui stop`.
import { runNodes, setupInWorkdir, stopRun, type RunSummary as RunsSummary } from '../runs/index.js';
import { checkLeftovers, stopLeftovers, type LeftoverOptions, type NodeFailure } from '../preflight/leftovers.js';
import { withOtherRuns } from '../preflight/other-runs.js';
import { errorText } from './error-text.js';
import type { TargetConnection } from './live-options.js';
import type { LeftoverProcess, SessionState } from './types.js';

export interface RunStopperOptions {
  findRun(runId: string): { conn: TargetConnection; run: RunsSummary } | null;
  /** List the target's runs again (after a stop). */
  refresh(conn: TargetConnection): Promise<void>;
  update(patch: Partial<SessionState>): void;
  state(): SessionState;
}

export class RunStopper {
  constructor(private readonly o: RunStopperOptions) {}

  async stop(runId: string): Promise<void> {
    const { update } = this.o;
    const found = this.o.findRun(runId);
    if (!found) return update({ notice: `run ${runId} not found` });
    update({ notice: `stopping ${runId}…` });
    try {
      const r = await stopRun(found.conn.transport, found.conn.target, runId);
      update({
        notice: `stopped ${runId}${r.left.length ? ` (${r.left.length} processes left: ${r.left.join(', ')})` : ''}`,
      });
    } catch (err) {
      update({ notice: `stop failed: ${errorText(err)}` });
    }
    await this.o.refresh(found.conn);
  }

  async checkLeftovers(runId: string): Promise<void> {
    const conn = this.o.findRun(runId)?.conn;
    if (!conn) return this.o.update({ leftovers: { phase: 'failed', runId, message: `run ${runId} not found` } });
    this.o.update({ leftovers: { phase: 'checking', runId } });
    try {
      const scope = this.leftoverScope(runId);
      const r = await checkLeftovers(conn.transport, runId, { setup: setupInWorkdir(conn.target), ...scope });
      // Another run's processes: in use while it runs, leftovers only once it ended.
      const list = await withOtherRuns(conn.transport, conn.target, r.list);
      const unchecked = [
        ...r.unreachable.map((x) => `${x.error} (unreachable)`),
        ...r.gpuUnchecked.map((x) => `${x.error} (GPU memory)`),
      ];
      this.o.update({
        leftovers: {
          phase: 'found',
          runId,
          list: list.map((l) => leftoverView(l, !!scope.nodes)),
          ...(unchecked.length ? { unchecked } : {}),
        },
      });
    } catch (err) {
      this.o.update({ leftovers: { phase: 'failed', runId, message: errorText(err) } });
    }
  }

  async stopLeftovers(runId: string): Promise<void> {
    const conn = this.o.findRun(runId)?.conn;
    const cur = this.o.state().leftovers;
    if (!conn || !cur || cur.phase !== 'found' || cur.runId !== runId) return;
    this.o.update({
      leftovers: { phase: 'stopping', runId, list: cur.list, ...(cur.unchecked ? { unchecked: cur.unchecked } : {}) },
    });
    try {
      // Only processes tagged with this run are ever signalled (src/preflight re-checks each PID's tag).
      const scope = this.leftoverScope(runId);
      const r = await stopLeftovers(conn.transport, runId, {
        setup: setupInWorkdir(conn.target),
        graceSeconds: 5,
        ...scope,
      });
      const view = (l: LeftoverProcess) => leftoverView(l, !!scope.nodes);
      this.o.update({
        leftovers: { phase: 'stopped', runId, stopped: r.stopped.map(view), remaining: r.remaining.map(view) },
      });
    } catch (err) {
      this.o.update({ leftovers: { phase: 'failed', runId, message: errorText(err) } });
    }
  }

  /** A Slurm run's nodes as its run.json recorded them (the job has ended: squeue no longer knows
   *  them); a direct run's head plus the hosts the user named (like `awrl-tui stop --check-nodes`). */
  private leftoverScope(runId: string): LeftoverOptions {
    const found = this.o.findRun(runId);
    const run = found?.run;
    const hosts = run?.record.backend === 'direct' ? (found?.conn.directRunHosts ?? []) : [];
    const recorded = run?.record.backend === 'slurm' ? runNodes(run.record) : [];
    const onUnreachable = (f: NodeFailure[]) =>
      this.o.update({ notice: `leftover check: ${f.map((x) => x.error).join('; ')}` });
    if (recorded.length) return { nodes: recorded, onUnreachable };
    return hosts.length ? { nodes: [...hosts], includeHead: true, onUnreachable } : {};
  }
}

function leftoverView(l: LeftoverProcess & { node?: string }, spansNodes: boolean): LeftoverProcess {
  return {
    ...(spansNodes && l.node ? { node: l.node } : {}),
    pid: l.pid,
    tagged: l.tagged,
    otherRunId: l.otherRunId,
    ...(l.otherRun ? { otherRun: l.otherRun } : {}),
    user: l.user,
    cmd: l.cmd,
    gpuMiB: l.gpuMiB,
  };
}
