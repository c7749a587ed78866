// An alert known outside the watch (the run's sentinel gone silent) is told by RunWatch as its own:
// an `alert` output when raised, nothing again while it stands, `alert-cleared` when cleared, and
// it stands in `nodeAlerts` (the cockpit's alert list) meanwhile; through the notifier, the same
// path every alert takes, it reaches a channel (a loopback receiver), fired and cleared; and the
// sentinel's own quiet rule keeps every other event but lets this one through.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import { OutsideAlert } from '../../src/watch/outside-alerts.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { notifyFromWatch, parseChannels } from '../../src/notify/index.js';
import { sentinelQuiets, sentinelSilentAlert } from '../../src/sentinel/sentinel-alert.js';
import type { SentinelView } from '../../src/runs/sentinel-status.js';
import { startReceiver } from '../harness/http-receiver.js';
import { localTarget } from '../harness/local-run.js';
import { waitFor } from '../harness/wait.js';

const silent: SentinelView = {
  state: 'silent',
  pid: 4242,
  heartbeatAt: '2026-12-05T10:00:00.000Z',
  notify: [],
  ageS: 40,
  why: 'its process is gone',
};

describe('an outside alert through the watch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-outside-alert-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is fired once, stands in the alert list, clears, and reaches a channel both times', async () => {
    const runDir = join(dir, '.awrl', 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    const logPath = join(runDir, 'stdout.log');
    writeFileSync(logPath, '');
    const t = await openTransport('local', { followPollMs: 20 });
    const receiver = await startReceiver();
    const alert = new OutsideAlert();
    const w = createRunWatch({
      transport: t,
      target: localTarget(dir),
      runId: 'r1',
      logPath,
      whenEnded: 'stop',
      outsideAlerts: [alert],
    });
    const outs: WatchOutput[] = [];
    w.on((o) => outs.push(o));
    const { channels } = parseChannels([`json://127.0.0.1:${receiver.port}/hook`]);
    // As while a sentinel runs and sends: every event of the run is kept, but not this one.
    const n = notifyFromWatch(w, {
      runId: 'r1',
      target: 'local',
      channels,
      quiet: (e) => sentinelQuiets(true, e),
      onFailure: () => undefined,
    });
    try {
      w.start();
      const told = () => outs.filter((o) => o.type === 'alert' || o.type === 'alert-cleared');
      const a = sentinelSilentAlert(silent, 'r1')!;
      alert.set(a);
      alert.set(sentinelSilentAlert({ ...silent, ageS: 55 }, 'r1'));
      expect(told()).toEqual([{ type: 'alert', alert: a }]);
      expect(w.nodeAlerts.map((x) => x.id)).toEqual(['sentinel-silent']);

      alert.set(sentinelSilentAlert({ ...silent, state: 'running', why: undefined }, 'r1'));
      expect(told().map((o) => o.type)).toEqual(['alert', 'alert-cleared']);
      expect(w.nodeAlerts).toEqual([]);

      await waitFor(() => receiver.received.length >= 2, { what: 'the alert and its clear at the receiver' });
      const events = receiver.received.map(
        (r) => (JSON.parse(r.body) as { awrl: { event: string; alertId: string } }).awrl,
      );
      expect(events.map((e) => `${e.event} ${e.alertId}`)).toEqual([
        'alert sentinel-silent',
        'alert-cleared sentinel-silent',
      ]);
    } finally {
      n.close();
      w.close();
      await t.close();
      await receiver.stop();
    }
  });

  it('the sentinel keeps every other event from an attached watch while it sends', () => {
    const e = { event: 'alert' as const, runId: 'r', target: 't', time: '', title: '', message: '' };
    expect(sentinelQuiets(true, { ...e, alertId: 'stall' })).toBe(true);
    expect(sentinelQuiets(true, { ...e, alertId: 'sentinel-silent' })).toBe(false);
    expect(sentinelQuiets(false, { ...e, alertId: 'stall' })).toBe(false);
    expect(sentinelSilentAlert({ ...silent, state: 'stopped' }, 'r')).toBeNull();
  });
});
