// The Session the real cockpit runs on: targets and their runs (polled through each target's
// Transport), the selected run's feed, the Config screen's evaluation, and launch/stop through
// src/runs — the same code paths as the headless commands. This file composes the parts and owns
// the state they update; each part is in its own file: runs-list.ts (the polled runs list),
// selected-run-gpus.ts (the open run's GPU poller), config-edit.ts and launch-flow.ts (the Config
// screen and its launch), stop-leftovers.ts (stop, leftover processes).
import { runLogPath, type RunSummary as RunsSummary } from '../runs/index.js';
import { ConfigEditor } from './config-edit.js';
import { LaunchFlow } from './launch-flow.js';
import { ENDED_POLL_MS, type LiveSessionOptions, type TargetConnection } from './live-options.js';
import { RunFeed, type RunFacts } from './run-feed.js';
import { sentinelSilentAlert } from '../sentinel/sentinel-alert.js';
import { OutsideAlert } from '../watch/outside-alerts.js';
import { defaultGpuPoller, runGpuScope } from './run-gpu-scope.js';
import { RunsList, toSummary } from './runs-list.js';
import { SelectedRunGpus } from './selected-run-gpus.js';
import { emptyState } from './static-session.js';
import { RetryTransport, connectProblemOf } from './retry-transport.js';
import { RunTrajectories } from './run-trajectories.js';
import { RunStopper } from './stop-leftovers.js';
import { notifyOpenRun } from './run-notify.js';
import type { Notifier } from '../notify/index.js';
import { BaselineFeed } from './baseline-feed.js';
import { LoginPrompts } from './login-prompt.js';
import type {
  BaselineOverlay,
  RunSummary,
  RunView,
  Session,
  SessionActions,
  SessionState,
  TargetSummary,
} from './types.js';

// The API the rest of the cockpit (and its tests) imports from here, wherever the parts now live.
export {
  ENDED_POLL_MS,
  IDLE_RUNS_POLL_MS,
  type GpuPollerFactory,
  type LiveSessionOptions,
  type TargetConnection,
} from './live-options.js';
export { defaultGpuPoller, finalPoll, gpuView, runGpuScope, slurmNodes } from './run-gpu-scope.js';
export { runsPollDelay } from './runs-list.js';

export class LiveSession implements Session {
  private state: SessionState = emptyState();
  private readonly listeners = new Set<() => void>();
  private readonly runs: RunsList;
  private readonly gpus: SelectedRunGpus;
  private readonly editor: ConfigEditor | null = null;
  private readonly launcher: LaunchFlow;
  private readonly stopper: RunStopper;
  private feed: RunFeed | null = null;
  /** The open run's notifications (null: none asked for). */
  private notifier: Notifier | null = null;
  /** The run pinned as the baseline (null: none), and the open run's view with it, kept. */
  private baseline: BaselineFeed | null = null;
  private withBaseline: { run: RunView; version: number; out: RunView } | null = null;
  /** The overlay as last derived, by the open run's step count and the baseline's version: a view
   *  that changed for another reason (a log line, a GPU poll) keeps the same overlay object, whose
   *  charts the panels then draw from their cache. */
  private overlay: { steps: number; version: number; overlay: BaselineOverlay } | null = null;
  /** What the screen shows (the cockpit says): the runs list until told otherwise. */
  private shown: 'runs' | 'run' = 'runs';
  /** The open run's silent-sentinel alert, set from each listing of the run. */
  private openSentinel: { runId: string; alert: OutsideAlert } | null = null;
  private trajectories: { runId: string; reader: RunTrajectories } | null = null;
  /** The open Slurm run's job end, for the wall-time rule (null for other runs). */
  private unsubs: (() => void)[] = [];
  private closed = false;
  /** The server's login questions of a reconnect asked for with `r` (a second factor). */
  private readonly logins = new LoginPrompts((loginPrompt) => this.update({ loginPrompt }));
  readonly actions: SessionActions;

