// What is said about a run that ended, over a real sshd with the simulated trainer:
// - a run that dies at once (a python that does not exist) shows its log's last lines in
//   `--launch --follow --json` (the last {"type":"state"} line), `follow`, `runs RUN` and the dashboard;
// - the leftover check names what it could not look at: nvidia-smi missing on the target
//   (`leftovers.gpuUnchecked`), a node that cannot be reached (`leftovers.unreachable`), exit 1;
// - a finished run resumed keeps its first attempt's outcome (`#1 exit 0`).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { TmuxSession } from '../harness/tmux.js';
import { pidAlive } from '../harness/wait.js';
import { BIN } from '../ui/sim-run.js';

describe('an ended run, told as it is', () => {
  let sim: SimOverSshd;
  const procs: CliProcess[] = [];
  const panes: TmuxSession[] = [];
  let failedRun = '';
  const cli = async (args: string[]) => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: 'token' });
    procs.push(p);
    const code = await p.done;
    return { code, stdout: p.stdout, stderr: p.stderr };
  };
  const where = () => ['--target', sim.sshd.alias, '-F', sim.sshd.sshConfigFile, '--workdir', sim.workdir];

  beforeAll(async () => {
    sim = await startSimOverSshd('awrl-ended-facts-');
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    for (const t of panes) await t.kill();
    await sim?.stop();
  });

  it('a run that fails at once shows the last lines of its log everywhere', async () => {
    const r = await cli([
      '--launch',
      ...sim.target(),
      '--python',
      '/nonexistent/python',
      '--skip-preflight',
      '--config',
      sim.config,
      '++trial_name=dies-at-once',
      '--follow',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    failedRun = lines[0].runId;
    expect(lines[0]).toMatchObject({ type: 'run', runId: expect.any(String) });
    const last = lines.at(-1);
    expect(last).toMatchObject({ type: 'state', state: 'failed', exit: 127 });
    expect(last.lastLines.join('\n')).toMatch(/\/nonexistent\/python: No such file or directory/);
    expect(r.stderr).toMatch(/last lines of its log/);

    const f = await cli(['follow', failedRun, ...where()]);
    expect(f.code).toBe(1);
    expect(f.stdout).toMatch(/^state\s+failed \(exit 127\)$/m);
    expect(f.stdout).toMatch(
      /last lines of its log[^\n]*:\n(\s+.*\n)*\s+.*\/nonexistent\/python: No such file or directory/,
    );

    const runs = await cli(['runs', failedRun, ...where()]);
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).toContain(`${failedRun} failed; the last lines of its log:`);
    expect(runs.stdout).toMatch(/\/nonexistent\/python: No such file or directory/);

    const pane = await TmuxSession.start({
      command: `node ${BIN} watch ${failedRun} ${where()
        .map((a) => `'${a}'`)
        .join(' ')}`,
      width: 160,
      height: 45,
    });
    panes.push(pane);
    await pane.waitForScreen(
      (x) => /failed/.test(x) && /No such file or directory/.test(x),
      'the dashboard with the failure and its reason',
      60_000,
    );
  }, 180_000);

  it('leftovers: GPUs that could not be checked and an unreachable node are named, and the stop exits 1', async () => {
    // The target's PATH without the checkout's fake nvidia-smi: there is none on this machine.
    const s = await cli(['stop', failedRun, ...where(), '--json']);
    expect(s.code, s.stderr).toBe(1);
    const j = JSON.parse(s.stdout.trim().split('\n').pop()!);
    expect(j.leftovers.gpuUnchecked).toEqual([
      { node: expect.any(String), error: expect.stringMatching(/nvidia-smi not found/) },
    ]);
    expect(s.stderr).toMatch(/leftovers: GPU memory NOT CHECKED on .*nvidia-smi not found/);
    expect(s.stderr).not.toMatch(/no GPU memory is held/);

    const u = await cli(['stop', failedRun, ...sim.target(), '--check-nodes', 'no-such-node.invalid', '--json']);
    expect(u.code, u.stderr).toBe(1);
    const k = JSON.parse(u.stdout.trim().split('\n').pop()!);
    expect(k.leftovers.unreachable).toEqual([expect.objectContaining({ node: 'no-such-node.invalid' })]);
    expect(u.stderr).toMatch(/leftovers: NOT CHECKED on no-such-node\.invalid/);
    expect(u.stderr).not.toMatch(/none on [^\n]*no-such-node/);
  }, 120_000);

  it('a finished run resumed keeps "#1 exit 0"', async () => {
    const first = await cli([
      '--launch',
      ...sim.target('AWRL_SIM_SPEED=instant'),
      '--config',
      sim.config,
      'total_train_epochs=1',
      '++trial_name=resume-keeps',
      '--follow',
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const runId = JSON.parse(first.stdout.split('\n')[0]).runId as string;
    const again = await cli([
      '--launch',
      '--resume',
      runId,
      '--force',
      ...sim.target('AWRL_SIM_SPEED=instant'),
      '--follow',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const runs = await cli(['runs', ...where(), '--json']);
    const row = (
      JSON.parse(runs.stdout) as Array<{ runId: string; chain: Array<{ n: number; ended: string | null }> }>
    ).find((x) => x.runId === runId)!;
    expect(row.chain.map((a) => [a.n, a.ended])).toEqual([
      [1, 'exit 0'],
      [2, 'exit 0'],
    ]);
    const table = await cli(['runs', ...where()]);
    expect(table.stdout).toMatch(/#1 exit 0 > #2 (from step \d+ )?exit 0/);
  }, 180_000);
});
