// The Session the real cockpit runs on: targets and their runs (polled through each target's
// Transport), the selected run's feed, the Config screen's evaluation, and launch/stop through
// src/runs — the same code paths as the headless commands.
import type { Transport } from '../../remote/transport.js';
import { launchRun, listRuns, runLogPath, runNodes, stopRun, type RunSummary as RunsSummary, type Target } from '../../runs/index.js';
import { requiredSecretNames } from '../../config/index.js';
import { GpuPoller, gpuPollScope, type GpuPollScope, type GpuSnapshot as PolledGpus } from '../../gpu/index.js';
import type { ConfigEvaluation } from '../../config/index.js';
// Direct modules, not the indexes: src/preflight imports runs modules itself (see preflight-gate.ts).
import { preflightGate, type GateResult } from '../../runs/preflight-gate.js';
import { findLeftovers, stopLeftovers, type LeftoverOptions, type NodeFailure } from '../../preflight/leftovers.js';
import { buildConfigView, overrideKey, typedValueText, withValue, type ConfigSource } from './config-view.js';
import { RunFeed, type RunFacts } from './run-feed.js';
import { emptyState } from './static-session.js';
import { ENDED_STATES, type ConfigRow, type GpuSnapshot, type LeftoverProcess, type RunState, type RunSummary, type Session, type SessionActions, type SessionState, type TargetSummary } from './types.js';

export interface TargetConnection {
  target: Target;
  transport: Transport;
  /**
   * The other hosts of a direct multi-node (Ray) run on this target, as the user named them
   * (`--check-nodes H1,H2`, like `awrl-tui stop`): run.json does not record them. The GPU panel
   * polls the head AND these; the leftover check looks on them too. Slurm runs ignore them.
   */
  directRunHosts?: string[];
}

/**
 * GPU polling is injected (src/gpu's poller): start it for a run on `scope` (src/gpu's
 * gpuPollScope: which hosts, the head or not), get snapshots, stop it.
 */
export type GpuPollerFactory = (conn: TargetConnection, scope: GpuPollScope, onSnapshots: (s: GpuSnapshot[]) => void) => () => void;

export interface LiveSessionOptions {
  targets: TargetConnection[];
  /** The config the Config screen edits and launches. */
  config?: { fileName: string; text: string; overrides?: string[] } | null;
  /** Target name launches go to (default: the first). */
  launchTarget?: string;
  /** Secret values for launches (names only are ever shown). */
  env?: Record<string, string | undefined>;
  /** Open this run at start. */
  openRunId?: string;
  runsPollMs?: number;
  /** The runs list once every listed run has ended (default 30 s). */
  idleRunsPollMs?: number;
  statePollMs?: number;
  /** How often an ended run's state (for a resume) and GPUs are still checked; default 60 s. */
  endedStatePollMs?: number;
  /** Default: src/gpu's poller on the run's head node every 5 s; null: no GPU polling. */
  gpuPoller?: GpuPollerFactory | null;
  /** Facts of a run's config (budget, batch size), read from its config.yaml; overridable for tests. */
  runFacts?: (conn: TargetConnection, record: RunsSummary) => Promise<RunFacts>;
  clock?: () => number;
}

/** An ended run: its state and GPUs are checked this often (its log is no longer followed). */
export const ENDED_POLL_MS = 60_000;
/** The runs list when every run on every target has ended. */
export const IDLE_RUNS_POLL_MS = 30_000;

function toSummary(r: RunsSummary, target: string): RunSummary {
  return {
    id: r.runId,
    target,
    experiment: r.record.experiment,
    trial: r.record.trial,
    state: r.state as RunState,
    step: r.globalStep ?? null,
    totalSteps: r.totalSteps ?? null,
    reward: r.lastReward ?? null,
    lastStepAt: null,
  };
}

export class LiveSession implements Session {
  private state: SessionState = emptyState();
  private readonly listeners = new Set<() => void>();
  private readonly raw = new Map<string, RunsSummary[]>();
  private feed: RunFeed | null = null;
  private stopGpu: (() => void) | null = null;
  /** What the selected run's GPU poller was started for (a Slurm run's scope is derived again when
   *  its allocation changes: the job left the queue, an auto-resume attempt got other nodes). */
  private gpu: { runId: string; allocation: string; scope: string; poller: GpuPollerFactory } | null = null;
  private unsubs: (() => void)[] = [];
  private configSource: ConfigSource | null = null;
  private rowTypes = new Map<string, ConfigRow['type']>();
  private closed = false;
  readonly actions: SessionActions;

