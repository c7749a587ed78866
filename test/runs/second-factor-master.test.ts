// A cluster that asks for a second factor, used the way researchers do: one login in a terminal
// starts an OpenSSH ControlMaster (here: the test, the code typed once by SSH_ASKPASS), and every
// command rides it: `runs`, `--launch --follow`, and a follow whose ssh client is killed mid-run,
// with no further second-factor login in sshd's log. When the master is gone, a follow says the
// connection needs the person to log in again (exit 4), after one look: no retry loop.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { startTotpSshd, type TotpSshd } from '../harness/sshd-totp.js';
import { startControlMaster, type ControlMaster } from '../harness/control-master.js';
import { descendants } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { parseLogBytes, eventToJsonLine } from '../../src/trainer-log/index.js';

const start = (args: string[]): CliProcess => startCli(args, { CPU_CLUSTER_TOKEN: 'token' });

/** The ssh clients under `pid` that carry a follower (its argv0 `awrl-follow` is in their command). */
function followerClients(pid: number): number[] {
  return descendants(pid).filter((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return argv[0] === 'ssh' && argv.some((a) => a.includes('awrl-follow'));
    } catch {
      return false;
    }
  });
}

describe('a second-factor cluster through the user’s OpenSSH ControlMaster', () => {
  let env: SimOverSshd<TotpSshd>;
  let master: ControlMaster;
  const procs: CliProcess[] = [];
  const target = (speed: string) => [
    '--target',
    env.sshd.alias,
    '-F',
    master.sshConfigFile,
    '--workdir',
    env.workdir,
    '--setup',
    `export PATH=${env.workdir}/bin:$PATH AWRL_SIM_SPEED=${speed}`,
  ];

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-2fa-master-', () => startTotpSshd());
    master = await startControlMaster(env.sshd, env.sshd.nextCode());
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await master?.stop();
    await env?.stop();
  });

  it('runs, --launch --follow and a follow across a killed client all ride the one login', async () => {
    expect(env.sshd.secondFactorLogins()).toBe(1); // the master's
    const runs = start(['runs', ...target('instant'), '--json']);
    procs.push(runs);
    expect(await runs.done, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toEqual([]);

    const f = start([
      '--launch',
      ...target('600'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=twofa',
      '--follow',
      '--json',
    ]);
    procs.push(f);
    await waitFor(() => /"globalStep":2,/.test(f.stdout), { timeoutMs: 60_000, what: 'step 2' });
    const [client] = await waitFor(() => followerClients(f.child.pid!), { what: "the follower's ssh client" });
    process.kill(client, 'SIGKILL');
    await waitFor(() => followerClients(f.child.pid!).some((p) => p !== client), {
      timeoutMs: 15_000,
      what: 'a new follower after the killed one',
    });
    expect(await f.done, f.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(f.stderr)![1];
    const log = readFileSync(join(env.workdir, '.awrl', 'runs', runId, 'stdout.log'));
    const expected = parseLogBytes(log)
      .map((e) => `${eventToJsonLine(e)}\n`)
      .join('');
    // Every event exactly once across the killed client (the follower resumed at its byte offset).
    expect(
      f.stdout
        .split('\n')
        .filter((l) => !/^\{"type":"(alert|alert-cleared|run|state|connection)"/.test(l))
        .join('\n'),
    ).toBe(expected);
    expect(env.sshd.secondFactorLogins()).toBe(1);
  }, 120_000);

  it('the master gone: follow says the connection needs you to log in again, exit 4, one look', async () => {
    const f = start(['--launch', ...target('600'), '--config', env.config, '++trial_name=twofa-gone', '--follow']);
    procs.push(f);
    await waitFor(() => /step 1\//.test(f.stdout), { timeoutMs: 60_000, what: 'the first step' });
    const partials = (): number => (env.sshd.log().match(/Partial publickey for /g) ?? []).length;
    const before = partials();
    await master.stop();
    expect(await f.done).toBe(4);
    // The run goes on without us (detached on the target): end it here, by its process group.
    const pid = Number(/^pid\s+(\d+)/m.exec(f.stdout + f.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(-pid, 'SIGKILL');
    expect(f.stderr).toMatch(/connection needs you to log in again/);
    expect(f.stderr).toContain('keyboard-interactive');
    expect(f.stderr).toContain('ControlMaster');
    expect(partials() - before).toBe(1); // the one look for a new login: no loop, no command on its own
    expect(env.sshd.secondFactorLogins()).toBe(1);

    // And with no master and no terminal, a command fails at once, naming the way out.
    const runs = start(['runs', ...target('instant'), '--json']);
    procs.push(runs);
    expect(await runs.done).toBe(4);
    const last = JSON.parse(runs.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ code: 'login-needs-person', exit: 4 });
    expect(last.message).toContain('keyboard-interactive');
  }, 120_000);
});
