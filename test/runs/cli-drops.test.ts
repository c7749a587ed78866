// `--launch --follow` through a TCP proxy that cuts the connection: across a reset every event is
// printed exactly once (same bytes as `parse --json` of the run's log); when the host stays
// unreachable beyond --reconnect-timeout the follower exits 4 and the run goes on.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, ROOT, type CliProcess } from './cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { parseLogBytes, eventToJsonLine } from '../../src/trainer-log/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const start = (args: string[]): CliProcess => startCli(args, { CPU_CLUSTER_TOKEN: 'token' });

describe('--follow across connection drops', () => {
  let sshd: SshdHandle;
  let proxy: TcpProxy;
  let workdir: string;
  let config: string;
  let proxied: { file: string; alias: string };
  const procs: CliProcess[] = [];
  const target = (speed: string) => [
    '--target',
    proxied.alias,
    '-F',
    proxied.file,
    '--workdir',
    workdir,
    '--setup',
    `export PATH=${workdir}/bin:$PATH AWRL_SIM_SPEED=${speed}`,
  ];

  beforeAll(async () => {
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    const alias = `proxied-${proxy.port}`;
    const kh = join(sshd.dir, 'known_hosts_proxy');
    writeFileSync(kh, `[127.0.0.1]:${proxy.port} ${sshd.hostPublicKey}\n`);
    const file = join(sshd.dir, 'ssh_config_proxy');
    writeFileSync(
      file,
      [
        `Host ${alias}`,
        '  HostName 127.0.0.1',
        `  Port ${proxy.port}`,
        `  User ${sshd.user}`,
        `  IdentityFile ${sshd.identityFile}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${kh}`,
        '  StrictHostKeyChecking yes',
        '  ServerAliveInterval 1',
        '  ServerAliveCountMax 2',
        '',
      ].join('\n'),
    );
    proxied = { file, alias };
    workdir = mkdtempSync(join(tmpdir(), 'awrl-runs-drops-'));
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256); // 8 steps per epoch at batch 32
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await proxy?.stop();
    await sshd?.stop();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it('prints every event once across a reset and exits 0', async () => {
    const f = start([
      '--launch',
      ...target('600'),
      '--config',
      config,
      'total_train_epochs=1',
      '++trial_name=drop-reset',
      '--follow',
      '--json',
    ]);
    procs.push(f);
    await waitFor(() => /"globalStep":2,/.test(f.stdout), { timeoutMs: 60_000, what: 'step 2' });
    const acceptedBefore = proxy.accepted;
    proxy.resetAll();
    await waitFor(() => proxy.accepted > acceptedBefore, { timeoutMs: 30_000, what: 'a reconnection' });
    expect(await f.done).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(f.stderr)![1];
    const log = readFileSync(join(workdir, '.awrl', 'runs', runId, 'stdout.log'));
    const expected = parseLogBytes(log)
      .map((e) => `${eventToJsonLine(e)}\n`)
      .join('');
    // Alert lines ({"type":"alert",…}) ride along; every other line is exactly the parser's.
    expect(
      f.stdout
        .split('\n')
        .filter((l) => !/^\{"type":"(alert|alert-cleared|run|state|connection)"/.test(l))
        .join('\n'),
    ).toBe(expected);
    const steps = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'step')
      .map((e) => e.globalStep);
    const alerts = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'alert');
    expect(new Set(alerts.map((a) => a.id)).size).toBe(alerts.length); // each alert once, across the reset too
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }, 120_000);

  it('exits 4 when the host stays unreachable beyond --reconnect-timeout, --json ending with one error line; the run goes on', async () => {
    const f = start([
      '--launch',
      ...target('150'),
      '--config',
      config,
      '++trial_name=drop-gone',
      '--follow',
      '--json',
      '--reconnect-timeout',
      '3',
    ]);
    procs.push(f);
    await waitFor(() => /"globalStep":1,/.test(f.stdout), { timeoutMs: 60_000, what: 'the first step' });
    const pid = Number(/^pid\s+(\d+)/m.exec(f.stderr)![1]);
    await proxy.refuse();
    proxy.resetAll();
    expect(await f.done).toBe(4);
    expect(f.stderr).toMatch(/lost the connection/);
    expect(f.stderr).not.toMatch(/\n\s+at /);
    // The events, then ONE error line a script can tell from the trainer's error events by its exit.
    const last = JSON.parse(f.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({
      type: 'cli-error',
      exit: 4,
      code: 'disconnected',
      message: expect.stringMatching(/^lost the connection/),
    });
    expect(last.hint).toContain('awrl-tui follow');
    expect(f.stdout.split('\n').filter((l) => l.includes('"code":"disconnected"'))).toHaveLength(1);
    expect(pidAlive(pid)).toBe(true);
    await proxy.pass();
    const stop = start(['stop', /^run\s+(\S+)/m.exec(f.stderr)![1], ...target('150'), '--grace', '5']);
    procs.push(stop);
    expect(await stop.done).toBe(0);
    expect(pidAlive(pid)).toBe(false);
  }, 120_000);
});
