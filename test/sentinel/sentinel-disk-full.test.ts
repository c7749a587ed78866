// A full disk under a run, for real: the checkout's runs directory is a 16 MiB tmpfs in the sshd's own
// mount namespace (test/harness/sshd.ts `privateMounts`), filled from a session until ENOSPC. The
// sentinel goes on beating (sentinel.json written in place: `runs --json` says it runs, across
// several heartbeat periods, with `disk: full`); it sends one `disk-full` alert to its channel (a
// loopback receiver), with no secret in it; an attached `follow` shows it and raises no
// `sentinel-silent`; the space freed, one clear. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { runIdOf, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const PERIOD_MS = 1000;
const TOKEN = `hook-${process.pid}-Zr7`;
const SECRET = `cluster-${process.pid}-Df2`;
const { start, ok, killAll } = sentinelTestCli(SECRET, PERIOD_MS, [TOKEN]);

interface Awrl {
  event: string;
  alertId?: string;
}
interface Row {
  sentinel: { state: string; heartbeatAt: string; disk?: { state: string; error: string; path: string } };
}

describe('a full disk under the run', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  let receiver: HttpReceiver;
  /** A command in a session of the sshd: in its mount namespace, where the tmpfs is. */
  const onTarget = (cmd: string) =>
    new Promise<{ code: number; stderr: string; stdout: string }>((resolve) =>
      execFile('ssh', ['-F', env.sshd.sshConfigFile, env.sshd.alias, cmd], (e, stdout, stderr) =>
        resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  beforeAll(async () => {
    [env, receiver] = await Promise.all([
      startSentinelEnv('awrl-sentinel-disk-', { runsTmpfsMiB: 16 }),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    killAll();
    await receiver?.stop();
    await env?.stop();
  });

  it('keeps beating, sends one disk-full alert and one clear; nobody calls it silent', async () => {
    const sentinelUrl = `json://127.0.0.1:${receiver.port}/sentinel/${TOKEN}`;
    const launched = await ok(
      ['--launch', ...env.target('AWRL_SIM_SPEED=10'), '--config', env.config, '++trial_name=disk-full'],
      { AWRL_NOTIFY: sentinelUrl },
    );
    const runId = runIdOf(launched);
    const pid = Number(/^sentinel\s+(\d+) /m.exec(launched)![1]);
    const runsDir = env.runDir(runId).replace(/\/[^/]+$/, '');
    const row = async (): Promise<Row> =>
      (JSON.parse(await ok(['runs', runId, ...env.target(), '--json'])) as Row[])[0];
    const received = () =>
      receiver.received
        .map((r) => ({ path: r.path, body: r.body, awrl: (JSON.parse(r.body) as { awrl: Awrl }).awrl }))
        .filter((r) => r.awrl.alertId === 'disk-full');

    const follow = start([
      'follow',
      runId,
      ...env.target(),
      '--json',
      '--no-terminal-notify',
      '--notify',
      `json://127.0.0.1:${receiver.port}/attached`,
    ]);
    const lines = () =>
      follow.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type: string; id?: string; state?: string; error?: string });
    await waitFor(() => /sentinel ok, \d+ s ago/.test(follow.stderr), {
      timeoutMs: 30_000,
      what: 'follow to see the sentinel beat',
    });

    // Filled from a session until the filesystem refuses: a real ENOSPC.
    const fill = await onTarget(`head -c 64M /dev/zero > ${runsDir}/filler`);
    expect(fill.code).not.toBe(0);
    expect(fill.stderr).toMatch(/No space left on device/);
    await waitFor(() => received().some((r) => r.awrl.event === 'alert'), {
      timeoutMs: 20_000,
      what: 'the disk-full alert at the receiver',
    });
    const [alert] = received();
    expect(alert.path).toBe(`/sentinel/${TOKEN}`);
    expect(alert.body).toMatch(/no space left \(ENOSPC writing \S+\/sentinel[-.]\w+\)/);
    expect(alert.body).toMatch(/the run's filesystem on /);
    const noSecret = alert.body.replace(`/sentinel/${TOKEN}`, '');
    expect(noSecret).not.toContain(TOKEN);
    expect(noSecret).not.toContain(SECRET);

    // Still running across more than two heartbeat periods of the full disk, its beat moving on.
    const first = await row();
    expect(first.sentinel).toMatchObject({ state: 'running', disk: { state: 'full', error: 'ENOSPC' } });
    const fullSince = Date.now();
    let last = first;
    while (Date.now() - fullSince < 3 * PERIOD_MS) {
      last = await row();
      expect(last.sentinel.state).toBe('running');
      expect(last.sentinel.disk?.state).toBe('full');
    }
    expect(Date.parse(last.sentinel.heartbeatAt)).toBeGreaterThan(Date.parse(first.sentinel.heartbeatAt));
    expect(await ok(['runs', runId, ...env.target()])).toMatch(
      /sentinel ok, \d+ s ago · disk full since \S+ \(ENOSPC\)/,
    );
    await waitFor(() => lines().some((l) => l.type === 'sentinel-disk' && l.state === 'full'), {
      what: "follow's sentinel-disk line",
    });
    expect(pidAlive(pid)).toBe(true);
    // The digest and the snapshot written before stay as they were; no refused write leaves a file.
    const during = await onTarget(
      `cd ${env.runDir(runId)} && test -s sentinel-digest && test -s sentinel-snapshot && ls -a`,
    );
    expect(during.code, during.stderr).toBe(0);
    expect(during.stdout).not.toMatch(/\.tmp$/m);

    // Room again: one clear, from the sentinel.
    const freed = await onTarget(`rm -f ${runsDir}/filler`);
    expect(freed.code).toBe(0);
    await waitFor(() => received().some((r) => r.awrl.event === 'alert-cleared'), {
      timeoutMs: 20_000,
      what: 'the clear at the receiver',
    });
    await waitFor(async () => !(await row()).sentinel.disk, { timeoutMs: 10_000, what: 'runs to say the disk is ok' });
    await waitFor(() => lines().some((l) => l.type === 'sentinel-disk' && l.state === 'ok'), {
      what: "follow's sentinel-disk ok line",
    });
    expect(received().map((r) => r.awrl.event)).toEqual(['alert', 'alert-cleared']);
    // Told once each by follow: another of the sentinel's writes refused is the same full disk.
    expect(
      lines()
        .filter((l) => l.type === 'sentinel-disk')
        .map((l) => l.state),
    ).toEqual(['full', 'ok']);
    // The attached watch sent none of it (the sentinel is the sender) and never called it silent.
    expect(received().filter((r) => r.path === '/attached')).toEqual([]);
    expect(lines().filter((l) => l.id === 'sentinel-silent')).toEqual([]);
    // No temporary file left by the refused writes.
    const ls = await onTarget(`ls -a ${env.runDir(runId)}`);
    expect(ls.stdout).not.toMatch(/\.tmp$/m);

    follow.child.kill('SIGTERM');
    await follow.done;
    await ok(['sentinel', 'stop', runId, ...env.target()]);
    await ok(['stop', runId, ...env.target(), '--grace', '2']);
  });
});
