// A second Unix user on the head looks at a run another user launched: it cannot read the job's
// /proc/PID/environ, so whether the pid is the job cannot be told. `runs` must say `unknown` and
// why, never `failed … gone without an exit status`; `follow` keeps following it to its end.
// Real sshd, a real second user (created here, removed after), the simulated trainer.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const USER = `awrl-u${process.pid}`;

describe('a run seen by another Unix user', () => {
  let sim: SimOverSshd;
  let asOther: string[];
  const procs: CliProcess[] = [];

  beforeAll(async () => {
    sim = await startSimOverSshd('awrl-other-user-');
    // '*' (not '!'): an account sshd lets in with a key although it has no password.
    execFileSync('useradd', ['-m', '-s', '/bin/bash', '-p', '*', USER]);
    // The key and the run's files readable by the other user (sshd reads the keys as that user).
    chmodSync(sim.sshd.dir, 0o755);
    chmodSync(join(sim.sshd.dir, 'authorized_keys'), 0o644);
    chmodSync(sim.workdir, 0o755);
    const cfg = join(sim.sshd.dir, 'ssh_config_other');
    writeFileSync(cfg, readFileSync(sim.sshd.sshConfigFile, 'utf8').replace(/^(\s*User) .*$/m, `$1 ${USER}`));
    asOther = [
      '--target',
      sim.sshd.alias,
      '-F',
      cfg,
      '--workdir',
      sim.workdir,
      '--setup',
      `export PATH=${sim.workdir}/bin:$PATH`,
    ];
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await sim?.stop();
    try {
      execFileSync('userdel', ['-r', '-f', USER], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  });

  it('runs says unknown (and why) while it runs; follow goes on to its end', async () => {
    const launch = startCli(
      [
        '--launch',
        ...sim.target('AWRL_SIM_SPEED=100'),
        '--config',
        sim.config,
        'total_train_epochs=1',
        '++trial_name=other-user',
        '--json',
      ],
      { CPU_CLUSTER_TOKEN: 'token' },
    );
    procs.push(launch);
    expect(await launch.done, launch.stderr).toBe(0);
    const runId = JSON.parse(launch.stdout.trim().split('\n').pop()!).runId as string;

    const runs = startCli(['runs', ...asOther, '--json'], {});
    procs.push(runs);
    expect(await runs.done, runs.stderr).toBe(0);
    const row = (JSON.parse(runs.stdout) as Array<{ runId: string; state: string; detail: string }>).find(
      (r) => r.runId === runId,
    )!;
    expect(row.state).toBe('unknown');
    expect(row.detail).toMatch(new RegExp(`alive, not readable as ${USER}`));

    const f = startCli(['follow', runId, ...asOther, '--json'], {});
    procs.push(f);
    await waitFor(() => /"type":"step"/.test(f.stdout), {
      timeoutMs: 90_000,
      what: 'a step followed as the other user',
    });
    expect(f.stderr).toMatch(/^state\s+unknown/m);
    expect(await f.done, f.stderr).toBe(0);
    const lines = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; globalStep?: number; state?: string });
    expect(lines.filter((l) => l.type === 'step').map((l) => l.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(lines.at(-1)).toMatchObject({ type: 'state', state: 'finished', exit: 0 });
  }, 240_000);
});
