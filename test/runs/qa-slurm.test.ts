// QA of the headless path on a real one-node Slurm, reached over a real sshd: when squeue fails
// for a while (controller unreachable, a broken module), a followed Slurm run must not be declared
// failed (the job is still running); `runs` says its state is unknown and why, instead of `failed`.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, ROOT, type CliProcess } from './cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { slurmTargetArgs } from '../harness/slurm-target.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const start = (args: string[]): CliProcess => startCli(args, { CPU_CLUSTER_TOKEN: 'qa-token' });

describe('a followed Slurm run while squeue fails', () => {
  let sshd: SshdHandle;
  let slurm: SlurmCluster;
  let workdir: string;
  let config: string;
  let flag: string;
  let calls: string;
  const procs: CliProcess[] = [];
  // While `flag` exists, a squeue that fails at once (as when the controller does not answer) comes
  // first on PATH; it counts its calls so the test knows the follower asked it.
  const target = () =>
    slurmTargetArgs({
      sshd,
      slurm,
      workdir,
      simSpeed: 60,
      setupBefore: `[ -e '${flag}' ] && export PATH='${join(workdir, 'broken')}':$PATH`,
    });

  beforeAll(async () => {
    [slurm, sshd] = await Promise.all([startSlurm(), startSshd()]);
    workdir = mkdtempSync(join(tmpdir(), 'awrl-qa-slurm-'));
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256);
    flag = join(workdir, 'squeue-broken');
    calls = join(workdir, 'squeue-calls');
    mkdirSync(join(workdir, 'broken'));
    writeFileSync(
      join(workdir, 'broken', 'squeue'),
      `#!/bin/sh\necho x >> '${calls}'\necho 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await sshd?.stop();
    await slurm?.stop();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it('the follower keeps following (no "failed"), `runs` shows the state as unknown with squeue\'s message, a twin launch is refused', async () => {
    const f = start([
      '--launch',
      ...target(),
      '--config',
      config,
      '++trial_name=qa-squeue',
      '--skip-preflight',
      '--follow',
    ]);
    procs.push(f);
    await waitFor(() => /^state\s+running/m.test(f.stdout), { timeoutMs: 60_000, what: 'the Slurm job to run' });
    const runId = /^run\s+(\S+)/m.exec(f.stdout)![1];

    writeFileSync(flag, '');
    const callsNow = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').length - 1 : 0);
    // Two failed polls of the follower's state watcher (every 2 s).
    await waitFor(() => callsNow() >= 2 || f.child.exitCode !== null, {
      timeoutMs: 30_000,
      what: 'the follower to ask the broken squeue twice',
    });
    expect(f.stdout).not.toMatch(/^state\s+failed/m);
    expect(f.child.exitCode).toBeNull();
    // `runs` says what it does not know, instead of calling the run failed.
    const runs = start(['runs', ...target(), '--json']);
    procs.push(runs);
    expect(await runs.done, runs.stderr).toBe(0);
    const seen = (JSON.parse(runs.stdout) as Array<{ runId: string; state: string; detail: string }>).find(
      (r) => r.runId === runId,
    );
    expect(seen?.state).toBe('unknown');
    expect(seen?.detail).toMatch(
      /^job \d+: squeue failed \(slurm_load_jobs error: Unable to contact slurm controller \(connect failure\)\)/,
    );
    // A second launch of the same trial is refused while its twin's state is unknown.
    const twin = start(['--launch', ...target(), '--config', config, '++trial_name=qa-squeue', '--skip-preflight']);
    procs.push(twin);
    expect(await twin.done).toBe(2);
    expect(twin.stderr).toContain(`run ${runId} of this trial is of unknown state (job`);
    expect(twin.stderr).toContain('is of unknown state (job');
    rmSync(flag);

    expect(f.child.exitCode).toBeNull();
    expect(f.stdout).not.toMatch(/^state\s+failed/m);
    const list = start(['runs', ...target(), '--json']);
    procs.push(list);
    expect(await list.done, list.stderr).toBe(0);
    expect(
      (JSON.parse(list.stdout) as Array<{ runId: string; state: string }>).find((r) => r.runId === runId)?.state,
    ).toBe('running');

    const stop = start(['stop', runId, ...target()]);
    procs.push(stop);
    // The job is cancelled; its node cannot be swept from the head here (no ssh to it): not an
    // all-clear, so exit 1 (#16).
    expect(await stop.done, stop.stderr).toBe(1);
    expect(stop.stderr).toMatch(/could not check \S+ for leftover processes/);
    expect(await f.done).toBe(3);
  }, 120_000);

  it('an sbatch that refuses the job (--skip-preflight) leaves a failed run, not one that blocks the next launch', async () => {
    const words = target();
    const bad = [...words];
    bad[bad.indexOf('--partition') + 1] = 'no-such-partition';
    const first = start(['--launch', ...bad, '--config', config, '++trial_name=qa-sbatch', '--skip-preflight']);
    procs.push(first);
    expect(await first.done).toBe(1);
    expect(first.stderr).toMatch(/^awrl-tui: sbatch failed on \S+: .*partition/im);
    const list = start(['runs', ...words, '--json']);
    procs.push(list);
    expect(await list.done, list.stderr).toBe(0);
    const ghost = (JSON.parse(list.stdout) as Array<{ trial: string; state: string; detail: string }>).find(
      (r) => r.trial === 'qa-sbatch',
    );
    expect(ghost?.state).toBe('failed');
    expect(ghost?.detail).toMatch(/^could not start: sbatch failed/);

    const again = start([
      '--launch',
      ...words,
      '--config',
      config,
      '++trial_name=qa-sbatch',
      '--skip-preflight',
      '--json',
    ]);
    procs.push(again);
    expect(await again.done, again.stderr).toBe(0);
    const runId = (JSON.parse(again.stdout) as { runId: string }).runId;
    const stop = start(['stop', runId, ...words]);
    procs.push(stop);
    // Exit 1 exactly when a part of the node could not be checked, and it says which (#16).
    const code = await stop.done;
    // The human lines go to stdout; a check that could not run at all is an error on stderr.
    const said = `${stop.stdout}${stop.stderr}`;
    const unchecked = /could not check \S+ for leftover processes|NOT CHECKED/.test(said);
    expect(code, said).toBe(unchecked ? 1 : 0);
    if (!unchecked) expect(stop.stdout).toMatch(/leftovers: none on /);
  }, 120_000);
});
