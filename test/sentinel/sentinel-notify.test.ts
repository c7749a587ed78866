// The headless case over a real sshd: `--launch --notify json://…` with nothing attached
// afterwards. The sentinel on the target sends the stall when it fires and when it clears, then the
// run's end, to a loopback HTTP receiver, and stops by itself; the URL's token is never in a file of
// the run dir or the sentinel's argv. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from '../runs/cli-process.js';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { DIGEST_HEADER_BYTES, digestPathFor, parseDigestHeader } from '../../src/session/run-digest.js';
import { runIdOf, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const TOKEN = `hook-${process.pid}-Qm4`;

interface Awrl {
  event: string;
  runId: string;
  alertId?: string;
  state?: string;
}

describe('a headless launch with --notify and nothing attached', { timeout: 240_000 }, () => {
  let env: SentinelEnv;
  let receiver: HttpReceiver;
  const started: CliProcess[] = [];
  const cli = async (args: string[]) => {
    const p = startCli(args, {
      CPU_CLUSTER_TOKEN: 'cluster-token',
      AWRL_NOTIFY: `json://127.0.0.1:${receiver.port}/hook/${TOKEN}`,
      AWRL_SENTINEL_PERIOD_MS: '1000',
    });
    started.push(p);
    const code = await p.done;
    expect(p.stdout + p.stderr).not.toContain(TOKEN);
    return { code, stdout: p.stdout, stderr: p.stderr };
  };

  beforeAll(async () => {
    [env, receiver] = await Promise.all([startSentinelEnv('awrl-sentinel-notify-'), startReceiver()]);
  });
  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await receiver?.stop();
    await env?.stop();
  });

  it('gets the stall fired and cleared, then the run’s end, from the sentinel alone', async () => {
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=150 AWRL_SIM_FAULT=stall:update_weights@4:30'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=headless-notify',
    ]);
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    const pid = Number(/^sentinel\s+(\d+) \(notifies json:\/\/127\.0\.0\.1:\d+\/\*\*\*\)$/m.exec(l.stdout)![1]);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1')).not.toContain(TOKEN);

    const events = () => receiver.received.map((r) => (JSON.parse(r.body) as { awrl: Awrl }).awrl);
    await waitFor(() => events().some((e) => e.event === 'run-end'), { timeoutMs: 200_000, what: 'the run’s end' });
    const got = events();
    expect(got.every((e) => e.runId === runId)).toBe(true);
    const stall = got.find((e) => e.event === 'alert' && /stall/.test(e.alertId ?? ''));
    expect(stall, JSON.stringify(got)).toBeDefined();
    const cleared = got.findIndex((e) => e.event === 'alert-cleared' && e.alertId === stall!.alertId);
    expect(cleared).toBeGreaterThan(got.indexOf(stall!));
    expect(got.at(-1)).toMatchObject({ event: 'run-end', state: 'finished' });
    expect(receiver.received.every((r) => r.path === `/hook/${TOKEN}`)).toBe(true);

    await waitFor(() => !pidAlive(pid), { timeoutMs: 30_000, what: 'the sentinel to stop after the end' });
    const r = await cli(['runs', runId, ...env.target(), '--json']);
    const [row] = JSON.parse(r.stdout) as Array<{ sentinel: { state: string; why?: string } }>;
    expect(row.sentinel).toMatchObject({ state: 'stopped', why: 'the run ended (finished)' });
    const dir = env.runDir(runId);
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'latin1')).not.toContain(TOKEN);
    // Its digest was brought to the log's end before it stopped (an attach reads it: sentinel-digest*.test.ts).
    const log = readFileSync(join(dir, 'stdout.log'));
    const digest = readFileSync(digestPathFor(join(dir, 'stdout.log')));
    expect(parseDigestHeader(digest.subarray(0, DIGEST_HEADER_BYTES))?.offset).toBe(log.lastIndexOf(0x0a) + 1);
    expect(statSync(digestPathFor(join(dir, 'stdout.log'))).mode & 0o777).toBe(0o600);
  });
});

describe('--launch --follow --notify with a sentinel: one sender', { timeout: 240_000 }, () => {
  let env: SentinelEnv;
  let receiver: HttpReceiver;
  let follow: CliProcess | null = null;

  beforeAll(async () => {
    [env, receiver] = await Promise.all([startSentinelEnv('awrl-sentinel-one-'), startReceiver()]);
  });
  afterAll(async () => {
    if (follow && follow.child.exitCode === null && follow.child.signalCode === null) follow.child.kill('SIGKILL');
    await receiver?.stop();
    await env?.stop();
  });

  it('the follower keeps quiet while the sentinel sends: each event reaches the receiver once', async () => {
    follow = startCli(
      [
        '--launch',
        ...env.target('AWRL_SIM_SPEED=150 AWRL_SIM_FAULT=stall:update_weights@4:30'),
        '--config',
        env.config,
        'total_train_epochs=1',
        '++trial_name=one-sender',
        '--notify',
        `json://127.0.0.1:${receiver.port}/one`,
        '--no-terminal-notify',
        '--follow',
      ],
      { CPU_CLUSTER_TOKEN: 'cluster-token', AWRL_SENTINEL_PERIOD_MS: '1000' },
    );
    expect(await follow.done, follow.stderr.slice(-800)).toBe(0);
    expect(follow.stdout).toMatch(/^sentinel\s+\d+ \(notifies json:\/\/127\.0\.0\.1:\d+\/\*\*\*\)$/m);
    expect(follow.stdout).toMatch(/^sentinel ok, \d+ s ago: it sends the run’s notifications$/m);
    await waitFor(() => receiver.received.some((r) => r.body.includes('"run-end"')), {
      timeoutMs: 60_000,
      what: 'the run’s end at the receiver',
    });
    const events = receiver.received.map((r) => (JSON.parse(r.body) as { awrl: Awrl }).awrl);
    const keys = events.map((e) => `${e.event} ${e.alertId ?? ''}`);
    expect(keys.filter((k) => /^alert .*stall/.test(k))).toHaveLength(1);
    expect(keys.filter((k) => k === 'run-end ')).toHaveLength(1);
    expect(new Set(keys).size, keys.join('\n')).toBe(keys.length);
  });
});
