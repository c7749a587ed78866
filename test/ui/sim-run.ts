// A real run for the cockpit's end-to-end tests: `sim init` a temp checkout, then start the
// simulated trainer through the same launch path as `--launch` (local transport, detached job);
// watchSimRun also opens the cockpit on it (live session, rendered dashboard).
import { createElement } from 'react';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { evaluateConfig, requiredSecretNames } from '../../src/config/index.js';
import { LocalTransport, type Transport } from '../../src/remote/index.js';
import { launchRun, runsRoot, stopRun, type Target } from '../../src/runs/index.js';
import { simInit } from '../../src/sim/init.js';
import { App } from '../../src/ui/app.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { killTree } from '../harness/sshd.js';
import { pidAlive } from '../harness/wait.js';
import { renderInk, type Rendered } from './helpers.js';
import { localTarget } from '../harness/local-run.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/awrl-tui.js');

export interface SimRun {
  dir: string;
  runId: string;
  target: Target;
  transport: LocalTransport;
  configPath: string;
  stop(): Promise<void>;
}

export function simCheckout(): { dir: string; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-ui-'));
  const r = simInit(dir, join(ROOT, 'dist'), ROOT);
  if (!r.config) throw new Error('sim init wrote no config');
  return { dir, configPath: r.config };
}

/** Runs `fn` with `vars` set in this process's environment (the simulated job inherits it: its
 *  AWRL_SIM_SPEED and AWRL_SIM_FAULT), then puts every one back as it was, unset included. */
export async function withSimEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Launch the simulator (AWRL_SIM_SPEED in this process's env reaches the job; see withSimEnv). `envNames`:
 *  the environment variables the config engine may take as set (default: it checks none). */
export async function launchSim(overrides: string[] = [], envNames?: string[]): Promise<SimRun> {
  const { dir, configPath } = simCheckout();
  const text = readFileSync(configPath, 'utf8');
  // envNames: the variables set here, for a config that needs one (wandb online: WANDB_API_KEY).
  const ev = evaluateConfig({ fileName: configPath, text, overrides, ...(envNames ? { envNames } : {}) });
  if (ev.hasErrors || !ev.resolved) throw new Error(`sim config has errors: ${JSON.stringify(ev.diagnostics)}`);
  const target: Target = localTarget(dir);
  const transport = new LocalTransport();
  const res = await launchRun(
    {
      target,
      configText: text,
      experiment: ev.experimentName!,
      trial: ev.trialName!,
      trainerArgv: (p) => ev.launchArgv({ remoteConfigPath: p, python: 'python3' }),
      secretNames: requiredSecretNames(ev.resolved)
        .filter((s) => s.required)
        .map((s) => s.name),
      nodes: 1,
    },
    transport,
    { env: { CPU_CLUSTER_TOKEN: 'sim-token', ...process.env } },
  );
  return {
    dir,
    runId: res.record.runId,
    target,
    transport,
    configPath,
    async stop() {
      const jobPid = runJobPid(target, res.record.runId);
      await stopRun(transport, target, res.record.runId, { graceSeconds: 2 }).catch(() => {});
      // stopRun only asks over the transport (and a test may have broken that): whatever of the job
      // is still here is killed by its recorded PID, if that PID is still this run's.
      if (jobPid !== null && pidAlive(jobPid) && carriesRunTag(jobPid, res.record.runId))
        await killTree(jobPid).catch(() => {});
      await transport.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The detached job's PID (the launch writes it to job.pid in the run's directory), or null. */
function runJobPid(target: Target, runId: string): number | null {
  const file = `${runsRoot(target)}/${runId}/job.pid`;
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** The process carries the run's tag (as the launch sets it), so the PID was not reused by another. */
function carriesRunTag(pid: number, runId: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`AWRL_RUN_ID=${runId}`);
  } catch {
    return false;
  }
}

export interface WatchSimOptions {
  /** AWRL_SIM_SPEED, AWRL_SIM_FAULT... for the simulated job (see withSimEnv). */
  env?: Record<string, string>;
  /** Hydra overrides for the launch (e.g. `++trial_name=...`, so runs of different tests differ). */
  overrides?: string[];
  /** Watch this run, already launched, instead of launching one; its caller stops it. */
  sim?: SimRun;
  /** Called after the launch, before the cockpit opens: the target and transport the cockpit
   *  watches through (default: the launch's own, local). A transport given here is closed by close(). */
  via?: (sim: SimRun) => Promise<{ target: Target; transport: Transport }>;
  runsPollMs: number;
  statePollMs: number;
  /** The cockpit's clock (session and App), for tests that move or freeze time. */
  clock?: () => number;
  /** Terminal width (default 120; 40 rows). */
  columns?: number;
  /** Colours on (default off: tests read text; a screenshot's cells need them). */
  colors?: boolean;
}

export interface WatchedSim {
  sim: SimRun;
  session: LiveSession;
  r: Rendered;
  /** Unmounts the cockpit, closes the session and a `via` transport, and stops the run if this
   *  launched it (stop kills by PID). */
  close(): Promise<void>;
}

/**
 * A simulated run launched (or given) and watched in the cockpit: the live session opened on it and
 * the dashboard rendered, colours off unless asked. If any step fails, what it had started is closed before the
 * error is thrown, so a failed beforeAll leaks nothing.
 */
export async function watchSimRun(o: WatchSimOptions): Promise<WatchedSim> {
  let sim: SimRun | undefined = o.sim;
  let viaTransport: Transport | undefined;
  let session: LiveSession | undefined;
  let r: Rendered | undefined;
  const close = async (): Promise<void> => {
    r?.unmount();
    await session?.close();
    await viaTransport?.close();
    if (!o.sim) await sim?.stop();
  };
  try {
    sim ??= await (o.env ? withSimEnv(o.env, () => launchSim(o.overrides)) : launchSim(o.overrides));
    const launched = sim;
    const where = o.via ? await o.via(launched) : { target: launched.target, transport: launched.transport };
    if (o.via) viaTransport = where.transport;
    session = createLiveSession({
      targets: [where],
      openRunId: launched.runId,
      runsPollMs: o.runsPollMs,
      statePollMs: o.statePollMs,
      gpuPoller: null,
      ...(o.clock ? { clock: o.clock } : {}),
    });
    r = renderInk(
      createElement(App, {
        session,
        initialScreen: 'dashboard',
        size: { columns: o.columns ?? 120, rows: 40 },
        colors: o.colors ?? false,
        frameMs: 50,
        ...(o.clock ? { clock: o.clock } : {}),
      }),
    );
    return { sim: launched, session, r, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