  constructor(private readonly o: LiveSessionOptions) {
    const env = o.env ?? process.env;
    const update = (patch: Partial<SessionState>) => this.update(patch);
    const state = () => this.state;
    const findRun = (runId: string) => this.runs.find(runId);
    this.state.targets = o.targets.map((c) => ({
      name: c.target.name,
      connection: c.transport.state,
      runs: [],
      ...problemOf(c),
      needsLogin: c.transport.needsLogin === true,
    }));
    this.runs = new RunsList({
      targets: o.targets,
      runsPollMs: o.runsPollMs,
      idleRunsPollMs: o.idleRunsPollMs,
      listed: (c, runs) => {
        void this.gpus.followAllocation(c, runs);
        this.patchTarget(c.target.name, { runs: runs.map((r) => toSummary(r, c.target.name)), error: undefined });
        const open = this.openSentinel;
        const seen = open && runs.find((r) => r.runId === open.runId)?.sentinel;
        if (open && seen) open.alert.set(sentinelSilentAlert(seen, open.runId, c.target.name));
      },
      failed: (c, error) => this.patchTarget(c.target.name, { error }),
    });
    this.gpus = new SelectedRunGpus({ endedPollMs: o.endedStatePollMs ?? ENDED_POLL_MS, findRun });
    const launchConn = o.targets.find((c) => c.target.name === o.launchTarget) ?? o.targets[0];
    if (o.config) this.editor = new ConfigEditor({ config: o.config, env, target: launchConn, update, state });
    this.launcher = new LaunchFlow({
      editor: this.editor,
      conn: launchConn,
      env,
      update,
      launched: async (conn, runId) => {
        await this.runs.refresh(conn);
        // A run is live again: the runs list back to its fast pace now, not after an idle 30 s.
        this.runs.schedule();
        this.selectRun(runId);
      },
    });
    this.stopper = new RunStopper({ findRun, refresh: (c) => this.runs.refresh(c), update, state });
    this.actions = {
      selectRun: (id) => this.selectRun(id),
      showing: (what) => {
        this.shown = what;
        this.refocus();
      },
      refreshRuns: () => {
        // `r` also connects again to the targets that could not be reached, where that can help.
        // A connection that ended at a second factor: once more, its question asked in a dialog.
        for (const c of o.targets)
          if (c.transport.needsLogin) void c.transport.loginAgain?.(this.logins.answerer(c.target.name));
          else if (c.transport instanceof RetryTransport) void c.transport.retry();
        void this.runs.refreshAll().finally(() => this.runs.schedule());
      },
      stopRun: (id) => this.stopper.stop(id),
      setDraft: (d) => this.editor?.setDraft(d),
      setValue: (key, text) => this.editor?.setValue(key, text),
      addOverride: (text) => this.editor?.addOverride(text),
      removeOverride: (index) => this.editor?.removeOverride(index),
      launch: (opts) => this.launcher.launch(opts?.skipPreflight ?? false, opts?.autoResume ?? 0),
      runPreflight: () => this.launcher.runPreflight(),
      checkLeftovers: (id) => this.stopper.checkLeftovers(id),
      stopLeftovers: (id) => this.stopper.stopLeftovers(id),
      pinBaseline: (id) => void this.pinBaseline(id),
      answerLogin: (answer) => this.logins.answer(answer),
      listTrajectories: () => void this.trajectoriesOfOpenRun()?.list(),
      openEpisode: (file) => void this.trajectoriesOfOpenRun()?.openEpisode(file),
      pinEpisode: (file) => void this.trajectoriesOfOpenRun()?.pin(file),
    };
  }

  /** Subscribe to transports, start polling, open the initial run. */
  start(): this {
    for (const c of this.o.targets) {
      this.unsubs.push(
        c.transport.onState((s) => {
          this.patchTarget(c.target.name, {
            connection: s,
            connectProblem: problemOf(c).connectProblem,
            needsLogin: c.transport.needsLogin === true,
          });
          if (s.state === 'ready') void this.runs.refresh(c);
        }),
      );
      void this.runs.refresh(c);
    }
    this.runs.schedule();
    if (this.o.openRunId) this.selectRun(this.o.openRunId);
    if (this.o.baselineRunId) void this.pinBaseline(this.o.baselineRunId);
    else if (this.o.baselineFile) this.pinBaselineFile(this.o.baselineFile.path, this.o.baselineFile.local);
    return this;
  }

  getState(): SessionState {
    // The run view is derived lazily, once per frame at most.
    if (this.feed) {
      const run = this.besideBaseline(this.feed.getView(), this.feed);
      if (run !== this.state.run) this.state = { ...this.state, run };
    }
    return this.state;
  }

