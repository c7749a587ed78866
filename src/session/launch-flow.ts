// Launching from the Config screen, through the same plan builder (src/runs/plan-from-config) and
// pre-flight gate as `awrl-tui --launch`: `p` runs the gate alone, a launch always runs it first
// and stops on an error unless the user skipped it (S). One launch evaluates the committed config
// once and probes the target once: the confirmation's pre-flight (opened with `L`, always fresh) is
// the launch's own when it is for the same config and recent. Quitting the cockpit mid-launch cancels it while
// nothing was started, or waits for a start already sent (close()). Results go to the session
// state (preflight, launch) for the Config screen to show.
import type { ConfigEvaluation } from '../config/index.js';
import { defaultWhere, launchRun, planFromEvaluation, LaunchCancelled, type LaunchPlan } from '../runs/index.js';
import { preflightGate, type GateResult } from '../preflight/gate.js';
import { HOLD_ENV } from '../runs/launch-hold.js';
import { checkTwins } from '../runs/twins.js';
import { RunError } from '../runs/run-error.js';
import type { ConfigEditor } from './config-edit.js';
import type { ConfigSource } from './config-view.js';
import { errorText } from './error-text.js';
import { setEnvNames, type TargetConnection } from './live-options.js';
import type { SessionState } from './types.js';

/** How long a pre-flight stays the launch's own (GPU memory and leftovers change). */
export const PREFLIGHT_REUSE_MS = 120_000;

export interface LaunchFlowOptions {
  editor: ConfigEditor | null;
  /** The target launches go to. */
  conn: TargetConnection | undefined;
  env: Record<string, string | undefined>;
  update(patch: Partial<SessionState>): void;
  /** The run was launched on `conn`: list it and open it. */
  launched(conn: TargetConnection, runId: string): Promise<void>;
  now?: () => number;
}

interface Gated {
  key: string;
  at: number;
  result: Promise<GateResult>;
}

export class LaunchFlow {
  // Each pre-flight gets a number: a slower earlier one must not overwrite a newer result.
  private preflightSeq = 0;
  private lastGate: Gated | null = null;
  private readonly abort = new AbortController();
  private inFlight: Promise<void> | null = null;
  private startingRun: string | null = null;
  private farewell: string | null = null;

  constructor(private readonly o: LaunchFlowOptions) {}

  async runPreflight(): Promise<void> {
    const l = this.launchable();
    if ('error' in l) {
      // Said where the pre-flight is shown, so a launch confirmation never waits for nothing.
      const target = this.o.conn?.target.name ?? 'no target';
      return this.o.update({
        preflight: {
          phase: 'done',
          target,
          checks: [],
          errors: 0,
          warnings: 0,
          blocked: true,
          reason: l.error,
          failed: l.error,
          overrides: [...(this.o.editor?.source.overrides ?? [])],
        },
      });
    }
    // A twin of this trial is the first answer, with the stop command to copy (#17 §4): the GPU
    // memory its processes hold would otherwise be the pre-flight's error.
    // Running from the first moment: an earlier result is never shown as this one's.
    this.o.update({ preflight: { phase: 'running', target: l.conn.target.name } });
    const twin = await this.twinOf(l.conn, l.ev);
    if (twin) {
      return this.o.update({
        preflight: {
          phase: 'done',
          target: l.conn.target.name,
          checks: [],
          errors: 1,
          warnings: 0,
          blocked: true,
          reason: twin,
          failed: twin,
          unskippable: true,
          overrides: [...l.src.overrides],
        },
      });
    }
    // Asked for (p, or the confirmation opening): always a fresh probe, which the launch then reuses.
    await this.gate(l.conn, l.ev, l.src, false, { fresh: true, announced: true }).catch((err) => {
      this.o.update({ preflight: { phase: 'idle' }, notice: `pre-flight failed: ${errorText(err)}` });
    });
  }

  /** `autoResume`: Slurm resubmissions (`--auto-resume N`), chosen in the confirmation; the plan
   *  builder refuses it for a target that is not Slurm, as `--launch` does. */
  launch(skipPreflight: boolean, autoResume = 0): Promise<void> {
    const run = this.doLaunch(skipPreflight, autoResume).finally(() => {
      if (this.inFlight === run) this.inFlight = null;
    });
    this.inFlight = run;
    return run;
  }

  /** The cockpit quits: a launch not yet started is cancelled (nothing on the target); one whose
   *  start was sent is waited for. Returns what to tell the user, or null. */
  async close(): Promise<string | null> {
    this.abort.abort();
    await this.inFlight?.catch(() => undefined);
    return this.farewell;
  }

