// `awrl-tui follow RUN` on a log it cannot read (permissions) while the target itself answers: it
// used to wait in silence. It must print one line naming the target, the log, the error and what
// to do, then say when it reads again, and follow the run to its end (exit 0): every step once.
// The CLI runs without the capabilities that let root read anything, as an ordinary user would.
// Needs dist/ built.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { ROOT, startCli } from '../runs/cli-process.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = join(ROOT, 'bin', 'awrl-tui.js');
const SECRET = `follow-problem-sentinel-${process.pid}-Xq7`;

describe('follow: a log that cannot be read is said, then followed once it can', { timeout: 120_000 }, () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-follow-problem-cli-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.pid && pidAlive(c.pid)) c.kill('SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  });

  it('prints the problem with target, path, error and advice, then "reading … again", exit 0, every step once', async () => {
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    writeWebgymTasks(sim.trainDataset, 256);
    const target = ['--target', 'local', '--workdir', workdir, '--setup', `export PATH=${workdir}/bin:$PATH AWRL_SIM_SPEED=instant`];
    const launch = startCli(['--launch', ...target, '--config', sim.config!, 'total_train_epochs=1', '++trial_name=unreadable'], { CPU_CLUSTER_TOKEN: SECRET });
    children.push(launch.child);
    expect(await launch.done, launch.stdout + launch.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(launch.stdout)![1];
    const log = join(workdir, '.awrl', 'runs', runId, 'stdout.log');
    await waitFor(() => /Training completes/.test(readFileSync(log, 'utf8')), { timeoutMs: 60_000, what: 'the instant run to finish' });
    chmodSync(log, 0o000);

    const f = { stdout: '', stderr: '', child: null as unknown as ChildProcess, done: Promise.resolve<number | null>(null) };
    f.child = spawn('setpriv', ['--bounding-set=-dac_override,-dac_read_search', '--', process.execPath, BIN, 'follow', runId, ...target.slice(0, 4)], {
      env: { ...process.env, CPU_CLUSTER_TOKEN: SECRET, XDG_CONFIG_HOME: join(tmpdir(), 'awrl-no-profiles') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(f.child);
    f.child.stdout!.on('data', (b) => (f.stdout += b));
    f.child.stderr!.on('data', (b) => (f.stderr += b));
    f.done = new Promise((r) => f.child.on('close', (code) => r(code)));

    const line = await waitFor(() => /^follow\s+cannot follow .*$/m.exec(f.stdout)?.[0], { timeoutMs: 30_000, what: `the problem line (stdout: ${f.stdout.slice(-300)})` });
    expect(line).toContain(log);
    expect(line).toContain('local');
    expect(line).toContain('Permission denied');
    expect(line).toMatch(/permissions/);
    chmodSync(log, 0o644);
    expect(await f.done, f.stdout + f.stderr).toBe(0);
    expect(f.stdout).toMatch(new RegExp(`^follow\\s+reading ${log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} again$`, 'm'));
    // What it reads comes after it says it reads again.
    expect(f.stdout.search(/^follow\s+reading /m)).toBeLessThan(f.stdout.search(/^step 1\/8/m));
    const steps = [...f.stdout.matchAll(/^step (\d+)\/8/gm)].map((m) => Number(m[1]));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(f.stdout + f.stderr).not.toContain(SECRET);
    expect(f.stderr).not.toMatch(/\n\s+at /);
  });
});