  /** The open run's view with the pinned baseline beside it (derived once per change of either). */
  private besideBaseline(run: RunView, feed: RunFeed): RunView {
    const b = this.baseline;
    if (!b || b.runId === run.summary.id) return run;
    const memo = this.withBaseline;
    if (memo && memo.run === run && memo.version === b.version) return memo.out;
    const steps = feed.store.stepCount;
    const o = this.overlay;
    const overlay =
      o && o.steps === steps && o.version === b.version && o.overlay.runId === b.runId
        ? o.overlay
        : b.overlay(feed.store, feed.steps.view());
    this.overlay = { steps, version: b.version, overlay };
    const out = { ...run, baseline: overlay };
    this.withBaseline = { run, version: b.version, out };
    return out;
  }

  /** Pins a run of any target as the baseline; the pinned run again unpins it. */
  private async pinBaseline(runId: string): Promise<void> {
    const was = this.baseline;
    this.baseline?.close();
    this.baseline = null;
    this.withBaseline = null;
    if (was?.runId === runId) {
      this.update({ baselineRunId: null, notice: `baseline ${was.label} unpinned` });
      return;
    }
    this.update({ baselineRunId: runId });
    let found = this.runs.find(runId);
    if (!found) {
      await this.runs.refreshAll();
      found = this.runs.find(runId);
    }
    if (this.closed || this.state.baselineRunId !== runId) return;
    if (!found) {
      const where = this.o.targets.map((c) => c.target.name).join(', ');
      this.update({ baselineRunId: null, notice: `baseline: run ${runId} not found on ${where}` });
      return;
    }
    const { conn, run } = found;
    this.startBaseline(conn, toSummary(run, conn.target.name), runLogPath(run.record));
  }

  /** A local log file as the baseline: no run record, so no state to poll (it stays unknown), its
   *  log followed as it grows; named by its path. */
  private pinBaselineFile(path: string, local: TargetConnection): void {
    this.update({ baselineRunId: path });
    const summary = { id: path, target: local.target.name, state: 'unknown' as const };
    this.startBaseline(local, { ...summary, step: null, totalSteps: null, reward: null, lastStepAt: null }, path, {
      label: path,
      statePollMs: 24 * 3600_000,
    });
  }

