// The GPU poller of the run open on the dashboard. It exists because the poller must follow the
// run, not just start with it: a live run is polled every round, an ended one once and then every
// `endedPollMs` (its GPUs freed, or still held by leftovers), a resumed one at full pace again, and
// a Slurm run whose allocation changes (queued → running, a requeue onto other nodes) is polled on
// its new nodes.
import type { GpuPollScope } from '../gpu/index.js';
import type { RunSummary as RunsSummary } from '../runs/index.js';
import type { GpuPollerFactory, TargetConnection } from './live-options.js';
import { allocationKey, finalPoll, runGpuScope } from './run-gpu-scope.js';
import { NO_ALLOCATION_NODE } from '../runs/pending-gpus.js';
import type { RunFeed } from './run-feed.js';
import type { GpuSnapshot } from './types.js';

/** What the poller was started for (its scope is kept as JSON: compared, and reused on failure). */
interface Polling {
  runId: string;
  /** Bumped by each re-scoping: an older one that finishes later (a staler runs list) is dropped. */
  seq: number;
  feed: RunFeed;
  allocation: string;
  scope: string;
  poller: GpuPollerFactory;
}

export interface SelectedRunGpusOptions {
  /** An ended run's GPUs are polled this often. */
  endedPollMs: number;
  /** Where a run is now, from the runs list (its target and record). */
  findRun(runId: string): { conn: TargetConnection; run: RunsSummary } | null;
}

export class SelectedRunGpus {
  private stopPoll: (() => void) | null = null;
  private cur: Polling | null = null;
  private closed = false;

  constructor(private readonly o: SelectedRunGpusOptions) {}

  /** Another run is selected (or none): the old poller stops. */
  reset(): void {
    this.stopPoll?.();
    this.stopPoll = null;
    this.cur = null;
  }

  /** Poll `run`'s GPUs into `feed` on `scope`: an ended run (its feed may have stopped following
   *  already) gets one round now, then the slow pace. */
  start(poller: GpuPollerFactory, conn: TargetConnection, run: RunsSummary, scope: GpuPollScope, feed: RunFeed): void {
    this.stopPoll = this.poll(poller, conn, scope, feed, !feed.pollingStopped);
    this.cur = { runId: run.runId, seq: 0, feed, allocation: allocationKey(run), scope: JSON.stringify(scope), poller };
  }

  /**
   * The selected run ended (its feed stopped following): its GPUs are polled slowly.
   * It runs again: poll as before.
   */
  async followFeed(feed: RunFeed, live: boolean): Promise<void> {
    const cur = this.cur;
    if (!cur || cur.feed !== feed || this.closed) return;
    this.stopPoll?.();
    this.stopPoll = null;
    const seq = ++cur.seq;
    const found = this.o.findRun(cur.runId);
    if (!found) return;
    // The scope again: a resumed run may be on other nodes. The runs list may not show the new
    // attempt yet (a resume made while the connection was down): followAllocation moves the
    // poller when it does, as the allocation key read here is the list's.
    cur.allocation = allocationKey(found.run);
    const scope = await runGpuScope(found.conn, found.run).catch(() => JSON.parse(cur.scope) as GpuPollScope);
    if (this.cur !== cur || this.closed || seq !== cur.seq) return;
    cur.scope = JSON.stringify(scope);
    this.stopPoll = this.poll(cur.poller, found.conn, scope, feed, live);
  }

  /** The list shows the run's allocation changed: the scope is derived again and the poller
   *  restarted on a new one. A Slurm run opened while queued (no node of its own yet) gets its
   *  allocation; a run resumed while the connection was down (a new attempt, a new Slurm job or
   *  other direct nodes) is polled where the new attempt runs, once the list is read again. */
  async followAllocation(c: TargetConnection, listed: readonly RunsSummary[]): Promise<void> {
    const cur = this.cur;
    const run = cur && listed.find((r) => r.runId === cur.runId);
    if (!cur || !run || allocationKey(run) === cur.allocation) return;
    cur.allocation = allocationKey(run);
    const seq = ++cur.seq;
    const scope = await runGpuScope(c, run);
    if (this.cur !== cur || this.closed || seq !== cur.seq) return;
    // The same nodes, polled already (not when a re-scoping this one replaced had stopped them).
    if (JSON.stringify(scope) === cur.scope && this.stopPoll) return;
    this.stopPoll?.();
    cur.scope = JSON.stringify(scope);
    this.stopPoll = this.poll(cur.poller, c, scope, cur.feed, !cur.feed.pollingStopped);
  }

  close(): void {
    this.closed = true;
    this.stopPoll?.();
  }

  private poll(
    poller: GpuPollerFactory,
    conn: TargetConnection,
    scope: GpuPollScope,
    feed: RunFeed,
    live: boolean,
  ): () => void {
    if (scope.note && !scope.includeHead && !scope.nodes) {
      feed.setGpus([{ node: NO_ALLOCATION_NODE, gpus: [], error: scope.note }]);
      return () => {};
    }
    // A note beside polled GPUs (a direct run whose other nodes are unknown): one more row says so.
    const note = scope.note;
    const show = note
      ? (s: GpuSnapshot[]) => feed.setGpus([...s, { node: 'other nodes', gpus: [], error: note }])
      : (s: GpuSnapshot[]) => feed.setGpus(s);
    return live ? poller(conn, scope, show) : this.slow(poller, conn, scope, feed);
  }

  /** An ended run's GPUs: one round now (the GPUs freed, or still held by leftovers), then one
   *  every `endedPollMs` (a round that failed on a loaded head is not the last word). */
  private slow(poller: GpuPollerFactory, conn: TargetConnection, scope: GpuPollScope, feed: RunFeed): () => void {
    let stopRound = finalPoll(poller, conn, scope, (s) => feed.setGpus(s));
    const timer = setInterval(() => {
      stopRound();
      stopRound = finalPoll(poller, conn, scope, (s) => feed.setGpus(s));
    }, this.o.endedPollMs);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      stopRound();
    };
  }
}
