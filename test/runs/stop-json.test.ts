// `stop --json`: ONE JSON line on stdout saying what was done (how the run was stopped, the state
// after, stopRequestedAt as run.json keeps it, the leftovers found and stopped), the human lines on
// stderr, and the cli-error line on failure. Built CLI, real sshd, the simulator as the trainer.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { sentinelCli } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const SECRET = `stop-json-sentinel-${process.pid}-Wq4`;
const { cli } = sentinelCli(SECRET);

/** stdout must be exactly one JSON line: returns it parsed. */
function oneJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]);
}

describe('stop --json', () => {
  let env: SimOverSshd;
  const others: ChildProcess[] = [];
  beforeAll(async () => {
    env = await startSimOverSshd('awrl-stop-json-');
  }, 60_000);
  afterAll(async () => {
    for (const c of others) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
    await env?.stop();
  });

  it('says how the run was stopped, the state after, the head-clock stopRequestedAt and the leftovers', async () => {
    const launched = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=150'),
      '--config',
      env.config,
      '++trial_name=stop-json',
      '--skip-preflight',
    ]);
    expect(launched.code, launched.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(launched.stdout)![1];
    const pid = Number(/^pid\s+(\d+)/m.exec(launched.stdout)![1]);
    // A worker of the run in its own session: the group kill misses it, the leftover check finds it.
    const clean = { ...process.env };
    delete clean.AWRL_RUN_ID;
    const worker = spawn('sleep', ['300'], { env: { ...clean, AWRL_RUN_ID: runId }, stdio: 'ignore', detached: true });
    others.push(worker);
    await waitFor(() => pidAlive(worker.pid!), { what: 'the tagged worker' });

    const first = await cli(['stop', runId, ...env.target(), '--grace', '5', '--json']);
    expect(first.code, first.stderr).toBe(1); // a tagged process is left (no --yes)
    const a = oneJsonLine(first.stdout);
    const record = JSON.parse(readFileSync(join(env.workdir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
    expect(a).toMatchObject({
      type: 'stop',
      runId,
      target: env.sshd.alias,
      backend: 'direct',
      stoppedBy: 'sigterm',
      terminated: [pid],
      killed: [],
      cancelledJobs: [],
      alreadyEnded: null,
      state: 'stopped',
      stopRequestedAt: record.stopRequestedAt,
      leftovers: {
        tagged: [expect.objectContaining({ pid: worker.pid, tagged: true })],
        stopped: [],
        remaining: [expect.objectContaining({ pid: worker.pid })],
      },
    });
    expect(Math.abs(Date.parse(String(a.stopRequestedAt)) - Date.now())).toBeLessThan(10 * 60_000);
    // The human lines still say it, on stderr (a script reads stdout).
    expect(first.stderr).toContain(`SIGTERM to process group ${pid}`);
    expect(first.stderr).toContain('run this command again with --yes');
    expect(pidAlive(pid)).toBe(false);
    expect(pidAlive(worker.pid!)).toBe(true);

    // Again with --yes: the run had already ended (its stop time is kept), the worker is stopped.
    const second = await cli(['stop', runId, ...env.target(), '--grace', '5', '--json', '--yes']);
    expect(second.code, second.stderr).toBe(0);
    const b = oneJsonLine(second.stdout);
    expect(b).toMatchObject({
      type: 'stop',
      runId,
      stoppedBy: null,
      alreadyEnded: { state: 'stopped' },
      state: 'stopped',
      stopRequestedAt: record.stopRequestedAt,
      leftovers: { stopped: [expect.objectContaining({ pid: worker.pid })], remaining: [] },
    });
    await waitFor(() => !pidAlive(worker.pid!), { what: 'the tagged worker to be gone' });
  }, 120_000);

  it('a failure is the one cli-error line', async () => {
    const r = await cli(['stop', 'nosuch-20260101-000000-abcd', ...env.target(), '--json']);
    expect(r.code).toBe(2);
    expect(oneJsonLine(r.stdout)).toMatchObject({ type: 'cli-error', exit: 2, code: 'run-not-found' });
    const bad = await cli(['stop', '--json']);
    expect(bad.code).toBe(2);
    expect(oneJsonLine(bad.stdout)).toMatchObject({ type: 'cli-error', exit: 2, code: 'usage' });
  }, 60_000);
});
