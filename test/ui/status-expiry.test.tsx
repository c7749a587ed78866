/** @jsxRuntime classic */
// Transient status messages go after ~8 s: the cockpit left open for days must not show "stopped
// run-a" from Tuesday. A fake clock drives it (no sleeps): the App's one clock hook notices.
import React from 'react';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { StaticSession } from '../../src/session/static-session.js';
import { STATUS_TTL_MS, StatusExpiry } from '../../src/ui/status-expiry.js';
import { renderInk, waitForFrame } from './helpers.js';

const T0 = Date.parse('2026-05-25T12:00:00');

describe('StatusExpiry', () => {
  it('a message is fresh for the TTL from when it was first shown; a new text starts again; gone ones are forgotten', () => {
    const x = new StatusExpiry(8000);
    expect([...x.note(['notice:a'], T0)]).toEqual(['notice:a']);
    expect([...x.note(['notice:a'], T0 + 7999)]).toEqual(['notice:a']);
    expect([...x.note(['notice:a'], T0 + 8000)]).toEqual([]);
    expect([...x.note(['notice:a', 'notice:b'], T0 + 9000)]).toEqual(['notice:b']);
    expect(x.fresh(['notice:b'], T0 + 16_999)).toEqual(['notice:b']);
    expect(x.fresh(['notice:b'], T0 + 17_000)).toEqual([]);
    // 'a' left the state: when it comes back it is a new message.
    x.note([], T0 + 20_000);
    expect([...x.note(['notice:a'], T0 + 21_000)]).toEqual(['notice:a']);
  });
});

describe('failures on the status line', () => {
  it('a failure stays until a key is pressed after it, then goes like the others', () => {
    const x = new StatusExpiry(8000);
    const failed = 'notice:stop failed: connection lost';
    expect([...x.note([failed, 'failed:launch failed: exit 2'], T0)]).toHaveLength(2);
    // Nobody at the keyboard overnight: still said 10 hours later.
    expect([...x.note([failed, 'failed:launch failed: exit 2'], T0 + 36e6)]).toHaveLength(2);
    x.acknowledge(T0 + 36e6);
    expect([...x.note([failed, 'failed:launch failed: exit 2'], T0 + 36e6 + 7999)]).toHaveLength(2);
    expect([...x.note([failed, 'failed:launch failed: exit 2'], T0 + 36e6 + 8000)]).toHaveLength(0);
    // An ordinary notice is not held by the keyboard.
    expect([...x.note(['notice:stopped run-a'], T0)]).toEqual(['notice:stopped run-a']);
    expect([...x.note(['notice:stopped run-a'], T0 + 8000)]).toEqual([]);
  });

  it('in the App: a stop failure is still there much later, and goes 8 s after the next key', async () => {
    let now = T0;
    const s = new StaticSession({ notice: 'stop failed: connection lost' });
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 100, rows: 30 }} colors={false} clock={() => now} />,
    );
    try {
      await waitForFrame(r, (f) => f.includes('stop failed: connection lost'), 'the failure');
      now += 3_600_000;
      s.update({});
      await waitForFrame(r, (f) => f.includes('stop failed: connection lost'), 'the failure, an hour later');
      r.stdin.write('1');
      await waitForFrame(
        r,
        (f) => f.includes('No targets yet') && f.includes('stop failed'),
        'the Runs screen, failure still said',
      );
      now += STATUS_TTL_MS + 1;
      r.stdin.write('3');
      await waitForFrame(r, (f) => f.includes('No config loaded') && !f.includes('stop failed'), 'the failure to go');
    } finally {
      r.unmount();
    }
  });
});

describe('the status line', () => {
  it('a notice and a launch result go after ~8 s on a fake clock; a new notice shows again', async () => {
    let now = T0;
    const s = new StaticSession({ notice: 'stopped run-a' });
    // The Config screen: no other clock-driven text there, only the message's expiry runs the clock.
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 100, rows: 30 }} colors={false} clock={() => now} />,
    );
    try {
      await waitForFrame(r, (f) => f.includes('stopped run-a'), 'the notice');
      now += STATUS_TTL_MS - 1000;
      // Still there 7 s later: a frame drawn now (another screen) still says it.
      r.stdin.write('1');
      const runs = await waitForFrame(r, (f) => f.includes('No targets yet'), 'the Runs screen');
      expect(runs).toContain('stopped run-a');
      r.stdin.write('3');
      await waitForFrame(r, (f) => f.includes('No config loaded'), 'the Config screen again');
      now += 2000;
      await waitForFrame(r, (f) => !f.includes('stopped run-a'), 'the notice to go');
      s.update({ notice: 'stop failed: connection lost' });
      await waitForFrame(r, (f) => f.includes('stop failed: connection lost'), 'the new notice');
      s.update({ notice: null, launch: { phase: 'launched', runId: 'run-b', message: 'launched run-b on gpu-head' } });
      await waitForFrame(r, (f) => f.includes('launched run-b on gpu-head'), 'the launch result');
      now += STATUS_TTL_MS + 1;
      await waitForFrame(r, (f) => !f.includes('launched run-b'), 'the launch result to go');
      // While a launch is in progress it stays said (it is not a transient message).
      s.update({ launch: { phase: 'launching' } });
      await waitForFrame(r, (f) => f.includes('launching…'), 'launching');
      now += 60_000;
      s.update({});
      await waitForFrame(r, (f) => f.includes('launching…'), 'launching, a minute later');
    } finally {
      r.unmount();
    }
  });
});
