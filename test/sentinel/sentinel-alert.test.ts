// A silent sentinel is an alert of the attached watch, over a real sshd: `follow --notify` attached to
// a run whose sentinel sends; the sentinel SIGKILLed by PID → within two heartbeats `follow` tells
// the `sentinel-silent` alert and, being the sender now, sends it to its own channel (a loopback
// receiver); a new sentinel beats → the alert clears, and the clear reaches the receiver too (the
// silent sentinel could not send either). A `follow` with no channel tells the alert and its clear
// too (whoever follows learns that nothing watches the run once they stop). Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { runIdOf, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const PERIOD_MS = 1000;
const { start, ok, killAll } = sentinelTestCli(`cluster-${process.pid}-Sa4`, PERIOD_MS);

interface Line {
  type: string;
  id?: string;
  severity?: string;
}
interface Awrl {
  event: string;
  alertId?: string;
}

describe('a silent sentinel is an alert of the attached watch', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  let receiver: HttpReceiver;
  /** The sentinel's own channel and the attached watch's: each message says who sent it. */
  const sentinelUrl = () => `json://127.0.0.1:${receiver.port}/sentinel`;
  const attachedUrl = () => `json://127.0.0.1:${receiver.port}/attached`;
  const received = (path: string) =>
    receiver.received.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { awrl: Awrl }).awrl);

  beforeAll(async () => {
    [env, receiver] = await Promise.all([startSentinelEnv('awrl-sentinel-alert-'), startReceiver()]);
  });
  afterAll(async () => {
    killAll();
    await receiver?.stop();
    await env?.stop();
  });

  it('SIGKILLed: the alert within two heartbeats, sent by the attached watch; a new sentinel clears it', async () => {
    const launched = await ok([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=20'),
      '--config',
      env.config,
      '++trial_name=silent-alert',
      '--no-sentinel',
    ]);
    const runId = runIdOf(launched);
    const begun = await ok(['sentinel', 'start', runId, ...env.target()], { AWRL_NOTIFY: sentinelUrl() });
    const pid = Number(/pid (\d+)/.exec(begun)![1]);

    const follow = start([
      'follow',
      runId,
      ...env.target(),
      '--json',
      '--no-terminal-notify',
      '--notify',
      attachedUrl(),
    ]);
    // And one with no channel: it sends nothing, and tells the silence all the same.
    const plain = start(['follow', runId, ...env.target(), '--json', '--no-terminal-notify']);
    const lines = (p = follow): Line[] =>
      p.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
    const alerts = (type: string, p = follow) => lines(p).filter((l) => l.type === type && l.id === 'sentinel-silent');
    await waitFor(() => /sentinel ok, \d+ s ago/.test(follow.stderr), {
      timeoutMs: 30_000,
      what: 'follow to see the sentinel beat',
    });
    expect(alerts('alert')).toEqual([]);

    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => !pidAlive(pid), { what: 'the sentinel to die' });
    await waitFor(() => alerts('alert').length > 0, { timeoutMs: 20_000, what: "follow's sentinel-silent alert" });
    const within = Date.now() - killedAt;
    expect(within, `${within} ms`).toBeLessThanOrEqual(2 * PERIOD_MS + 1500);
    expect(alerts('alert')).toEqual([expect.objectContaining({ severity: 'warning' })]);
    await waitFor(() => alerts('alert', plain).length > 0, { timeoutMs: 20_000, what: 'the plain follow told too' });
    expect(lines(plain).filter((l) => l.type === 'sentinel')).toEqual([]); // who sends: not its business
    // The attached watch is the sender now: the alert reaches its own channel, once.
    await waitFor(() => received('/attached').some((e) => e.alertId === 'sentinel-silent'), {
      what: 'the alert at the receiver',
    });

    // A heartbeat again: cleared, and the clear is sent by the attached watch (the one that told it).
    await ok(['sentinel', 'start', runId, ...env.target()], { AWRL_NOTIFY: sentinelUrl() });
    await waitFor(() => alerts('alert-cleared').length > 0, { timeoutMs: 20_000, what: 'the alert to clear' });
    await waitFor(() => received('/attached').some((e) => e.event === 'alert-cleared'), {
      what: 'the clear at the receiver',
    });
    const attached = received('/attached').filter((e) => e.alertId === 'sentinel-silent');
    expect(attached.map((e) => e.event)).toEqual(['alert', 'alert-cleared']);
    // Nobody else sends it: the sentinel only knows the run's own alerts.
    expect(received('/sentinel').filter((e) => e.alertId === 'sentinel-silent')).toEqual([]);

    await waitFor(() => alerts('alert-cleared', plain).length > 0, { timeoutMs: 20_000, what: 'the plain clear' });
    follow.child.kill('SIGTERM');
    plain.child.kill('SIGTERM');
    await Promise.all([follow.done, plain.done]);
    await ok(['sentinel', 'stop', runId, ...env.target()]);
    await ok(['stop', runId, ...env.target(), '--grace', '2']);
  });
});
