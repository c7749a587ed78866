// `awrl-tui follow RUN` on a log it cannot read (permissions) while the target itself answers: it
// used to wait in silence. It must print one line naming the target, the log, the error and what
// to do, then say when it reads again, and follow the run to its end (exit 0): every step once.
// With --json a script reading stdout learns it too: `{"type":"follow-problem",…}` when the
// problem starts, `{"type":"follow-problem-cleared",…}` when reading resumes (the human text stays
// on stderr). A run that ended while its log still cannot be read: the last word says that
// following gave up and how much of the log was never read, not "(still retrying)".
// The CLI runs without the capabilities that let root read anything, as an ordinary user would.
// Needs dist/ built.
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { ROOT, startCli } from '../runs/cli-process.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = join(ROOT, 'bin', 'awrl-tui.js');
const SECRET = `follow-problem-sentinel-${process.pid}-Xq7`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Follow {
  stdout: string;
  stderr: string;
  child: ChildProcess;
  done: Promise<number | null>;
}

describe('follow: a log that cannot be read is said, then followed once it can', { timeout: 120_000 }, () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-follow-problem-cli-'));
  const children: ChildProcess[] = [];
  const target = [
    '--target',
    'local',
    '--workdir',
    workdir,
    '--setup',
    `export PATH=${workdir}/bin:$PATH AWRL_SIM_SPEED=instant`,
  ];
  let runId = '';
  let log = '';

  beforeAll(async () => {
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    writeWebgymTasks(sim.trainDataset, 256);
    const launch = startCli(
      ['--launch', ...target, '--config', sim.config!, 'total_train_epochs=1', '++trial_name=unreadable'],
      { CPU_CLUSTER_TOKEN: SECRET },
    );
    children.push(launch.child);
    expect(await launch.done, launch.stdout + launch.stderr).toBe(0);
    runId = /^run\s+(\S+)/m.exec(launch.stdout)![1];
    log = join(workdir, '.awrl', 'runs', runId, 'stdout.log');
    await waitFor(() => /Training completes/.test(readFileSync(log, 'utf8')), {
      timeoutMs: 60_000,
      what: 'the instant run to finish',
    });
  }, 90_000);
  afterAll(() => {
    for (const c of children) if (c.pid && pidAlive(c.pid)) c.kill('SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  });

  /** `follow RUN` as an ordinary user (no capability reads a 000 file), the log unreadable. */
  function followUnreadable(extra: string[] = []): Follow {
    chmodSync(log, 0o000);
    const child = spawn(
      'setpriv',
      [
        '--bounding-set=-dac_override,-dac_read_search',
        '--',
        process.execPath,
        BIN,
        'follow',
        runId,
        ...target.slice(0, 4),
        ...extra,
      ],
      {
        env: { ...process.env, CPU_CLUSTER_TOKEN: SECRET, XDG_CONFIG_HOME: join(tmpdir(), 'awrl-no-profiles') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    const f: Follow = { stdout: '', stderr: '', child, done: new Promise((r) => child.on('close', (code) => r(code))) };
    child.stdout!.on('data', (b) => (f.stdout += b));
    child.stderr!.on('data', (b) => (f.stderr += b));
    return f;
  }

  it('prints the problem with target, path, error and advice once, then "reading … again", exit 0, every step once', async () => {
    const f = followUnreadable();
    const line = await waitFor(() => /^follow\s+cannot follow .*$/m.exec(f.stdout)?.[0], {
      timeoutMs: 30_000,
      what: `the problem line (stdout: ${f.stdout.slice(-300)})`,
    });
    expect(line).toContain(log);
    expect(line).toContain('local');
    expect(line).toContain('Permission denied');
    expect(line).toMatch(/permissions/);
    expect(line).toMatch(/\(still retrying\)$/);
    chmodSync(log, 0o644);
    expect(await f.done, f.stdout + f.stderr).toBe(0);
    // Said once per problem, however often the follower looked at the file meanwhile.
    expect(f.stdout.match(/^follow\s+cannot follow /gm)).toHaveLength(1);
    expect(f.stdout).toMatch(new RegExp(`^follow\\s+reading ${escape(log)} again$`, 'm'));
    // What it reads comes after it says it reads again.
    expect(f.stdout.search(/^follow\s+reading /m)).toBeLessThan(f.stdout.search(/^step 1\/8/m));
    const steps = [...f.stdout.matchAll(/^step (\d+)\/8/gm)].map((m) => Number(m[1]));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(f.stdout + f.stderr).not.toContain(SECRET);
    expect(f.stderr).not.toMatch(/\n\s+at /);
  });

  it('--json: {"type":"follow-problem"} and {"type":"follow-problem-cleared"} lines on stdout, the text on stderr, the events after', async () => {
    const f = followUnreadable(['--json']);
    await waitFor(() => f.stdout.includes('"type":"follow-problem"'), {
      timeoutMs: 30_000,
      what: `the follow-problem line (stdout: ${f.stdout.slice(-300)}; stderr: ${f.stderr.slice(-300)})`,
    });
    chmodSync(log, 0o644);
    expect(await f.done, f.stdout + f.stderr).toBe(0);
    const lines = f.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const problems = lines.filter((l) => l.type === 'follow-problem');
    expect(problems).toHaveLength(1);
    const p = problems[0];
    expect(p).toMatchObject({ type: 'follow-problem', target: 'local', path: log, retrying: true });
    expect(p.error).toMatch(/Permission denied/);
    expect(p.advice).toMatch(/permissions/);
    expect(p.attempts).toBeGreaterThanOrEqual(1);
    expect(p.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(p.text).toMatch(/^cannot follow /);
    const cleared = lines.findIndex((l) => l.type === 'follow-problem-cleared');
    expect(lines[cleared]).toEqual({ type: 'follow-problem-cleared', target: 'local', path: log });
    // In order: the problem, its clearing, then what was read.
    expect(lines.indexOf(p)).toBeLessThan(cleared);
    const steps = lines.filter((l) => l.type === 'step');
    expect(cleared).toBeLessThan(lines.indexOf(steps[0]));
    expect(steps.map((s) => s.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // The human text stays on stderr, once.
    expect(f.stderr.match(/^follow\s+cannot follow .*\(still retrying\)$/gm)).toHaveLength(1);
    expect(f.stderr).toMatch(new RegExp(`^follow\\s+reading ${escape(log)} again$`, 'm'));
    expect(f.stdout + f.stderr).not.toContain(SECRET);
  });

  it('--json: a run that ended while its log stays unreadable: the last word says following gave up and how much was never read', async () => {
    const f = followUnreadable(['--json']);
    try {
      expect(await f.done, f.stdout + f.stderr).toBe(0);
    } finally {
      chmodSync(log, 0o644);
    }
    const size = statSync(log).size;
    const lines = f.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.type === 'step')).toEqual([]);
    const problems = lines.filter((l) => l.type === 'follow-problem');
    expect(problems.map((p) => p.retrying)).toEqual([true, false]);
    expect(problems[1]).toMatchObject({ target: 'local', path: log, unreadBytes: size });
    expect(problems[1].text).not.toMatch(/still retrying/);
    expect(problems[1].text).toMatch(/gave up/);
    // The last word on following; then the run's end state, the last line of all (#16).
    expect(lines.at(-2)).toBe(problems[1]);
    expect(lines.at(-1)).toMatchObject({ type: 'state', state: 'finished' });
    const human = f.stderr.match(/^follow\s+cannot follow .*$/gm)!;
    expect(human).toHaveLength(2);
    expect(human[1]).toContain(`${size} bytes`);
    expect(human[1]).not.toMatch(/still retrying/);
    expect(f.stdout + f.stderr).not.toContain(SECRET);
  });
});
