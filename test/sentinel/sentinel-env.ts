// A simulated AsyncWebRL checkout behind a real sshd whose sessions have a home of their own (where
// the sentinel's runtime is installed: ~/.cache/awrl-tui) and, optionally, a PATH without node.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, sentinelCli } from '../runs/cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { sessionPathConfig } from '../harness/session-path.js';

export interface SentinelEnv {
  sshd: SshdHandle;
  workdir: string;
  home: string;
  config: string;
  /** Target flags; `setup` is appended to the setup line (e.g. `AWRL_SIM_SPEED=instant`). */
  target(setup?: string): string[];
  runDir(runId: string): string;
  stop(): Promise<void>;
}

/** `without`: commands the sessions' PATH lacks (e.g. node, flock). `runsTmpfsMiB`: the checkout's
 *  runs directory (`.awrl/runs`: every run dir) is a tmpfs of this size in the sshd's own mount
 *  namespace (a real filesystem that can be filled: seen only through the sshd's sessions). */
export async function startSentinelEnv(
  prefix: string,
  opts: { without?: string[]; runsTmpfsMiB?: number } = {},
): Promise<SentinelEnv> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  mkdirSync(home);
  const session = opts.without?.length
    ? [`${sessionPathConfig(dir, opts.without)[0]} HOME=${home}`]
    : [`SetEnv SHLVL=1 HOME=${home}`];
  const workdir = join(dir, 'checkout');
  const runs = join(workdir, '.awrl', 'runs');
  mkdirSync(runs, { recursive: true });
  const sshd = await startSshd({
    extraConfig: session,
    ...(opts.runsTmpfsMiB
      ? { privateMounts: [`mount -t tmpfs -o size=${opts.runsTmpfsMiB}m,mode=0755 tmpfs ${runs}`] }
      : {}),
  });
  const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
  writeWebgymTasks(sim.trainDataset, 256);
  return {
    sshd,
    workdir,
    home,
    config: sim.config!,
    target: (setup = '') => [
      '--target',
      sshd.alias,
      '-F',
      sshd.sshConfigFile,
      '--workdir',
      workdir,
      '--setup',
      `export PATH=${workdir}/bin:$PATH ${setup}`.trim(),
    ],
    runDir: (runId) => join(workdir, '.awrl', 'runs', runId),
    stop: async () => {
      killSentinelsUnder(dir);
      await sshd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The CLI for sentinel tests: a heartbeat of `periodMs`, and secrets that must never show. */
export function sentinelTestCli(secret: string, periodMs: number, hidden: readonly string[] = []) {
  process.env.AWRL_SENTINEL_PERIOD_MS = String(periodMs);
  return sentinelCli(secret, hidden);
}

export const runIdOf = (text: string): string => /^run\s+(\S+)/m.exec(text)![1];

/** The sentinels whose argv names a run dir under `dir`, by PID (a failed test leaves them running). */
export function sentinelPidsUnder(dir: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const argv = readFileSync(`/proc/${n}/cmdline`, 'latin1').split('\0');
      if (argv.includes('sentinel-run') && argv.some((a) => a.startsWith(`${dir}/`))) out.push(Number(n));
    } catch {
      /* gone */
    }
  }
  return out;
}

export function killSentinelsUnder(dir: string): void {
  for (const pid of sentinelPidsUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