  constructor(private readonly o: LiveSessionOptions) {
    const env = o.env ?? process.env;
    this.state.targets = o.targets.map((c) => ({ name: c.target.name, connection: c.transport.state, runs: [] }));
    if (o.config) {
      const target = this.launchConn();
      this.configSource = {
        fileName: o.config.fileName,
        text: o.config.text,
        overrides: o.config.overrides ?? [],
        envNames: new Set(Object.keys(env).filter((k) => env[k] !== undefined && env[k] !== '')),
        target: target?.target.name ?? null,
        remoteConfigPath: `${target?.target.workdir ?? '.'}/.awrl/runs/<run-id>/config.yaml`,
        python: target?.target.python,
      };
      this.evaluateConfig(null);
    }
    this.actions = {
      selectRun: (id) => this.selectRun(id),
      refreshRuns: () => void this.refreshAll().finally(() => this.scheduleRunsPoll()),
      stopRun: (id) => this.stop(id),
      setDraft: (d) => this.setDraft(d),
      setValue: (key, text) => this.setOverrides(withValue(this.configSource?.overrides ?? [], key, typedValueText(this.rowTypes.get(key) ?? 'other', text))),
      addOverride: (text) => this.setOverrides([...(this.configSource?.overrides ?? []).filter((x) => overrideKey(x) !== overrideKey(text)), text]),
      removeOverride: (index) => this.setOverrides((this.configSource?.overrides ?? []).filter((_, i) => i !== index - 1)),
      launch: (opts) => this.launch(env, opts?.skipPreflight ?? false),
      runPreflight: () => this.runPreflight(env),
      checkLeftovers: (id) => this.checkLeftovers(id),
      stopLeftovers: (id) => this.stopLeftovers(id),
    };
  }

  /** Subscribe to transports, start polling, open the initial run. */
  start(): this {
    for (const c of this.o.targets) {
      this.unsubs.push(
        c.transport.onState((s) => {
          this.patchTarget(c.target.name, { connection: s });
          if (s.state === 'ready') void this.refresh(c);
        }),
      );
      void this.refresh(c);
    }
    this.scheduleRunsPoll();
    if (this.o.openRunId) this.selectRun(this.o.openRunId);
    return this;
  }

  /**
   * The runs list every `runsPollMs` while any listed run may still change; once every run on
   * every target has ended, every `idleRunsPollMs` (each round lists every run dir and reads its
   * log's tail: the largest cost of a cockpit left open on ended runs). A run launched from the
   * cockpit, `r`, and a reconnect refresh at once.
   */
  private runsTimer: NodeJS.Timeout | null = null;
  /** One chain of runs-list rounds: a kick starts a new chain, the old one stops at its next step. */
  private runsChain = 0;
  private scheduleRunsPoll(chain = ++this.runsChain): void {
    if (this.closed || chain !== this.runsChain) return;
    if (this.runsTimer) clearTimeout(this.runsTimer);
    const ms = runsPollDelay(this.raw, this.o.targets.length, this.o);
    this.runsTimer = setTimeout(() => {
      if (chain !== this.runsChain) return;
      void this.refreshAll().finally(() => this.scheduleRunsPoll(chain));
    }, ms);
    this.runsTimer.unref?.();
  }

  /** A run came back to life (resumed): list the runs now and at the fast pace again. */
  private kickRunsPoll(): void {
    if (this.runsTimer) clearTimeout(this.runsTimer);
    const chain = ++this.runsChain;
    void this.refreshAll().finally(() => this.scheduleRunsPoll(chain));
  }

