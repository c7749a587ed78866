// Issue #17 §1: a launch interrupted at any moment leaves the target clean or running, never
// half-done. `awrl-tui --launch` runs as a process against a real sshd (the simulator as the
// trainer); AWRL_TEST_LAUNCH_HOLD=STEP:FILE stops it at STEP (launcher side or inside the start
// script) until FILE is removed, so each interruption lands exactly there, found by condition.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const SECRET = `interrupt-sentinel-${process.pid}`;
// Launcher side, then inside the start script (start-scripts.ts), in the order they happen.
const BEFORE_START = ['connected', 'twin-checked', 'preflight-done', 'before-start'];
const FROM_START = ['start-sent', 'read', 'cleaned', 'created', 'written', 'starting', 'started'];

describe('interrupting a launch over ssh: clean or running, never half-done', () => {
  let env: SimOverSshd;
  let runsDir: string;
  const started: CliProcess[] = [];
  const jobs: number[] = [];

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-interrupt-');
    runsDir = join(env.workdir, '.awrl', 'runs');
  });
  afterAll(async () => {
    for (const p of started) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    for (const pid of jobs) if (pidAlive(pid)) process.kill(-pid, 'SIGKILL');
    await env?.stop();
  });

  const cli = (args: string[], extra: Record<string, string> = {}) => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: SECRET, ...extra });
    started.push(p);
    return p;
  };
  const dirsOf = (trial: string): string[] =>
    existsSync(runsDir) ? readdirSync(runsDir).filter((d) => d.startsWith(`${trial}-`)) : [];
  const json = (dir: string) => JSON.parse(readFileSync(join(runsDir, dir, 'run.json'), 'utf8'));
  const alive = (file: string) => existsSync(file) && pidAlive(Number(readFileSync(file, 'utf8').trim()));

  /** Ends a job started here (by its group), so the runs of the next cases start on idle GPUs. */
  async function endJob(pid: number) {
    jobs.push(pid);
    if (pidAlive(pid)) process.kill(-pid, 'SIGTERM');
    await waitFor(() => !pidAlive(pid), { timeoutMs: 30_000, what: `job ${pid} to end` });
  }

  /** Start scripts of `trial` still running on the "head" (this machine): argv awrl-start … RUN_ID …. */
  const scriptsOf = (trial: string): number[] =>
    readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
          return argv.includes('awrl-start') && argv.some((a) => a.startsWith(`${trial}-`)) && pidAlive(Number(d));
        } catch {
          return false;
        }
      })
      .map(Number);

  /** The target once no start script of `trial` runs any more: nothing, or one whole running run. */
  async function settled(trial: string): Promise<{ runId: string; pid: number } | null> {
    await waitFor(() => scriptsOf(trial).length === 0, { timeoutMs: 60_000, what: 'the start script to end' });
    expect(dirsOf(trial).every((d) => !alive(join(runsDir, d, 'launch.pid')))).toBe(true);
    const dirs = dirsOf(trial);
    if (dirs.length === 0) return null;
    expect(dirs).toHaveLength(1);
    const r = json(dirs[0]);
    expect(r.attempts).toHaveLength(1); // never a run.json without its attempt
    const pid = await waitFor(
      () =>
        existsSync(join(runsDir, dirs[0], 'job.pid'))
          ? Number(readFileSync(join(runsDir, dirs[0], 'job.pid'), 'utf8'))
          : 0,
      { what: 'job.pid' },
    );
    expect(r.attempts[0].pid).toBe(pid);
    expect(pidAlive(pid)).toBe(true);
    expect(existsSync(join(runsDir, dirs[0], 'launch.pid'))).toBe(false);
    await endJob(pid);
    return { runId: dirs[0], pid };
  }

  async function interrupt(step: string, signal: NodeJS.Signals, trial: string, extra: string[] = []) {
    const hold = join(env.workdir, `hold-${trial}`);
    writeFileSync(hold, '');
    const p = cli(['--launch', ...env.target(), '--config', env.config, `++trial_name=${trial}`, ...extra], {
      AWRL_TEST_LAUNCH_HOLD: `${step}:${hold}`,
    });
    await waitFor(() => existsSync(`${hold}.reached`) || p.child.exitCode !== null, {
      timeoutMs: 90_000,
      what: `the launch to reach ${step}`,
    });
    expect(p.child.exitCode, p.stderr).toBeNull();
    p.child.kill(signal);
    // SIGINT while starting: the launcher says it finishes the start (and is still there).
    if (signal !== 'SIGKILL' && FROM_START.includes(step))
      await waitFor(() => p.stderr.includes('finishing that first'), { what: 'the note' });
    // Before the start, the launcher ends on the signal: the hold is let go only once it has, or
    // a busy machine could run the hold's next look (file gone: go on) before the signal handler.
    else if (signal !== 'SIGKILL')
      await waitFor(() => p.child.exitCode !== null || p.child.signalCode !== null, {
        what: 'the launcher to end on the signal',
      });
    rmSync(hold);
    const code = await p.done;
    rmSync(`${hold}.reached`, { force: true });
    return { code, p, after: await settled(trial) };
  }

  for (const step of BEFORE_START) {
    it(`SIGINT at ${step}: "launch cancelled: nothing was started", nothing on the target`, async () => {
      const { code, p, after } = await interrupt(step, 'SIGINT', `int-${step}`);
      expect(code).toBe(130);
      expect(p.stderr).toContain(`launch cancelled: nothing was started on ${env.sshd.alias}`);
      expect(after).toBeNull();
    }, 120_000);
    it(`SIGKILL at ${step}: nothing on the target`, async () => {
      const { after } = await interrupt(step, 'SIGKILL', `kill-${step}`);
      expect(after).toBeNull();
    }, 120_000);
  }

  for (const step of FROM_START) {
    it(`SIGINT at ${step}: the start finishes, "run RUN started (Ctrl-C again to leave it running)"`, async () => {
      const { code, p, after } = await interrupt(step, 'SIGINT', `int-${step}`);
      expect(after, p.stderr).not.toBeNull();
      expect(p.stderr).toContain(`run ${after!.runId} started (Ctrl-C again to leave it running)`);
      expect(code).toBe(0);
      expect(p.stdout + p.stderr).not.toContain(SECRET);
    }, 120_000);
    it(`SIGKILL at ${step}: clean or running`, async () => {
      // start-sent: the exec may not have reached sshd yet (then nothing), later steps run on.
      const { after } = await interrupt(step, 'SIGKILL', `kill-${step}`);
      if (step !== 'start-sent') expect(after).not.toBeNull();
    }, 120_000);
  }

  it('SIGTERM and SIGHUP before the start cancel the same way (exit 143, 129)', async () => {
    const term = await interrupt('preflight-done', 'SIGTERM', 'term-pf');
    expect(term.code).toBe(143);
    expect(term.p.stderr).toContain('launch cancelled: nothing was started');
    expect(term.after).toBeNull();
    const hup = await interrupt('twin-checked', 'SIGHUP', 'hup-tc');
    expect(hup.code).toBe(129);
    expect(hup.after).toBeNull();
    // --json: the one cli-error line, with its stable code.
    const js = await interrupt('connected', 'SIGINT', 'json-c', ['--json']);
    expect(JSON.parse(js.p.stdout.trim())).toMatchObject({ type: 'cli-error', exit: 130, code: 'launch-cancelled' });
  }, 240_000);

  it('a start script killed half-way: runs shows an abandoned launch, stop removes it, the next launch cleans the rest', async () => {
    const kill = async (step: string, trial: string) => {
      const hold = join(env.workdir, `hold-${trial}`);
      writeFileSync(hold, '');
      const p = cli(['--launch', ...env.target(), '--config', env.config, `++trial_name=${trial}`], {
        AWRL_TEST_LAUNCH_HOLD: `${step}:${hold}`,
      });
      await waitFor(() => existsSync(`${hold}.reached`), {
        timeoutMs: 90_000,
        what: `the start script to reach ${step}`,
      });
      const dir = dirsOf(trial)[0];
      const script = Number(readFileSync(join(runsDir, dir, 'launch.pid'), 'utf8'));
      p.child.kill('SIGKILL');
      process.kill(script, 'SIGKILL'); // the head node lost the script (OOM killer, reboot)
      await p.done;
      rmSync(hold);
      return dir;
    };
    const written = await kill('written', 'half-written');
    const runs = cli(['runs', ...env.target(), '--json']);
    expect(await runs.done, runs.stderr).toBe(0);
    const listed = JSON.parse(runs.stdout) as Array<{ runId: string; state: string; detail: string }>;
    expect(listed.find((r) => r.runId === written)).toMatchObject({
      state: 'failed',
      detail: expect.stringMatching(/^abandoned launch/),
    });
    // `stop` of an abandoned launch removes it.
    const stop = cli(['stop', written, ...env.target()]);
    expect(await stop.done, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('abandoned launch');
    expect(existsSync(join(runsDir, written))).toBe(false);

    // Killed before run.json: never listed; the next launch (the same trial: not blocked) removes it.
    const created = await kill('created', 'half-created');
    expect(existsSync(join(runsDir, created, 'run.json'))).toBe(false);
    const again = cli(['--launch', ...env.target(), '--config', env.config, '++trial_name=half-created']);
    expect(await again.done, again.stderr).toBe(0);
    const newRun = /^run\s+(\S+)/m.exec(again.stdout)![1];
    expect(again.stdout).toContain(`removed what an interrupted launch left (nothing had started): ${created}`);
    expect(existsSync(join(runsDir, created))).toBe(false);
    await endJob(Number(readFileSync(join(runsDir, newRun, 'job.pid'), 'utf8')));
  }, 300_000);

  it("an older launcher's leftovers (config.yaml only; run.json without an attempt) are abandoned and cleaned", async () => {
    mkdirSync(join(runsDir, 'old-a-20260101-000000-0001'), { recursive: true });
    writeFileSync(join(runsDir, 'old-a-20260101-000000-0001', 'config.yaml'), 'x: 1\n');
    const recDir = join(runsDir, 'old-b-20260101-000000-0002');
    mkdirSync(recDir);
    const rec = {
      version: 1,
      runId: 'old-b-20260101-000000-0002',
      experiment: 'old-exp',
      trial: 'old-b',
      target: env.sshd.alias,
      workdir: env.workdir,
      runDir: recDir,
      backend: 'direct',
      argv: ['python3'],
      secretNames: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      attempts: [],
    };
    writeFileSync(join(recDir, 'run.json'), `${JSON.stringify(rec)}\n`);
    writeFileSync(join(recDir, 'stdout.log'), '');
    const runs = cli(['runs', ...env.target(), '--json']);
    await runs.done;
    expect(
      (JSON.parse(runs.stdout) as Array<{ runId: string; state: string; detail: string }>).find(
        (r) => r.runId === rec.runId,
      ),
    ).toMatchObject({ state: 'failed', detail: expect.stringMatching(/^abandoned launch/) });
    const next = cli(['--launch', ...env.target(), '--config', env.config, '++trial_name=old-b']);
    expect(await next.done, next.stderr).toBe(0);
    expect(existsSync(join(runsDir, 'old-a-20260101-000000-0001'))).toBe(false);
    expect(existsSync(recDir)).toBe(false);
    const id = /^run\s+(\S+)/m.exec(next.stdout)![1];
    await endJob(Number(readFileSync(join(runsDir, id, 'job.pid'), 'utf8')));
  }, 120_000);
});
