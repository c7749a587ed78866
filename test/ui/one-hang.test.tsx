// One hang, one alert, in the cockpit: the simulated trainer (real launch path) hangs for good in
// step 4's rollout wait. The metrics room's whole-step rule and the health room's phase stall both
// see it; the health rule owns it (it knows the phase) and the cockpit shows exactly one active
// hang alert at every minute of three hours, the Alerts panel one "Stalled" entry and no
// "No new step for a while", and the history one entry. The cockpit's clock is the test's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHangAlert } from '../../src/health/index.js';
import { waitForFrame } from './helpers.js';
import { watchSimRun, type WatchedSim } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

describe('a run that hangs while watched', () => {
  let w: WatchedSim;
  let now = Date.now();

  beforeAll(async () => {
    w = await watchSimRun({
      env: { AWRL_SIM_SPEED: '400', AWRL_SIM_FAULT: 'stall:rollout_wait@4' },
      overrides: ['++trial_name=one-hang'],
      runsPollMs: 1000,
      statePollMs: 500,
      clock: () => now,
    });
  }, 60_000);

  afterAll(async () => {
    await w?.close();
  });

  it('gives exactly one active hang alert, the phase stall, for three hours; the panel and the history agree', async () => {
    const { sim, session, r } = w;
    // The trainer is stuck in step 4's rollout wait, and the cockpit has read step 3.
    await waitFor(
      () => {
        const s = JSON.parse(readFileSync(join(sim.dir, 'state', 'state.json'), 'utf8')) as {
          phase?: string;
          step?: number;
        };
        return s.phase === 'rollout_wait' && s.step === 4;
      },
      { timeoutMs: 90_000, what: 'the simulated trainer to hang in rollout_wait at step 4' },
    );
    await waitFor(() => session.getState().run?.summary.step === 3, {
      timeoutMs: 30_000,
      what: 'step 3 in the cockpit',
    });
    const base = now;
    // The watch evaluates the rules on its own clock (a tick), not when a frame is derived: the
    // test's clock jumps, so it asks the watch to look, as its timer would.
    const tick = () => (session as unknown as { feed: { watch: { tick(): void } } }).feed.watch.tick();
    const perMinute: number[] = [];
    const ids = new Set<string>();
    for (let m = 0; m <= 180; m++) {
      now = base + m * 60_000;
      tick();
      const hangs = session.getState().run!.alerts.filter(isHangAlert);
      perMinute.push(hangs.length);
      for (const h of hangs) ids.add(h.id);
    }
    expect(Math.max(...perMinute)).toBe(1);
    expect(perMinute.at(-1)).toBe(1);
    expect([...ids]).toEqual(['health/stall/rollout_wait']);
    const run = session.getState().run!;
    expect(run.alertHistory!.filter((e) => isHangAlert(e.alert))).toHaveLength(1);
    const f = await waitForFrame(
      r,
      (x) => x.includes('Stalled waiting for the rollout batch'),
      'the stall on the Alerts panel',
      15_000,
    );
    expect(f.split('Stalled waiting for the rollout batch').length - 1).toBe(1);
    expect(f).not.toContain('No new step for a while');
  }, 150_000);
});
