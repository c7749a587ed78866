// `--launch --follow` while the head's sshd is restarted (a package upgrade, a reboot of the
// service): every session dies, the job does not (it left sshd's tree when it started), and the
// follower reconnects with the same host key and prints every event once, then exits 0.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { restartSshd, type RestartedSshd } from '../harness/sshd-restart.js';
import { killTree } from '../harness/sshd.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { eventToJsonLine } from '../../src/trainer-log/index.js';

describe('--follow across an sshd restart on the head', () => {
  let sim: SimOverSshd;
  let restarted: RestartedSshd | null = null;
  const procs: CliProcess[] = [];
  beforeAll(async () => {
    sim = await startSimOverSshd('awrl-sshd-restart-');
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await restarted?.stop();
    await sim?.stop();
  });

  it('prints every event once and exits 0 when the run finishes', async () => {
    const f = startCli(
      [
        '--launch',
        ...sim.target('AWRL_SIM_SPEED=600'),
        '--config',
        sim.config,
        'total_train_epochs=1',
        '++trial_name=sshd-restart',
        '--follow',
        '--json',
      ],
      { CPU_CLUSTER_TOKEN: 'token' },
    );
    procs.push(f);
    await waitFor(() => /"globalStep":2,/.test(f.stdout), { timeoutMs: 60_000, what: 'step 2' });
    restarted = await restartSshd(sim.sshd);
    expect(await f.done, f.stderr).toBe(0);
    // The follower did come back through the new server.
    expect(readFileSync(join(sim.sshd.dir, 'sshd-restarted.log'), 'utf8')).toMatch(/Accepted publickey/);
    const runId = /^run\s+(\S+)/m.exec(f.stderr)![1];
    const log = readFileSync(join(sim.workdir, '.awrl', 'runs', runId, 'stdout.log'));
    const expected = parseLogBytes(log).map((e) => eventToJsonLine(e));
    const printed = f.stdout
      .trim()
      .split('\n')
      .filter((l) => !/^\{"type":"(alert|alert-cleared|run|state|connection)"/.test(l));
    expect(printed).toEqual(expected);
    expect(
      printed
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'step')
        .map((e) => e.globalStep),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }, 120_000);

  it('a new host key after the restart: exit 4 with the mismatch warning and what to do, no stack trace', async () => {
    const f = startCli(
      [
        '--launch',
        ...sim.target('AWRL_SIM_SPEED=150'),
        '--config',
        sim.config,
        'total_train_epochs=1',
        '++trial_name=sshd-rekeyed',
        '--follow',
      ],
      { CPU_CLUSTER_TOKEN: 'token' },
    );
    procs.push(f);
    await waitFor(() => /^step 1\//m.test(f.stdout), { timeoutMs: 60_000, what: 'step 1' });
    const pid = Number(/^pid\s+(\d+)/m.exec(f.stdout + f.stderr)![1]);
    await restarted?.stop();
    restarted = await restartSshd(sim.sshd, { newHostKey: true });
    try {
      expect(await f.done).toBe(4);
      expect(f.stderr).toMatch(/does NOT match the recorded one/);
      expect(f.stderr).toMatch(/ssh-keygen -R/);
      expect(f.stderr).not.toMatch(/\n\s+at /);
    } finally {
      if (pidAlive(pid)) await killTree(pid);
    }
  }, 120_000);
});
