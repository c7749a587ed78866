// The runs list of every target, polled. It exists apart from the session because its pace is its
// own concern: every `runsPollMs` while any listed run may still change; once every run on every
// target has ended, every `idleRunsPollMs` (each round lists every run dir and reads its log's
// tail: the largest cost of a cockpit left open on ended runs). A run launched from the cockpit,
// `r`, a resume and a reconnect list at once.
import { listRuns, type RunSummary as RunsSummary } from '../runs/index.js';
import type { TailCache } from '../runs/list.js';
import { sentinelText } from '../runs/sentinel-status.js';
import { errorText } from './error-text.js';
import { localTimeMs } from './event-log-line.js';
import { IDLE_RUNS_POLL_MS, type LiveSessionOptions, type TargetConnection } from './live-options.js';
import { ENDED_STATES, type RunState, type RunSummary } from './types.js';

export interface RunsListOptions extends Pick<LiveSessionOptions, 'targets' | 'runsPollMs' | 'idleRunsPollMs'> {
  /** A target was listed (its runs as src/runs reports them). */
  listed(c: TargetConnection, runs: RunsSummary[]): void;
  /** A target could not be listed. */
  failed(c: TargetConnection, message: string): void;
}

/** src/runs' summary as the cockpit shows it. */
export function toSummary(r: RunsSummary, target: string): RunSummary {
  return {
    id: r.runId,
    target,
    experiment: r.record.experiment,
    trial: r.record.trial,
    state: r.state as RunState,
    step: r.globalStep ?? null,
    totalSteps: r.totalSteps ?? null,
    reward: r.lastReward ?? null,
    // The time of the step the list read from the log's tail (the Runs row's age before the run is opened).
    lastStepAt: localTimeMs(r.lastStepAt),
    ...(r.sentinel && r.sentinel.state !== 'none'
      ? {
          sentinel: {
            state: r.sentinel.state,
            text: sentinelText(r.sentinel),
            ...(r.sentinel.disk ? { disk: true } : {}),
          },
        }
      : {}),
  };
}

/** When to list the runs again: soon while any run may change (or a target was never listed, or
 *  lists none: one is being waited for), slowly once every run on every target has ended. */
export function runsPollDelay(
  raw: ReadonlyMap<string, readonly Pick<RunsSummary, 'state'>[]>,
  targets: number,
  o: Pick<LiveSessionOptions, 'runsPollMs' | 'idleRunsPollMs'> = {},
): number {
  const all = [...raw.values()].flat();
  const idle = all.length > 0 && raw.size >= targets && all.every((r) => ENDED_STATES.has(r.state));
  return idle ? (o.idleRunsPollMs ?? IDLE_RUNS_POLL_MS) : (o.runsPollMs ?? 5000);
}

export class RunsList {
  /** The latest listing of each target, by target name. */
  private readonly raw = new Map<string, RunsSummary[]>();
  /** Each target's log tails as last read: a log that did not change is not sent again. */
  private readonly tails = new Map<string, TailCache>();
  /** The one run the screen shows (the dashboard): only its record is listed (null: every run). */
  private focus: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** One chain of rounds: a kick starts a new chain, the old one stops at its next step. */
  private chain = 0;
  private closed = false;

  constructor(private readonly o: RunsListOptions) {}

  /** The next round, at the pace the runs call for (a new chain unless one is given). */
  schedule(chain = ++this.chain): void {
    if (this.closed || chain !== this.chain) return;
    if (this.timer) clearTimeout(this.timer);
    const ms = runsPollDelay(this.raw, this.o.targets.length, this.o);
    this.timer = setTimeout(() => {
      if (chain !== this.chain) return;
      void this.refreshAll().finally(() => this.schedule(chain));
    }, ms);
    this.timer.unref?.();
  }

  /** A run came back to life (resumed): list the runs now and at the fast pace again. */
  kick(): void {
    if (this.timer) clearTimeout(this.timer);
    const chain = ++this.chain;
    void this.refreshAll().finally(() => this.schedule(chain));
  }

  /** What the screen shows: one run (the dashboard; its feed follows its log, so no tail is read
   *  and no other run is listed), or every run (null: the Runs screen, listed at once). */
  setFocus(runId: string | null): void {
    if (runId === this.focus) return;
    this.focus = runId;
    if (runId === null) this.kick();
  }

  /** List one target now (skipped while it is not connected). */
  async refresh(c: TargetConnection): Promise<void> {
    if (c.transport.state.state !== 'ready') return;
    const focus = this.focus;
    const listed = this.raw.get(c.target.name);
    const here = focus !== null && listed?.some((r) => r.runId === focus) === true;
    // The focused run is on another target: nothing of this one is on screen. (Not listed anywhere
    // yet, e.g. just opened by id: every run is listed, to find it.)
    if (focus !== null && !here && this.find(focus)) return;
    try {
      let tails = this.tails.get(c.target.name);
      if (!tails) this.tails.set(c.target.name, (tails = new Map()));
      const runs =
        here && listed
          ? mergeOne(listed, focus!, await listRuns(c.transport, c.target, { only: focus!, tailBytes: 0 }))
          : await listRuns(c.transport, c.target, { tailBytes: 64 * 1024, tails });
      this.raw.set(c.target.name, runs);
      this.o.listed(c, runs);
    } catch (err) {
      this.o.failed(c, errorText(err));
    }
  }

  async refreshAll(): Promise<void> {
    await Promise.all(this.o.targets.map((c) => this.refresh(c)));
  }

  /** A run by id in the latest listings, with the target it is on. */
  find(runId: string): { conn: TargetConnection; run: RunsSummary } | null {
    for (const c of this.o.targets) {
      const run = this.raw.get(c.target.name)?.find((r) => r.runId === runId);
      if (run) return { conn: c, run };
    }
    return null;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}

/** The listing with one run's entry replaced by a fresh one (listed without its log's tail: the figures
 *  read from the tail before are kept until the next full listing). */
function mergeOne(listed: readonly RunsSummary[], runId: string, fresh: readonly RunsSummary[]): RunsSummary[] {
  const one = fresh.find((r) => r.runId === runId);
  if (!one) return listed.filter((r) => r.runId !== runId);
  return listed.map((r) => {
    if (r.runId !== runId) return r;
    const { globalStep, lastStepAt, totalSteps, lastReward, lastLines } = r;
    const kept = { globalStep, lastStepAt, totalSteps, lastReward, lastLines };
    return { ...Object.fromEntries(Object.entries(kept).filter(([, v]) => v !== undefined)), ...one };
  });
}
