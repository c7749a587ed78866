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
    const f = startCli(['--launch', ...sim.target('AWRL_SIM_SPEED=600'), '--config', sim.config, 'total_train_epochs=1', '++trial_name=sshd-restart', '--follow', '--json'], { CPU_CLUSTER_TOKEN: 'token' });
    procs.push(f);
    await waitFor(() => /"globalStep":2,/.test(f.stdout), { timeoutMs: 60_000, what: 'step 2' });
    restarted = await restartSshd(sim.sshd);
    expect(await f.done, f.stderr).toBe(0);
    // The follower did come back through the new server.
    expect(readFileSync(join(sim.sshd.dir, 'sshd-restarted.log'), 'utf8')).toMatch(/Accepted publickey/);
    const runId = /^run\s+(\S+)/m.exec(f.stderr)![1];
    const log = readFileSync(join(sim.workdir, '.awrl', 'runs', runId, 'stdout.log'));
    const expected = parseLogBytes(log).map((e) => eventToJsonLine(e));
    const printed = f.stdout.trim().split('\n').filter((l) => !l.startsWith('{"type":"alert"'));
    expect(printed).toEqual(expected);
    expect(printed.map((l) => JSON.parse(l)).filter((e) => e.type === 'step').map((e) => e.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }, 120_000);
});