  private async doLaunch(skipPreflight: boolean, autoResume: number): Promise<void> {
    const { env, update } = this.o;
    const l = this.launchable();
    if ('error' in l) return update({ launch: { phase: 'failed', message: l.error } });
    const { src, conn, ev } = l;
    // The same plan as `--launch` (node count, Slurm warnings, forwarded secrets), from this one evaluation.
    const planned = planFromEvaluation(ev, {
      target: conn.target,
      fileName: src.fileName,
      text: src.text,
      env,
      ...(autoResume > 0 ? { autoResume } : {}),
    });
    if (!planned.ok)
      return update({
        launch: {
          phase: 'failed',
          message: planned.messages.find((m) => /error/.test(m)) ?? 'the config has errors: see Diagnostics',
        },
      });
    if (planned.forwarding.missing.length > 0) {
      return update({
        launch: {
          phase: 'failed',
          message: `not set: ${planned.forwarding.missing.map((s) => `${s.name} (${s.why})`).join(', ')}: export it before starting the cockpit`,
        },
      });
    }
    update({ launch: { phase: 'launching' } });
    try {
      // Every launch goes through the gate, like `--launch`: an error stops it unless skipped.
      const g = await this.gate(conn, ev, src, skipPreflight);
      // Quit during the pre-flight: nothing was started, nothing will be.
      if (this.abort.signal.aborted) throw new LaunchCancelled(conn.target.name);
      const blocked = !skipPreflight && (g.summary.failed !== undefined || g.summary.errors > 0);
      if (blocked)
        return update({
          launch: {
            phase: 'failed',
            message: g.reason || `preflight found ${g.summary.errors} error(s) on ${conn.target.name}`,
          },
        });
      const plan: LaunchPlan = { ...planned.plan, preflight: { ...g.summary, skipped: skipPreflight } };
      const result = await launchRun(plan, conn.transport, {
        env,
        signal: this.abort.signal,
        where: defaultWhere(conn.target),
        onStarting: (runId) => (this.startingRun = runId),
        ...(env[HOLD_ENV] ? { hold: env[HOLD_ENV] } : {}),
      });
      const runId = result.record.runId;
      if (this.abort.signal.aborted)
        this.farewell = `run ${runId} started on ${conn.target.name} (its start was under way when the cockpit quit; it runs on)`;
      // What the plan adds to the Diagnostics (a Slurm time limit without recover.freq_secs, secrets).
      const warned = planned.planWarnings.length ? ` (${planned.planWarnings.join('; ')})` : '';
      const chain = result.record.autoResume > 0 ? `, auto-resume up to ${result.record.autoResume}×` : '';
      update({
        launch: { phase: 'launched', runId, message: `launched ${runId} on ${conn.target.name}${chain}${warned}` },
      });
      if (!this.abort.signal.aborted) await this.o.launched(conn, runId);
    } catch (err) {
      if (err instanceof LaunchCancelled) this.farewell = err.message;
      else if (this.abort.signal.aborted && this.startingRun)
        this.farewell = `the start of ${this.startingRun} on ${conn.target.name} failed: ${errorText(err)}`;
      update({ launch: { phase: 'failed', message: errorText(err) } });
    }
  }

  /** The Config screen's committed config, evaluated (once per call); an error when it cannot launch. */
  private launchable(): { src: ConfigSource; conn: TargetConnection; ev: ConfigEvaluation } | { error: string } {
    const src = this.o.editor?.source;
    const conn = this.o.conn;
    if (!src || !conn) return { error: 'no config or no target to launch on' };
    const ev = this.o.editor!.committed();
    if (ev.hasErrors || !ev.resolved || !ev.experimentName || !ev.trialName)
      return { error: 'the config has errors: see Diagnostics' };
    return { src, conn, ev };
  }

  /** The twin check `--launch` makes first: a run of this experiment+trial that is active (null:
   *  none, or it could not be asked; the launch itself checks again before its start). */
  private async twinOf(conn: TargetConnection, ev: ConfigEvaluation): Promise<string | null> {
    if (!ev.experimentName || !ev.trialName) return null;
    // The cockpit has no --force: what it can do instead is said.
    const q = { experiment: ev.experimentName, trial: ev.trialName, orElse: 'or add the override trial_name=OTHER' };
    return checkTwins(conn.transport, conn.target, q).then(
      () => null,
      (e: unknown) => (e instanceof RunError ? e.message : null),
    );
  }

  /** The same gate as `--launch`: one probe on the target, results into state.preflight. A probe
   *  for the same config and target, running or recent, is reused (skip only changes the verdict). */
  private gate(
    conn: TargetConnection,
    ev: ConfigEvaluation,
    src: ConfigSource,
    skip: boolean,
    o: { fresh?: boolean; announced?: boolean } = {},
  ): Promise<GateResult> {
    const now = (this.o.now ?? Date.now)();
    const key = JSON.stringify([conn.target.name, conn.target.workdir, src.fileName, src.text, src.overrides]);
    const last = this.lastGate;
    if (!o.fresh && last && last.key === key && now - last.at < PREFLIGHT_REUSE_MS)
      return last.result.then((g) => withSkip(g, skip));
    const seq = ++this.preflightSeq;
    if (!o.announced) this.o.update({ preflight: { phase: 'running', target: conn.target.name } });
    const result = preflightGate(conn.transport, {
      evaluation: ev,
      target: conn.target,
      envNames: setEnvNames(this.o.env),
      skip: false,
      skipHint: 'press S in the launch confirmation',
      signal: this.abort.signal,
    });
    this.lastGate = { key, at: now, result };
    // A failed probe is not kept: the next launch tries again.
    result.catch(() => {
      if (this.lastGate?.result === result) this.lastGate = null;
    });
    return result.then((g) => {
      if (g.summary.failed !== undefined && this.lastGate?.result === result) this.lastGate = null;
      if (seq === this.preflightSeq) {
        const blocked = g.summary.failed !== undefined || g.summary.errors > 0;
        this.o.update({
          preflight: {
            phase: 'done',
            target: conn.target.name,
            checks: g.checks.map((c) => ({ id: c.id, result: c.result, seen: c.seen, todo: c.todo })),
            errors: g.summary.errors,
            warnings: g.summary.warnings,
            blocked,
            reason: blocked ? g.reason || `preflight found ${g.summary.errors} error(s) on ${conn.target.name}` : '',
            ...(g.summary.failed !== undefined ? { failed: g.summary.failed } : {}),
            overrides: [...src.overrides],
          },
        });
      }
      return withSkip(g, skip);
    });
  }
}

/** The gate's verdict with the user's skip applied (the probe's checks are the same either way). */
function withSkip(g: GateResult, skip: boolean): GateResult {
  return {
    ...g,
    summary: { ...g.summary, skipped: skip },
    blocked: !skip && (g.summary.failed !== undefined || g.summary.errors > 0),
  };
}
