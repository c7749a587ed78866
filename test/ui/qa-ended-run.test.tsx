// QA: a run that dies (the simulator's CUDA OOM: a traceback is the last thing the trainer
// writes, then it exits 1), watched live in the cockpit. Once the run is `failed`, the error must
// reach the event log and the alerts (nothing will ever follow the traceback to close its record),
// no "no new step for a while" stall alert may advise hunting a hang in a run that has ended, and
// the header must not count an ETA down nor the elapsed time up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForFrame } from './helpers.js';
import { watchSimRun, type WatchedSim } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

describe('a run that failed while watched', () => {
  let w: WatchedSim;
  let now = Date.now();

  beforeAll(async () => {
    w = await watchSimRun({
      env: { AWRL_SIM_SPEED: '400', AWRL_SIM_FAULT: 'oom@4' },
      overrides: ['++trial_name=qa-oom'],
      runsPollMs: 500,
      statePollMs: 300,
      clock: () => now,
    });
  }, 60_000);

  afterAll(async () => {
    await w?.close();
  });

  it('shows the error in the event log and the alerts, no stall alert, no running ETA', async () => {
    const { session, r } = w;
    await waitFor(() => session.getState().run?.summary.state === 'failed', {
      timeoutMs: 90_000,
      what: 'the run to fail',
    });
    // Long after the end: a live run would have stalled many times over.
    now += 10 * 60_000;
    const view = await waitFor(
      () => {
        const v = session.getState().run;
        return v && v.log.some((l) => l.level === 'error') ? v : null;
      },
      { timeoutMs: 20_000, what: 'the OOM error in the event log' },
    );
    expect(view.log.find((l) => l.level === 'error')!.text).toMatch(/Training step failed|OutOfMemory|CUDA/);
    expect(view.alerts.some((a) => a.severity === 'error')).toBe(true);
    expect(view.alerts.map((a) => a.id).filter((id) => id === 'stall' || id.startsWith('health/stall'))).toEqual([]);
    r.stdin.write('L');
    const f = await waitForFrame(
      r,
      (x) => /│ failed/.test(x) && x.includes('warnings+errors'),
      'the failed dashboard in the event view',
      15_000,
    );
    expect(f).toMatch(/ETA —/);
    expect(f).not.toMatch(/elapsed 1\d min/);
    expect(f).not.toContain('No new step for a while');
  }, 150_000);
});
