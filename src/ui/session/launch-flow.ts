// Launching from the Config screen, through the same pre-flight gate as `awrl-tui --launch`: `p`
// runs the gate alone, a launch always runs it first and stops on an error unless the user skipped
// it (S). Results go to the session state (preflight, launch) for the Config screen to show.
import { requiredSecretNames, type ConfigEvaluation } from '../../config/index.js';
import { launchRun } from '../../runs/index.js';
// Direct module, not the index: src/preflight imports runs modules itself (see preflight-gate.ts).
import { preflightGate, type GateResult } from '../../runs/preflight-gate.js';
import type { ConfigEditor } from './config-edit.js';
import type { ConfigSource } from './config-view.js';
import { errorText } from './error-text.js';
import { setEnvNames, type TargetConnection } from './live-options.js';
import type { SessionState } from './types.js';

export interface LaunchFlowOptions {
  editor: ConfigEditor | null;
  /** The target launches go to. */
  conn: TargetConnection | undefined;
  env: Record<string, string | undefined>;
  update(patch: Partial<SessionState>): void;
  /** The run was launched on `conn`: list it and open it. */
  launched(conn: TargetConnection, runId: string): Promise<void>;
}

export class LaunchFlow {
  // Each pre-flight gets a number: a slower earlier one must not overwrite a newer result.
  private preflightSeq = 0;

  constructor(private readonly o: LaunchFlowOptions) {}

  async runPreflight(): Promise<void> {
    const l = this.launchable();
    if ('error' in l) {
      // Said where the pre-flight is shown, so a launch confirmation never waits for nothing.
      const target = this.o.conn?.target.name ?? 'no target';
      return this.o.update({ preflight: { phase: 'done', target, checks: [], errors: 0, warnings: 0, blocked: true, reason: l.error, failed: l.error, overrides: [...(this.o.editor?.source.overrides ?? [])] } });
    }
    await this.gate(l.conn, l.ev, l.src.overrides, false).catch((err) => {
      this.o.update({ preflight: { phase: 'idle' }, notice: `pre-flight failed: ${errorText(err)}` });
    });
  }

  async launch(skipPreflight: boolean): Promise<void> {
    const { env, update } = this.o;
    const l = this.launchable();
    if ('error' in l) return update({ launch: { phase: 'failed', message: l.error } });
    const { src, conn, ev } = l;
    update({ launch: { phase: 'launching' } });
    try {
      // Every launch goes through the gate, like `--launch`: an error stops it unless skipped.
      const g = await this.gate(conn, ev, src.overrides, skipPreflight);
      if (g.blocked) return update({ launch: { phase: 'failed', message: g.reason } });
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
      update({ launch: { phase: 'launched', runId, message: `launched ${runId} on ${conn.target.name}` } });
      await this.o.launched(conn, runId);
    } catch (err) {
      update({ launch: { phase: 'failed', message: errorText(err) } });
    }
  }

  /** The Config screen's committed config, evaluated; an error when it cannot launch. */
  private launchable(): { src: ConfigSource; conn: TargetConnection; ev: ConfigEvaluation } | { error: string } {
    const src = this.o.editor?.source;
    const conn = this.o.conn;
    if (!src || !conn) return { error: 'no config or no target to launch on' };
    const ev = this.o.editor!.committed();
    if (ev.hasErrors || !ev.resolved || !ev.experimentName || !ev.trialName) return { error: 'the config has errors: see Diagnostics' };
    return { src, conn, ev };
  }

  /** The same gate as `--launch`: one probe on the target, results into state.preflight. */
  private async gate(conn: TargetConnection, ev: ConfigEvaluation, overrides: string[], skip: boolean): Promise<GateResult> {
    const seq = ++this.preflightSeq;
    this.o.update({ preflight: { phase: 'running', target: conn.target.name } });
    const g = await preflightGate(conn.transport, { evaluation: ev, target: conn.target, envNames: setEnvNames(this.o.env), skip, skipHint: 'press S in the launch confirmation' });
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
          overrides: [...overrides],
        },
      });
    }
    return g;
  }
}
