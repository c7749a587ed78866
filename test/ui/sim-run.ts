// A real run for the cockpit's end-to-end tests: `sim init` a temp checkout, then start the
// simulated trainer through the same launch path as `--launch` (local transport, detached job).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { evaluateConfig, requiredSecretNames } from '../../src/config/index.js';
import { LocalTransport } from '../../src/remote/index.js';
import { launchRun, stopRun, type Target } from '../../src/runs/index.js';
import { simInit } from '../../src/sim/init.js';

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

/** Launch the simulator (AWRL_SIM_SPEED in this process's env reaches the job; see withSimEnv). */
export async function launchSim(overrides: string[] = []): Promise<SimRun> {
  const { dir, configPath } = simCheckout();
  const text = readFileSync(configPath, 'utf8');
  const ev = evaluateConfig({ fileName: configPath, text, overrides });
  if (ev.hasErrors || !ev.resolved) throw new Error(`sim config has errors: ${JSON.stringify(ev.diagnostics)}`);
  const target: Target = { name: 'local', host: 'local', workdir: dir, python: 'python3', backend: 'direct', slurm: { extraArgs: [] } };
  const transport = new LocalTransport();
  const res = await launchRun(
    {
      target,
      configText: text,
      experiment: ev.experimentName!,
      trial: ev.trialName!,
      trainerArgv: (p) => ev.launchArgv({ remoteConfigPath: p, python: 'python3' }),
      secretNames: requiredSecretNames(ev.resolved).filter((s) => s.required).map((s) => s.name),
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
      await stopRun(transport, target, res.record.runId, { graceSeconds: 2 }).catch(() => {});
      await transport.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
