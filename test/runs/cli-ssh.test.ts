// The headless commands a user types (`--launch`, `runs`, `stop`, `--resume`), run as processes
// against a real sshd, with the simulator (`awrl-tui sim init`) as the trainer. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { spawn, type ChildProcess } from 'node:child_process';

// The pre-flight tests' fake nvidia-smi: answers from $AWRL_FAKE_SMI_DIR/{gpus,apps}.csv.
const FAKE_SMI = new URL('../preflight/fixtures', import.meta.url).pathname;

const SECRET = `cli-sentinel-${process.pid}-Vb3`;
const { start, cli } = sentinelCli(SECRET);

const withoutAlerts = (stdout: string): string =>
  stdout
    .split('\n')
    .filter((l) => !/^\{"type":"(alert|alert-cleared|run|state|connection)"/.test(l))
    .join('\n');

function snapshot(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true })
      .map((f) => {
        const st = statSync(join(dir, String(f)));
        return `${f}:${st.size}:${st.mtimeMs}`;
      })
      .sort();
  } catch {
    return [];
  }
}

describe('launch, runs, stop and resume from the command line over ssh', () => {
  let workdir: string;
  let config: string;
  const running: CliProcess[] = [];
  const others: ChildProcess[] = [];
  let env: SimOverSshd;
  const target = (setup = '') => env.target(setup);

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-runs-cli-');
    ({ workdir, config } = env);
  });
  afterAll(async () => {
    for (const p of running) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    for (const c of others) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
    await env?.stop();
  });

  it('an invalid config exits 2 with file:line and leaves the target untouched', async () => {
    mkdirSync(join(workdir, '.awrl', 'runs'), { recursive: true });
    writeFileSync(join(workdir, '.awrl', 'marker'), 'x');
    const before = snapshot(join(workdir, '.awrl'));
    const bad = join(workdir, 'bad.yaml');
    writeFileSync(
      bad,
      readFileSync(config, 'utf8').replace(/^allocation_mode: .*$/m, 'allocation_mode: sglang.d4+fsdp.d4'),
    );
    const r = await cli(['--launch', ...target(), '--config', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const typo = await cli(['--launch', ...target(), '--config', config, 'actor.no_such_key=1']);
    expect(typo.code).toBe(2);
    expect(snapshot(join(workdir, '.awrl'))).toEqual(before);
  });

  it('--follow --json prints exactly the events of `parse --json`, and exits 0 when the run finishes', async () => {
    const r = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant'),
      '--config',
      config,
      'total_train_epochs=1',
      '++trial_name=cli-json',
      '--follow',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(r.stderr)![1];
    const log = join(workdir, '.awrl', 'runs', runId, 'stdout.log');
    const parsed = await cli(['parse', log, '--json']);
    expect(parsed.code).toBe(0);
    // Alerts are extra lines; every other line is exactly `parse --json`'s.
    expect(withoutAlerts(r.stdout)).toBe(parsed.stdout);
    const steps = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'step');
    expect(steps.map((e) => e.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    const runs = await cli(['runs', ...target(), '--json']);
    const me = (JSON.parse(runs.stdout) as Array<{ runId: string; state: string; globalStep: number }>).find(
      (x) => x.runId === runId,
    );
    expect(me).toMatchObject({ state: 'finished', globalStep: 8 });
    expect(r.stderr).toMatch(/preflight: no errors/);
    const record = JSON.parse(readFileSync(join(workdir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
    expect(record.preflight).toMatchObject({ skipped: false, errors: 0 });
  });

  it('pre-flight: a config naming a missing model path exits 2 with the error and creates nothing on the target', async () => {
    mkdirSync(join(workdir, '.awrl', 'runs'), { recursive: true });
    const before = snapshot(join(workdir, '.awrl'));
    const missing = join(workdir, 'models', 'missing-model');
    const r = await cli([
      '--launch',
      ...target(),
      '--config',
      config,
      `actor.path=${missing}`,
      '++trial_name=cli-nomodel',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^ERROR model +actor\.path .* does not exist/m);
    expect(r.stdout).toContain(`actor.path ${missing} does not exist`);
    expect(r.stderr).toMatch(/^awrl-tui: preflight found 1 error on .*: nothing was started .*--skip-preflight/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(join(workdir, '.awrl'))).toEqual(before);
  });

  it('--skip-preflight launches despite the error, and run.json records it', async () => {
    const missing = join(workdir, 'models', 'missing-model');
    const r = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant'),
      '--config',
      config,
      `actor.path=${missing}`,
      'total_train_epochs=1',
      '++trial_name=cli-skip',
      '--skip-preflight',
      '--follow',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ERROR model');
    expect(r.stdout).toMatch(/--skip-preflight given: launching despite 1 error/);
    const runId = /^run\s+(\S+)/m.exec(r.stdout)![1];
    const record = JSON.parse(readFileSync(join(workdir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
    expect(record.preflight).toEqual({ skipped: true, errors: 1, warnings: expect.any(Number) });
  });

  it('a failed run exits 1; --resume relaunches it in the same run dir, it resumes and finishes', async () => {
    const r = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant AWRL_SIM_FAULT=oom@3'),
      '--config',
      config,
      'total_train_epochs=1',
      'recover.freq_steps=1',
      '++trial_name=cli-fail',
      '--follow',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const runId = /^run\s+(\S+)/m.exec(r.stdout)![1];
    expect(r.stdout).toMatch(/step 2\/8/);
    expect(r.stdout).toMatch(/error: /);
    // The crash is reported as an alert too, once.
    expect(r.stdout.match(/^alert: \[error\] oom/gm)).toHaveLength(1);

    const again = await cli(['--launch', '--resume', runId, ...target('AWRL_SIM_SPEED=instant'), '--follow', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The first attempt's crash (followed from the log's start) becomes one alert line, as JSON.
    const alerts = lines.filter((e) => e.type === 'alert');
    expect(alerts.filter((a) => a.severity === 'error' && /^oom/.test(a.title))).toHaveLength(1);
    expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length);
    for (const a of alerts)
      expect(a).toMatchObject({ id: expect.any(String), title: expect.any(String), advice: expect.any(String) });
    const events = lines.filter((e) => e.type !== 'alert');
    // The log is followed from its start: the first attempt's steps, then the resume, then the rest.
    const resume = events.find((e) => e.type === 'resume');
    expect(resume.resumeStep).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'step').at(-1).globalStep).toBe(8);
    const record = JSON.parse(readFileSync(join(workdir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
    expect(record.attempts.map((a: { reason: string }) => a.reason)).toEqual(['launch', 'resume']);
    // The resume was pre-flighted with the run's own config (its checkpoint is found).
    expect(again.stderr).toMatch(/this launch will RESUME from step \d+/);
    expect(record.preflight).toMatchObject({ skipped: false, errors: 0 });
  });

  it('stop ends a followed run (the follower exits 3), a second launch is refused while it runs', async () => {
    const follower = start([
      '--launch',
      ...target('AWRL_SIM_SPEED=150'),
      '--config',
      config,
      '++trial_name=cli-stop',
      '--follow',
    ]);
    running.push(follower);
    await waitFor(() => /step 1\//.test(follower.stdout), { timeoutMs: 60_000, what: 'the first step line' });
    const runId = /^run\s+(\S+)/m.exec(follower.stdout)![1];
    const pid = Number(/^pid\s+(\d+)/m.exec(follower.stdout)![1]);

    // --skip-preflight: this is about the refusal of a twin, not about the busy GPUs pre-flight would report.
    const second = await cli([
      '--launch',
      ...target(),
      '--config',
      config,
      '++trial_name=cli-stop',
      '--skip-preflight',
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(runId);

    const stop = await cli(['stop', runId, ...target(), '--grace', '5']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`SIGTERM to process group ${pid}`);
    expect(await follower.done).toBe(3);
    expect(pidAlive(pid)).toBe(false);
    const runs = await cli(['runs', ...target()]);
    expect(runs.stdout).toMatch(new RegExp(`${runId}\\s+stopped`));
  });

  it('stop lists what is left: stops the processes tagged with the run (--yes), leaves an untagged GPU holder alone', async () => {
    const launched = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=150'),
      '--config',
      config,
      '++trial_name=cli-leftover',
    ]);
    expect(launched.code, launched.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(launched.stdout)![1];
    const pid = Number(/^pid\s+(\d+)/m.exec(launched.stdout)![1]);
    // A worker of the run in its own session (as torchrun starts them: the group kill misses it), and
    // someone else's process holding GPU memory.
    const env = { ...process.env };
    delete env.AWRL_RUN_ID;
    const worker = spawn('sleep', ['300'], { env: { ...env, AWRL_RUN_ID: runId }, stdio: 'ignore', detached: true });
    const holder = spawn('sleep', ['301'], { env, stdio: 'ignore' });
    others.push(worker, holder);
    await waitFor(() => pidAlive(worker.pid!) && pidAlive(holder.pid!), { what: 'the two processes' });
    const smiDir = join(workdir, 'fake-smi');
    mkdirSync(smiDir, { recursive: true });
    writeFileSync(
      join(smiDir, 'gpus.csv'),
      '0, GPU-00000000-1111-2222-3333-444444444444, NVIDIA H100 80GB HBM3, 30000, 81559\n',
    );
    writeFileSync(join(smiDir, 'apps.csv'), `${holder.pid}, GPU-00000000-1111-2222-3333-444444444444, 29990, sleep\n`);
    const stopTarget = [...target(), '--setup', `export PATH='${FAKE_SMI}':"$PATH" AWRL_FAKE_SMI_DIR='${smiDir}'`];

    // Headless without --yes: the run is stopped, the leftovers only listed, with how to stop them.
    const listed = await cli(['stop', runId, ...stopTarget, '--grace', '5']);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toContain(`SIGTERM to process group ${pid}`);
    expect(listed.stdout).toContain(`PID ${worker.pid} `);
    expect(listed.stdout).toMatch(new RegExp(`PID ${worker.pid} \\(\\S+\\) sleep 300 \\[tagged with this run\\]`));
    expect(listed.stdout).toMatch(new RegExp(`PID ${holder.pid} \\(\\S+\\) sleep 301 — 29990 MiB GPU \\[untagged\\]`));
    expect(listed.stdout).toContain('run this command again with --yes');
    expect(pidAlive(pid)).toBe(false);
    expect(pidAlive(worker.pid!)).toBe(true);

    const swept = await cli(['stop', runId, ...stopTarget, '--grace', '5', '--yes']);
    expect(swept.code, swept.stdout + swept.stderr).toBe(0);
    expect(swept.stdout).toContain(`stopped 1 tagged process: PID ${worker.pid}`);
    await waitFor(() => !pidAlive(worker.pid!), { what: 'the tagged worker to be gone' });
    expect(pidAlive(holder.pid!)).toBe(true);
    expect(swept.stdout).toMatch(new RegExp(`PID ${holder.pid} .*\\[untagged\\]`));
    process.kill(holder.pid!, 'SIGKILL');
  });
});
