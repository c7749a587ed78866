// A run's sentinel over a real sshd, with the simulator as the trainer: `sentinel start` gives one
// (its URLs never in its argv or a file), `runs --json` shows it, a second one is refused, a
// SIGKILLed one is `silent` at once and a frozen one within two heartbeats, `sentinel stop` stops it.
// (One left alone stopping after its run's end: sentinel-notify.test.ts.) Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, pidAlive } from '../harness/wait.js';
import { runIdOf, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const PERIOD_MS = 600;
const TOKEN = `tok-${process.pid}-Zx81`;
const { cli, killAll } = sentinelTestCli(TOKEN, PERIOD_MS);
process.env.AWRL_NOTIFY = `json://127.0.0.1:9/hook/${TOKEN}`;

interface Listed {
  runId: string;
  state: string;
  sentinel: { state: string; pid: number | null; heartbeatAt: string | null; notify: string[]; why?: string };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe('a run’s sentinel over ssh', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  const listed = async (runId: string): Promise<Listed> => {
    const r = await cli(['runs', runId, ...env.target(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as Listed[])[0];
  };
  const launch = async (trial: string, setup: string, overrides: string[] = []) => {
    const r = await cli([
      '--launch',
      ...env.target(setup),
      '--config',
      env.config,
      `++trial_name=${trial}`,
      ...overrides,
      '--no-sentinel',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return runIdOf(r.stdout);
  };

  beforeAll(async () => {
    env = await startSentinelEnv('awrl-sentinel-life-');
  });
  afterAll(async () => {
    killAll();
    delete process.env.AWRL_NOTIFY;
    await env?.stop();
  });

  it('one sentinel per run, its URLs on stdin only; SIGKILLed it is silent, frozen it is silent within two beats', async () => {
    const runId = await launch('life', 'AWRL_SIM_SPEED=40');
    const start = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(start.code, start.stderr).toBe(0);
    const pid = Number(/pid (\d+)/.exec(start.stdout)![1]);
    expect(pidAlive(pid)).toBe(true);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1')).not.toContain(TOKEN);

    const s = (await listed(runId)).sentinel;
    expect(s).toMatchObject({ state: 'running', pid, notify: ['json://127.0.0.1:9/***'] });
    const dir = env.runDir(runId);
    expect(statSync(join(dir, 'sentinel.log')).mode & 0o777).toBe(0o600);
    for (const f of [...filesUnder(dir), ...filesUnder(env.home)])
      expect(readFileSync(f, 'latin1')).not.toContain(TOKEN);

    const again = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`a sentinel already watches ${runId} (pid ${pid})`);

    // Frozen (SIGSTOP): alive, but its heartbeat ages. Any look taken two periods after its last
    // possible beat says silent (the `runs` command's own time is not counted against it).
    process.kill(pid, 'SIGSTOP');
    const frozenAt = Date.now();
    await waitFor(() => Date.now() >= frozenAt + 2 * PERIOD_MS + 100, { intervalMs: 10, what: 'two periods' });
    expect((await listed(runId)).sentinel).toMatchObject({
      state: 'silent',
      pid,
      why: expect.stringMatching(/^no heartbeat for \d+ s$/),
    });

    process.kill(pid, 'SIGKILL');
    await waitFor(() => !pidAlive(pid), { what: 'the sentinel to die' });
    const killed = (await listed(runId)).sentinel;
    expect(killed).toMatchObject({ state: 'silent', pid, why: expect.stringContaining('its process is gone') });
    const human = await cli(['runs', runId, ...env.target()]);
    expect(human.stdout).toContain('sentinel silent since');
    expect((await listed(runId)).state).toBe('running'); // its death never touches the run

    // The lock died with it: a new one starts, and `sentinel stop` stops it.
    const restart = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(restart.code, restart.stderr).toBe(0);
    const pid2 = Number(/pid (\d+)/.exec(restart.stdout)![1]);
    expect((await listed(runId)).sentinel).toMatchObject({ state: 'running', pid: pid2 });
    const okLine = await cli(['runs', runId, ...env.target()]);
    expect(okLine.stdout).toMatch(/sentinel ok, \d+ s ago/);
    const stop = await cli(['sentinel', 'stop', runId, ...env.target()]);
    expect(stop.stdout).toContain(`stopped the sentinel of ${runId}`);
    expect(pidAlive(pid2)).toBe(false);
    expect((await listed(runId)).sentinel).toMatchObject({ state: 'stopped', why: 'stopped by SIGTERM' });
    await cli(['stop', runId, ...env.target(), '--grace', '2']);
  });

  it('stops by itself when its run directory is removed (the state can no longer be asked: no end would come)', async () => {
    const runId = await launch('gone', 'AWRL_SIM_SPEED=40');
    const start = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(start.code, start.stderr).toBe(0);
    const pid = Number(/pid (\d+)/.exec(start.stdout)![1]);
    const dir = env.runDir(runId);
    renameSync(dir, `${dir}.moved`);
    try {
      await waitFor(() => !pidAlive(pid), { timeoutMs: 30_000, what: 'the sentinel to stop' });
    } finally {
      renameSync(`${dir}.moved`, dir);
    }
    expect(readFileSync(join(dir, 'sentinel.log'), 'utf8')).toContain(`the run's directory ${dir} was removed`);
    expect((await listed(runId)).state).toBe('running'); // the run goes on without it
    await cli(['stop', runId, ...env.target(), '--grace', '2']);
  });
});
