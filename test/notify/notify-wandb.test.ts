// Every notification carries the run's wandb page once it is known: read from the watch's wandb
// record (the log's banner), or given before the log says it; sent through notifyFromWatch to a
// real json:// receiver on 127.0.0.1, in the `awrl` object and the message text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyFromWatch, type NotifiedWatch } from '../../src/notify/index.js';
import { parseChannel, type Channel } from '../../src/notify/channel-url.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor } from '../harness/wait.js';

const URL_ = 'https://wandb.ai/webgym/rl/runs/auto_intuition-model_20260525';
const channel = (url: string): Channel => {
  const c = parseChannel(url);
  if (typeof c === 'string') throw new Error(c);
  return c;
};
const bodyOf = (r: { body: string }) =>
  JSON.parse(r.body) as { title: string; message: string; awrl: Record<string, unknown> };

/** A watch as the notifier sees one: its outputs, pushed by the test. */
function fakeWatch(): NotifiedWatch & { emit(o: WatchOutput): void } {
  const listeners: ((o: WatchOutput) => void)[] = [];
  return {
    readingBacklog: false,
    on(l) {
      listeners.push(l);
      return () => listeners.splice(listeners.indexOf(l), 1);
    },
    emit: (o) => listeners.forEach((l) => l(o)),
  };
}
const alert = (id: string): WatchOutput => ({
  type: 'alert',
  alert: { id, severity: 'error', title: `${id}: it broke`, detail: 'details', advice: 'fix it', step: 3 },
});

describe('the wandb URL in notifications', { timeout: 30_000 }, () => {
  let rx: HttpReceiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.stop();
  });
  const sent = (path: string) => rx.received.filter((r) => r.path === path).map(bodyOf);

  it("none before the log's banner; every message after it has the URL in awrl and the text", async () => {
    const watch = fakeWatch();
    const n = notifyFromWatch(watch, {
      runId: 'r1',
      target: 'gpu1',
      channels: [channel(`json://127.0.0.1:${rx.port}/banner`)],
      onFailure: (f) => {
        throw new Error(JSON.stringify(f));
      },
    });
    watch.emit(alert('oom'));
    await waitFor(() => sent('/banner').length === 1, { what: 'the first alert' });
    expect(sent('/banner')[0].awrl.wandbUrl).toBeUndefined();
    expect(sent('/banner')[0].message).not.toContain('wandb');
    watch.emit({ type: 'record', record: { type: 'wandb', url: URL_, time: null }, backfilled: false });
    watch.emit(alert('nan'));
    await waitFor(() => sent('/banner').length === 2, { what: 'the second alert' });
    const second = sent('/banner')[1];
    expect(second.awrl).toMatchObject({ event: 'alert', alertId: 'nan', wandbUrl: URL_ });
    expect(second.message.split('\n').at(-1)).toBe(`wandb ${URL_}`);
    expect(await n.finish(5000)).toBe(true);
  });

  it('the URL given before the log says it; an offline banner (no URL) keeps it', async () => {
    const watch = fakeWatch();
    const n = notifyFromWatch(watch, {
      runId: 'r2',
      target: 'gpu1',
      wandbUrl: URL_,
      channels: [channel(`json://127.0.0.1:${rx.port}/given`)],
      onFailure: (f) => {
        throw new Error(JSON.stringify(f));
      },
    });
    watch.emit({ type: 'record', record: { type: 'wandb', url: null, offline: true, time: null }, backfilled: false });
    watch.emit(alert('oom'));
    await waitFor(() => sent('/given').length === 1, { what: 'the alert' });
    expect(sent('/given')[0].awrl.wandbUrl).toBe(URL_);
    expect(await n.finish(5000)).toBe(true);
  });
});
