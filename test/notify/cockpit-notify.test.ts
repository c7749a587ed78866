// The cockpit's open run notifies as `follow` does (the same subscriber on its watch): the
// simulator launched locally with a NaN fault, the live session opened on it with a json:// channel
// from the command line and one from the target's `notify:`, both on a real receiver; a refused
// channel is said on the status line; the terminal gets the error through tmux's passthrough and
// the tab's progress turns red while the error stands.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { parseChannel, type Channel } from '../../src/notify/channel-url.js';
import { launchSim, withSimEnv, type SimRun } from '../ui/sim-run.js';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor } from '../harness/wait.js';

const ESC = '\x1b';
const channel = (url: string): Channel => {
  const c = parseChannel(url);
  if (typeof c === 'string') throw new Error(c);
  return c;
};
const awrlOf = (r: { body: string }) => (JSON.parse(r.body) as { awrl: Record<string, unknown> }).awrl;

describe('cockpit notifications', { timeout: 120_000 }, () => {
  let rx: HttpReceiver;
  let sim: SimRun;
  let session: LiveSession | undefined;
  const written: string[] = [];

  beforeAll(async () => {
    rx = await startReceiver();
    rx.route('/refused', { status: 404, body: 'no such topic' });
    sim = await withSimEnv({ AWRL_SIM_SPEED: '600', AWRL_SIM_FAULT: 'nan-grad@3', AWRL_SIM_DATASET_SIZE: '768' }, () =>
      launchSim(['total_train_epochs=1', '++trial_name=cockpit-notify']),
    );
  });
  afterAll(async () => {
    await session?.close();
    await sim?.stop();
    await rx?.stop();
  });

  it('alerts and the end reach both channels; a refused one is on the status line; the terminal rings red', async () => {
    session = createLiveSession({
      targets: [
        { target: { ...sim.target, notify: [`json://127.0.0.1:${rx.port}/profile`] }, transport: sim.transport },
      ],
      openRunId: sim.runId,
      gpuPoller: null,
      runFacts: async () => ({}),
      runsPollMs: 60_000,
      statePollMs: 200,
      notify: {
        channels: [channel(`json://127.0.0.1:${rx.port}/flag`), channel(`ntfy://127.0.0.1:${rx.port}/refused-Sec`)],
        terminal: { write: (s) => void written.push(s), env: { TMUX: '/tmp/tmux-1/default,1,0' } },
      },
    });
    const sent = (path: string) => rx.received.filter((r) => r.path === path).map(awrlOf);
    await waitFor(() => sent('/flag').some((a) => a.event === 'run-end'), {
      timeoutMs: 90_000,
      what: 'the run end',
    }).catch((e: Error) => {
      throw new Error(`${e.message}; received ${JSON.stringify(sent('/flag'))}; notice ${session!.getState().notice}`);
    });
    const flag = sent('/flag');
    expect(flag.find((a) => a.event === 'alert' && a.severity === 'error')).toMatchObject({ runId: sim.runId });
    expect(flag.at(-1)).toMatchObject({ event: 'run-end', state: 'finished' });
    await waitFor(() => sent('/profile').length === flag.length, { what: "the target's own channel" });
    expect(sent('/profile')).toEqual(flag);
    await waitFor(() => session!.getState().notice?.includes('not sent to ntfy://'), { what: 'the status line' });
    expect(session.getState().notice).toMatch(/^notify: \S+ not sent to ntfy:\/\/127\.0\.0\.1:\d+\/\*\*\*: HTTP 404/);
    expect(session.getState().notice).not.toContain('Sec');
    const all = written.join('');
    // The error as a notification in tmux's passthrough, a BEL after it; progress red (9;4;2) after it.
    expect(all).toMatch(new RegExp(`${ESC}Ptmux;${ESC}${ESC}\\]9;awrl ${sim.runId}: [^\\x07]*\\x07${ESC}\\\\\\x07`));
    expect(all).toContain(`${ESC}Ptmux;${ESC}${ESC}]9;4;2;`);
    expect(all.indexOf(`]9;4;2;`)).toBeGreaterThan(all.indexOf(`]9;4;1;`));
  });
});
