// Issue #17 §1 on the Slurm backend: the launcher SIGKILLed while the submit script runs (before
// sbatch, and after it, before run.json has the job) leaves a whole, submitted run, never a
// half-written one. A real one-node Slurm behind a real sshd; AWRL_TEST_LAUNCH_HOLD places the kill.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { ROOT, startCli, type CliProcess } from './cli-process.js';

describe('interrupting a Slurm launch', () => {
  let slurm: SlurmCluster;
  let sshd: SshdHandle;
  let workdir: string;
  let config: string;
  const procs: CliProcess[] = [];
  beforeAll(async () => {
    [slurm, sshd] = await Promise.all([startSlurm(), startSshd()]);
    workdir = mkdtempSync(join(tmpdir(), 'awrl-int-slurm-'));
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256);
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    try {
      execFileSync('scancel', ['-u', String(process.getuid?.() ?? 0)], { env: slurm.env });
    } catch {
      /* nothing queued */
    }
    await Promise.all([slurm?.stop(), sshd?.stop()]);
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  const target = () => [
    '--target',
    sshd.alias,
    '-F',
    sshd.sshConfigFile,
    '--workdir',
    workdir,
    '--backend',
    'slurm',
    '--setup',
    `${slurm.setupLine}; export AWRL_SIM_SPEED=300`,
    '--partition',
    slurm.partition,
    '--gpus-per-node',
    '0',
    '--cpus-per-task',
    '1',
  ];
  const runsDir = () => join(workdir, '.awrl', 'runs');
  const dirsOf = (trial: string) =>
    existsSync(runsDir()) ? readdirSync(runsDir()).filter((d) => d.startsWith(`${trial}-`)) : [];
  const submitScripts = (trial: string) =>
    readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
          return argv.includes('awrl-submit') && argv.some((a) => a.startsWith(`${trial}-`)) && pidAlive(Number(d));
        } catch {
          return false;
        }
      });

  for (const step of ['starting', 'started']) {
    it(`SIGKILL of the launcher at ${step}: the run is whole and submitted`, async () => {
      const trial = `slurm-kill-${step}`;
      const hold = join(workdir, `hold-${trial}`);
      writeFileSync(hold, '');
      const p = startCli(['--launch', ...target(), '--config', config, `++trial_name=${trial}`, '--skip-preflight'], {
        CPU_CLUSTER_TOKEN: 'tok',
        AWRL_TEST_LAUNCH_HOLD: `${step}:${hold}`,
      });
      procs.push(p);
      await waitFor(() => existsSync(`${hold}.reached`) || p.child.exitCode !== null, {
        timeoutMs: 120_000,
        what: `the submit script at ${step}`,
      });
      expect(p.child.exitCode, p.stderr).toBeNull();
      p.child.kill('SIGKILL');
      await p.done;
      rmSync(hold);
      await waitFor(() => submitScripts(trial).length === 0, { timeoutMs: 60_000, what: 'the submit script to end' });
      const [dir] = dirsOf(trial);
      const record = JSON.parse(readFileSync(join(runsDir(), dir, 'run.json'), 'utf8'));
      expect(record.attempts).toHaveLength(1);
      expect(record.attempts[0].jobId).toMatch(/^\d+$/);
      expect(existsSync(join(runsDir(), dir, 'launch.pid'))).toBe(false);
      expect(existsSync(join(runsDir(), dir, 'slurm-submitting'))).toBe(false);
      const q = execFileSync('squeue', ['-h', '-j', record.attempts[0].jobId, '-o', '%T'], {
        env: slurm.env,
        encoding: 'utf8',
      }).trim();
      expect(['PENDING', 'RUNNING', 'CONFIGURING']).toContain(q);
      const stop = startCli(['stop', dir, ...target()], {});
      procs.push(stop);
      // The job is cancelled; its node cannot be swept from the head here (no ssh to it): not an
      // all-clear, so exit 1 (#16), and the job is gone from the queue.
      expect(await stop.done, stop.stderr).toBe(1);
      expect(stop.stderr + stop.stdout, `${stop.stdout}\n${stop.stderr}`).toMatch(
        /could not check \S+ for leftover processes|GPU memory NOT CHECKED/,
      );
      const after = execFileSync('squeue', ['-h', '-j', record.attempts[0].jobId, '-o', '%T'], {
        env: slurm.env,
        encoding: 'utf8',
      });
      expect(after.trim()).not.toMatch(/PENDING|RUNNING|CONFIGURING/);
    }, 240_000);
  }
});