  getState(): SessionState {
    // The run view is derived lazily, once per frame at most.
    if (this.feed) {
      const run = this.feed.getView();
      if (run !== this.state.run) this.state = { ...this.state, run };
    }
    return this.state;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private update(patch: Partial<SessionState>): void {
    if (this.closed) return;
    this.state = { ...this.state, ...patch, version: this.state.version + 1 };
    for (const l of this.listeners) l();
  }

  private launchConn(): TargetConnection | undefined {
    return this.o.targets.find((c) => c.target.name === this.o.launchTarget) ?? this.o.targets[0];
  }

  private patchTarget(name: string, patch: Partial<TargetSummary>): void {
    this.update({ targets: this.state.targets.map((t) => (t.name === name ? { ...t, ...patch } : t)) });
  }

  private async refresh(c: TargetConnection): Promise<void> {
    if (c.transport.state.state !== 'ready') return;
    try {
      const runs = await listRuns(c.transport, c.target, { tailBytes: 64 * 1024 });
      this.raw.set(c.target.name, runs);
      void this.followAllocation(c);
      this.patchTarget(c.target.name, { runs: runs.map((r) => toSummary(r, c.target.name)), error: undefined });
    } catch (err) {
      this.patchTarget(c.target.name, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async refreshAll(): Promise<void> {
    await Promise.all(this.o.targets.map((c) => this.refresh(c)));
  }

  private findRun(runId: string): { conn: TargetConnection; run: RunsSummary } | null {
    for (const c of this.o.targets) {
      const run = this.raw.get(c.target.name)?.find((r) => r.runId === runId);
      if (run) return { conn: c, run };
    }
    return null;
  }

  private selectRun(runId: string | null): void {
    if (runId === this.feed?.runId) return;
    this.feed?.close();
    this.stopGpu?.();
    this.feed = null;
    this.stopGpu = null;
    this.gpu = null;
    this.update({ selectedRunId: runId, run: null });
    if (runId) void this.open(runId);
  }

  private async open(runId: string): Promise<void> {
    let found = this.findRun(runId);
    if (!found) {
      await this.refreshAll();
      found = this.findRun(runId);
    }
    if (this.state.selectedRunId !== runId) return;
    if (!found) {
      this.update({ notice: `run ${runId} not found on ${this.o.targets.map((c) => c.target.name).join(', ')}` });
      return;
    }
    const { conn, run } = found;
    const facts = await (this.o.runFacts ?? defaultRunFacts)(conn, run).catch(() => ({}));
    if (this.state.selectedRunId !== runId) return;
    const feed = new RunFeed({
      transport: conn.transport,
      target: conn.target,
      summary: toSummary(run, conn.target.name),
      logPath: runLogPath(run.record),
      facts,
      statePollMs: this.o.statePollMs,
      clock: this.o.clock,
      endedStatePollMs: this.o.endedStatePollMs,
      onChange: () => this.update({}),
      onPollingChange: (live) => void this.gpuFollowsFeed(feed, live),
    });
    this.feed = feed;
    feed.start();
    const poller = this.o.gpuPoller === undefined ? defaultGpuPoller : this.o.gpuPoller;
    if (poller) {
      // Slurm runs (the head is a login node): the allocation's nodes. Direct runs: the head, plus
      // the hosts the user named for a multi-node run. Either way ONE command per round on the
      // head fans out to the nodes (src/gpu), never one SSH channel per node.
      const scope = await runGpuScope(conn, run);
      if (this.state.selectedRunId !== runId || this.feed !== feed) return;
      // An ended run (its feed may have stopped following already): one round only.
      this.stopGpu = feed.pollingStopped ? this.slowGpu(poller, conn, scope, feed) : poller(conn, scope, (s) => feed.setGpus(s));
      this.gpu = { runId, allocation: allocationKey(run), scope: JSON.stringify(scope), poller };
    }
    this.update({ notice: null });
  }

  /**
   * The selected run ended (its feed stopped following): its GPUs are polled slowly (slowGpu).
   * It runs again: poll as before.
   */
  private async gpuFollowsFeed(feed: RunFeed, live: boolean): Promise<void> {
    if (live && this.feed === feed && !this.closed) this.kickRunsPoll();
    const gpu = this.gpu;
    if (!gpu || this.feed !== feed || this.closed) return;
    this.stopGpu?.();
    this.stopGpu = null;
    const found = this.findRun(gpu.runId);
    const conn = found?.conn;
    if (!conn) return;
    // The scope again: a resumed Slurm run may be on other nodes.
    const scope = found.run ? await runGpuScope(conn, found.run).catch(() => JSON.parse(gpu.scope) as GpuPollScope) : (JSON.parse(gpu.scope) as GpuPollScope);
    if (this.gpu !== gpu || this.feed !== feed || this.closed) return;
    gpu.scope = JSON.stringify(scope);
    if (live) {
      this.stopGpu = gpu.poller(conn, scope, (s) => feed.setGpus(s));
      return;
    }
    this.stopGpu = this.slowGpu(gpu.poller, conn, scope, feed);
  }

  /** An ended run's GPUs: one round now (the GPUs freed, or still held by leftovers), then one
   *  every `endedStatePollMs` (a round that failed on a loaded head is not the last word). */
  private slowGpu(poller: GpuPollerFactory, conn: TargetConnection, scope: GpuPollScope, feed: RunFeed): () => void {
    let stopRound = finalPoll(poller, conn, scope, (s) => feed.setGpus(s));
    const timer = setInterval(() => {
      stopRound();
      stopRound = finalPoll(poller, conn, scope, (s) => feed.setGpus(s));
    }, this.o.endedStatePollMs ?? ENDED_POLL_MS);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      stopRound();
    };
  }

  /** A Slurm run opened while queued polls no node of its own yet: once the list shows its
   *  allocation changed, the scope is derived again and the poller restarted on the new one. */
  private async followAllocation(c: TargetConnection): Promise<void> {
    const gpu = this.gpu;
    const feed = this.feed;
    const run = gpu && this.raw.get(c.target.name)?.find((r) => r.runId === gpu.runId);
    if (!gpu || !feed || !run || run.record.backend !== 'slurm' || allocationKey(run) === gpu.allocation) return;
    gpu.allocation = allocationKey(run);
    const scope = await runGpuScope(c, run);
    if (this.gpu !== gpu || this.feed !== feed || this.closed || JSON.stringify(scope) === gpu.scope) return;
    this.stopGpu?.();
    gpu.scope = JSON.stringify(scope);
    this.stopGpu = feed.pollingStopped ? this.slowGpu(gpu.poller, c, scope, feed) : gpu.poller(c, scope, (s) => feed.setGpus(s));
  }

  private evaluateConfig(draft: { key: string; text: string } | null): void {
    if (!this.configSource) return;
    const { view } = buildConfigView(this.configSource, draft, this.rowTypes);
    // Types come from the committed config only: a draft of the wrong type must not retype the key.
    // Nor may a committed override of the wrong type: a key keeps the type it had before any
    // override set it (seed=abc then seed=7 must give an int 7 again, not the string '7').
    if (!draft) {
      const before = this.rowTypes;
      this.rowTypes = new Map(view.rows.map((r) => [r.key, (r.origin.startsWith('override') && before.get(r.key)) || r.type]));
    }
    this.update({ config: view });
  }

  // An evaluation takes ~0.1-0.3 s: evaluate a draft once typing pauses, not per keystroke.
  private draftTimer: NodeJS.Timeout | null = null;
  private setDraft(d: { key: string; text: string } | null): void {
    if (this.draftTimer) clearTimeout(this.draftTimer);
    this.draftTimer = null;
    if (d === null) {
      if (this.state.config?.draft) this.evaluateConfig(null);
      return;
    }
    this.draftTimer = setTimeout(() => {
      this.draftTimer = null;
      this.evaluateConfig(d);
    }, 150);
  }

  private setOverrides(overrides: string[]): void {
    if (this.draftTimer) clearTimeout(this.draftTimer);
    this.draftTimer = null;
    if (!this.configSource) return;
    this.configSource = { ...this.configSource, overrides };
    this.evaluateConfig(null);
  }

  private envNames(env: Record<string, string | undefined>): string[] {
    return Object.keys(env).filter((k) => env[k] !== undefined && env[k] !== '');
  }

  /** The Config screen's committed config, evaluated; null (with the launch/notice updated) when it cannot launch. */
  private launchable(): { src: ConfigSource; conn: TargetConnection; ev: ConfigEvaluation } | { error: string } {
    const src = this.configSource;
    const conn = this.launchConn();
    if (!src || !conn) return { error: 'no config or no target to launch on' };
    const { evaluation: ev } = buildConfigView(src, null);
    if (ev.hasErrors || !ev.resolved || !ev.experimentName || !ev.trialName) return { error: 'the config has errors: see Diagnostics' };
    return { src, conn, ev };
  }

  // Each pre-flight gets a number: a slower earlier one must not overwrite a newer result.
  private preflightSeq = 0;
  /** The same gate as `--launch`: one probe on the target, results into state.preflight. */
  private async gate(conn: TargetConnection, ev: ConfigEvaluation, overrides: string[], env: Record<string, string | undefined>, skip: boolean): Promise<GateResult> {
    const seq = ++this.preflightSeq;
    this.update({ preflight: { phase: 'running', target: conn.target.name } });
    const g = await preflightGate(conn.transport, { evaluation: ev, target: conn.target, envNames: this.envNames(env), skip, skipHint: 'press S in the launch confirmation' });
    if (seq === this.preflightSeq) {
      this.update({
        preflight: {
          phase: 'done',
          target: conn.target.name,
          checks: g.checks.map((c) => ({ id: c.id, result: c.result, seen: c.seen, todo: c.todo })),
          errors: g.summary.errors,
          warnings: g.summary.warnings,
          blocked: g.summary.failed !== undefined || g.summary.errors > 0,
          reason: g.summary.failed !== undefined || g.summary.errors > 0 ? g.reason || `preflight found ${g.summary.errors} error(s) on ${conn.target.name}` : '',
          ...(g.summary.failed !== undefined ? { failed: g.summary.failed } : {}),
          overrides: [...overrides],
        },
      });
    }
    return g;
  }

  private async runPreflight(env: Record<string, string | undefined>): Promise<void> {
    const l = this.launchable();
    if ('error' in l) {
      // Said where the pre-flight is shown, so a launch confirmation never waits for nothing.
      const target = this.launchConn()?.target.name ?? 'no target';
      return this.update({ preflight: { phase: 'done', target, checks: [], errors: 0, warnings: 0, blocked: true, reason: l.error, failed: l.error, overrides: [...(this.configSource?.overrides ?? [])] } });
    }
    await this.gate(l.conn, l.ev, l.src.overrides, env, false).catch((err) => {
      this.update({ preflight: { phase: 'idle' }, notice: `pre-flight failed: ${err instanceof Error ? err.message : String(err)}` });
    });
  }

  private async launch(env: Record<string, string | undefined>, skipPreflight: boolean): Promise<void> {
    const l = this.launchable();
    if ('error' in l) return this.update({ launch: { phase: 'failed', message: l.error } });
    const { src, conn, ev } = l;
    this.update({ launch: { phase: 'launching' } });
    try {
      // Every launch goes through the gate, like `--launch`: an error stops it unless skipped.
      const g = await this.gate(conn, ev, src.overrides, env, skipPreflight);
      if (g.blocked) return this.update({ launch: { phase: 'failed', message: g.reason } });
      const needs = requiredSecretNames(ev.resolved!);
      const secretNames = conn.target.forwardEnv ?? needs.filter((s) => s.required || (env[s.name] ?? '') !== '').map((s) => s.name);
      const cluster = (ev.resolved!.cluster ?? {}) as { n_nodes?: number; n_gpus_per_node?: number };
      const result = await launchRun(
        {
          target: conn.target,
          configText: src.text,
          experiment: ev.experimentName!,
          trial: ev.trialName!,
          trainerArgv: (remoteConfigPath) => ev.launchArgv({ remoteConfigPath, python: conn.target.python }),
          secretNames,
          nodes: cluster.n_nodes ?? 1,
          gpusPerNode: cluster.n_gpus_per_node,
          preflight: g.summary,
        },
        conn.transport,
        { env },
      );
      const runId = result.record.runId;
      this.update({ launch: { phase: 'launched', runId, message: `launched ${runId} on ${conn.target.name}` } });
      await this.refresh(conn);
      // A run is live again: the runs list back to its fast pace now, not after an idle 30 s.
      this.scheduleRunsPoll();
      this.selectRun(runId);
    } catch (err) {
      this.update({ launch: { phase: 'failed', message: err instanceof Error ? err.message : String(err) } });
    }
  }

  private async stop(runId: string): Promise<void> {
    const found = this.findRun(runId);
    if (!found) return this.update({ notice: `run ${runId} not found` });
    this.update({ notice: `stopping ${runId}…` });
    try {
      const r = await stopRun(found.conn.transport, found.conn.target, runId);
      this.update({ notice: `stopped ${runId}${r.left.length ? ` (${r.left.length} processes left: ${r.left.join(', ')})` : ''}` });
    } catch (err) {
      this.update({ notice: `stop failed: ${err instanceof Error ? err.message : String(err)}` });
    }
    await this.refresh(found.conn);
  }

  private leftoverTarget(runId: string): TargetConnection | null {
    return this.findRun(runId)?.conn ?? null;
  }

  /** A Slurm run's nodes as its run.json recorded them (the job has ended: squeue no longer knows
   *  them); a direct run's head plus the hosts the user named (like `awrl-tui stop --check-nodes`). */
  private leftoverScope(runId: string): LeftoverOptions {
    const found = this.findRun(runId);
    const run = found?.run;
    const hosts = run?.record.backend === 'direct' ? (found?.conn.directRunHosts ?? []) : [];
    const recorded = run?.record.backend === 'slurm' ? runNodes(run.record) : [];
    const onUnreachable = (f: NodeFailure[]) => this.update({ notice: `leftover check: ${f.map((x) => x.error).join('; ')}` });
    if (recorded.length) return { nodes: recorded, onUnreachable };
    return hosts.length ? { nodes: [...hosts], includeHead: true, onUnreachable } : {};
  }

  private async checkLeftovers(runId: string): Promise<void> {
    const conn = this.leftoverTarget(runId);
    if (!conn) return this.update({ leftovers: { phase: 'failed', runId, message: `run ${runId} not found` } });
    this.update({ leftovers: { phase: 'checking', runId } });
    try {
      const scope = this.leftoverScope(runId);
      const list = await findLeftovers(conn.transport, runId, { setup: conn.target.setup, ...scope });
      this.update({ leftovers: { phase: 'found', runId, list: list.map((l) => leftoverView(l, !!scope.nodes)) } });
    } catch (err) {
      this.update({ leftovers: { phase: 'failed', runId, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  private async stopLeftovers(runId: string): Promise<void> {
    const conn = this.leftoverTarget(runId);
    const cur = this.state.leftovers;
    if (!conn || !cur || cur.phase !== 'found' || cur.runId !== runId) return;
    this.update({ leftovers: { phase: 'stopping', runId, list: cur.list } });
    try {
      // Only processes tagged with this run are ever signalled (src/preflight re-checks each PID's tag).
      const scope = this.leftoverScope(runId);
      const r = await stopLeftovers(conn.transport, runId, { setup: conn.target.setup, graceSeconds: 5, ...scope });
      const view = (l: LeftoverProcess) => leftoverView(l, !!scope.nodes);
      this.update({ leftovers: { phase: 'stopped', runId, stopped: r.stopped.map(view), remaining: r.remaining.map(view) } });
    } catch (err) {
      this.update({ leftovers: { phase: 'failed', runId, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.runsTimer) clearTimeout(this.runsTimer);
    if (this.draftTimer) clearTimeout(this.draftTimer);
    for (const u of this.unsubs) u();
    this.feed?.close();
    this.stopGpu?.();
    this.listeners.clear();
  }
}

function leftoverView(l: LeftoverProcess & { node?: string }, spansNodes: boolean): LeftoverProcess {
  return { ...(spansNodes && l.node ? { node: l.node } : {}), pid: l.pid, tagged: l.tagged, otherRunId: l.otherRunId, user: l.user, cmd: l.cmd, gpuMiB: l.gpuMiB };
}

/**
 * Hostnames of a Slurm run's current allocation ([] when not on Slurm or not running). The target's
 * setup line runs first, as for every Slurm command (it may be what puts squeue on PATH or sets
 * SLURM_CONF); its output is dropped so that it never reads as a hostname.
 */
export async function slurmNodes(conn: TargetConnection, run: RunsSummary): Promise<string[]> {
  const job = [...run.record.attempts].reverse().find((a) => a.jobId)?.jobId;
  if (run.record.backend !== 'slurm' || !job) return [];
  const script = '[ -n "$2" ] && { eval "$2"; } >/dev/null 2>&1 </dev/null; n=$(squeue -h -j "$1" -o %N) && [ -n "$n" ] && scontrol show hostnames "$n"';
  const r = await conn.transport.exec(['bash', '-c', script, 'awrl-nodes', job, conn.target.setup ?? '']);
  if (r.code !== 0) return [];
  return r.stdout.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean);
}

/** One round of `poller`, then stopped (the factory only knows how to start and stop: the round
 *  may be delivered before the factory returns). Returns a stop for a close meanwhile. */
export function finalPoll(poller: GpuPollerFactory, conn: TargetConnection, scope: GpuPollScope, onSnapshots: (s: GpuSnapshot[]) => void): () => void {
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

/** When to list the runs again: soon while any run may change (or a target was never listed, or
 *  lists none: one is being waited for), slowly once every run on every target has ended. */
export function runsPollDelay(raw: ReadonlyMap<string, readonly Pick<RunsSummary, 'state'>[]>, targets: number, o: Pick<LiveSessionOptions, 'runsPollMs' | 'idleRunsPollMs'> = {}): number {
  const all = [...raw.values()].flat();
  const idle = all.length > 0 && raw.size >= targets && all.every((r) => ENDED_STATES.has(r.state));
  return idle ? (o.idleRunsPollMs ?? IDLE_RUNS_POLL_MS) : (o.runsPollMs ?? 5000);
}

/** What a Slurm run's allocation depends on, as the run list sees it. */
function allocationKey(run: RunsSummary): string {
  const last = run.record.attempts.at(-1);
  return [run.state, run.record.attempts.length, last?.jobId ?? '', (last?.nodes ?? []).join(',')].join('|');
}

/**
 * Which hosts a run's GPU panel polls (src/gpu's gpuPollScope). Slurm: the live allocation, else
 * the nodes the latest attempt recorded in run.json (squeue may not answer, or the job just ended).
 * Direct: the head, plus the target's `directRunHosts` when the user named them (never added to a
 * Slurm run: its GPUs are on its allocation only).
 */
export async function runGpuScope(conn: TargetConnection, run: RunsSummary): Promise<GpuPollScope> {
  let nodes: string[] = [];
  if (run.record.backend === 'slurm') {
    nodes = await slurmNodes(conn, run).catch(() => []);
    if (nodes.length === 0) nodes = [...run.record.attempts].reverse().find((a) => a.nodes?.length)?.nodes ?? [];
  }
  return gpuPollScope(run.record.backend, nodes, run.record.backend === 'direct' ? (conn.directRunHosts ?? []) : []);
}

/** Budget and batch size from the run's uploaded config.yaml, through the config engine. */
async function defaultRunFacts(conn: TargetConnection, run: RunsSummary): Promise<RunFacts> {
  const { evaluateConfig } = await import('../../config/index.js');
  const text = (await conn.transport.readFile(`${run.record.runDir}/config.yaml`)).toString('utf8');
  const overrides = run.record.argv.slice(run.record.argv.indexOf('--config') + 2);
  const ev = evaluateConfig({ fileName: 'config.yaml', text, overrides });
  const r = ev.resolved ?? {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  return {
    consumerBatchSize: num(r.rollout?.consumer_batch_size),
    maxHeadOffpolicyness: num(r.rollout?.max_head_offpolicyness),
    recoverFreqSecs: num(r.recover?.freq_secs),
  };
}

/** src/gpu's snapshot as the panel reads it (unreachable and stale carried, never zero GPUs). */
export function gpuView(n: PolledGpus): GpuSnapshot {
  return {
    node: n.node,
    at: n.at,
    gpus: n.gpus.map((g, i) => ({ index: g.index ?? i, name: g.name ?? undefined, usedMiB: g.memoryUsedMiB, totalMiB: g.memoryTotalMiB, utilPct: g.utilizationPct })),
    ...(n.error !== undefined ? { error: n.error } : {}),
    ...(n.unreachable ? { unreachable: true } : {}),
    ...(n.stale ? { stale: true } : {}),
    ...(n.figuresAt !== undefined ? { figuresAt: n.figuresAt } : {}),
  };
}

/** src/gpu's poller: one exec per round on the head (fanning out to the scope's nodes), every 5 s;
 *  the target's setup line runs before nvidia-smi on each node. */
export const defaultGpuPoller: GpuPollerFactory = (conn, scope, onSnapshots) => {
  const p = new GpuPoller(conn.transport, {
    ...scope,
    setup: conn.target.setup,
    headName: conn.target.name,
    intervalMs: 5000,
    onSnapshot: (snaps) => onSnapshots(snaps.map(gpuView)),
  });
  p.start();
  return () => p.stop();
};

export function createLiveSession(o: LiveSessionOptions): LiveSession {
  return new LiveSession(o).start();
}