  private startBaseline(
    conn: TargetConnection,
    summary: RunSummary,
    logPath: string,
    file?: { label: string; statePollMs: number },
  ): void {
    const statePollMs = file?.statePollMs ?? this.o.statePollMs;
    this.baseline = new BaselineFeed({
      transport: conn.transport,
      target: conn.target,
      summary,
      logPath,
      ...(file ? { label: file.label } : {}),
      ...(statePollMs !== undefined ? { statePollMs } : {}),
      endedStatePollMs: file?.statePollMs ?? this.o.endedStatePollMs ?? ENDED_POLL_MS,
      onChange: () => this.update({}),
    }).start();
    this.update({ notice: `baseline ${this.baseline.label} pinned (b on it again unpins)` });
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

  private patchTarget(name: string, patch: Partial<TargetSummary>): void {
    this.update({ targets: this.state.targets.map((t) => (t.name === name ? { ...t, ...patch } : t)) });
  }

  private selectRun(runId: string | null): void {
    if (runId === this.feed?.runId) return;
    this.notifier?.close();
    this.notifier = null;
    this.feed?.close();
    this.gpus.reset();
    this.feed = null;
    this.openSentinel = null;
    this.trajectories = null;
    this.update({ selectedRunId: runId, run: null, trajectories: undefined });
    this.refocus();
    if (runId) void this.open(runId);
  }

  /** The open run's dumps, made when first asked for (null: no run open, or not found). */
  private trajectoriesOfOpenRun(): RunTrajectories | null {
    const runId = this.state.selectedRunId;
    if (!runId) return null;
    if (this.trajectories?.runId === runId) return this.trajectories.reader;
    const found = this.runs.find(runId);
    if (!found) return null;
    const reader = new RunTrajectories({
      transport: found.conn.transport,
      record: found.run.record,
      target: found.conn.target.name,
      update: (t) => {
        if (this.state.selectedRunId === t.runId) this.update({ trajectories: t });
      },
      notice: (notice) => this.update({ notice }),
      ...(this.o.env ? { env: this.o.env } : {}),
    });
    this.trajectories = { runId, reader };
    return reader;
  }

  /** The runs list polls only the open run while a screen of that run is shown. */
  private refocus(): void {
    this.runs.setFocus(this.shown === 'run' ? this.state.selectedRunId : null);
  }

  private async open(runId: string): Promise<void> {
    let found = this.runs.find(runId);
    if (!found) {
      await this.runs.refreshAll();
      found = this.runs.find(runId);
    }
    if (this.state.selectedRunId !== runId) return;
    if (!found) {
      this.update({ notice: `run ${runId} not found on ${this.o.targets.map((c) => c.target.name).join(', ')}` });
      return;
    }
    const { conn, run } = found;
    // The config's facts are read beside the attach's first round trip, not before it: the feed's
    // watch takes no record before they are known.
    const facts = (this.o.runFacts ?? defaultRunFacts)(conn, run).catch((): RunFacts => ({}));
    // The run's sentinel gone silent: an alert of the feed's watch, with or without channels (the
    // person looking should know nothing watches the run once they leave), from the runs list's
    // look at the run, which goes on while the run is shown.
    const sentinelAlert = new OutsideAlert();
    this.openSentinel = { runId, alert: sentinelAlert };
    const feed = new RunFeed({
      transport: conn.transport,
      target: conn.target,
      outsideAlerts: [sentinelAlert],
      summary: toSummary(run, conn.target.name),
      logPath: runLogPath(run.record),
      facts,
      statePollMs: this.o.statePollMs,
      clock: this.o.clock,
      endedStatePollMs: this.o.endedStatePollMs,
      // A Slurm run's job end (the wall-time rule) is asked by the feed's watch, as `follow` does.
      ...(this.o.jobEndPollMs !== undefined ? { jobEndPollMs: this.o.jobEndPollMs } : {}),
      ...(this.o.idleNodeMs !== undefined ? { idleNodeMs: this.o.idleNodeMs } : {}),
      onChange: () => this.update({}),
      onPollingChange: (live) => {
        // A run came back to life: the runs list at once and at its fast pace again.
        if (live && this.feed === feed && !this.closed) this.runs.kick();
        void this.gpus.followFeed(feed, live);
      },
    });
    this.feed = feed;
    this.notifier = notifyOpenRun(
      { watch: feed.watch, runId: feed.runId, transport: conn.transport },
      conn.target,
      this.o.notify,
      (notice) => this.update({ notice }),
    );
    feed.start();
    // Once the watch listens: an alert raised before would stand without having fired.
    if (run.sentinel) sentinelAlert.set(sentinelSilentAlert(run.sentinel, runId, conn.target.name));
    const poller = this.o.gpuPoller === undefined ? defaultGpuPoller : this.o.gpuPoller;
    if (poller) {
      // Slurm runs (the head is a login node): the allocation's nodes. Direct runs: the head, plus
      // the hosts the user named for a multi-node run. Either way ONE command per round on the
      // head fans out to the nodes (src/gpu), never one SSH channel per node.
      const scope = await runGpuScope(conn, run);
      if (this.state.selectedRunId !== runId || this.feed !== feed) return;
      this.gpus.start(poller, conn, run, scope, feed);
    }
    this.update({ notice: null });
  }

  /** What to tell the user once the cockpit is gone (a launch cancelled or finished as it quit). */
  farewell: string | null = null;

  async close(): Promise<void> {
    this.closed = true;
    this.logins.close();
    // First: a launch under way is cancelled (nothing started) or its start is waited for.
    this.farewell = await this.launcher.close().catch(() => null);
    this.runs.close();
    this.editor?.close();
    for (const u of this.unsubs) u();
    // What is queued (the run's end) gets a moment to go out; the cockpit does not wait longer.
    await this.notifier?.finish(3000);
    this.feed?.close();
    this.baseline?.close();
    this.gpus.close();
    this.listeners.clear();
  }
}

/** A target the cockpit could not connect to: its problem (as `connectProblem`, for a patch). */
function problemOf(c: TargetConnection): { connectProblem?: TargetSummary['connectProblem'] } {
  const p = connectProblemOf(c.transport);
  return p ? { connectProblem: p } : { connectProblem: undefined };
}

/** Budget and batch size from the run's config as launched, through the config engine. */
async function defaultRunFacts(conn: TargetConnection, run: RunsSummary): Promise<RunFacts> {
  const { readRunFacts } = await import('../runs/run-facts-eval.js');
  return readRunFacts(conn.transport, run.record);
}

export function createLiveSession(o: LiveSessionOptions): LiveSession {
  return new LiveSession(o).start();
}
