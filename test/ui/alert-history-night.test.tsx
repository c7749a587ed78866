/** @jsxRuntime classic */
// The user who attaches in the morning: a run (the simulator, through the real launch path) had
// reward 0 at steps 3-5 and then crashed with an OOM at step 8, all before the cockpit opened. The
// alert history (h) shows the zero-reward stretch as fired/cleared at the LOG's times and steps, and
// the crash active since the error record's time; the backfill through the target-side filter gives
// the same history as reading the whole log. (The error clearing after a resume: test/health.)
import React from 'react';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { parseLogBytes, type StepEvent, type TrainerEvent } from '../../src/trainer-log/index.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { localTimeMs } from '../../src/session/event-log-line.js';
import { stepSpan, timeSpan } from '../../src/ui/screens/alert-history.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';
import { launchSim, withSimEnv, type SimRun } from './sim-run.js';
import { pidAlive, waitFor } from '../harness/wait.js';

describe('alert history of a night the cockpit did not watch', () => {
  let sim: SimRun;
  let log: string;
  let events: TrainerEvent[];

  beforeAll(async () => {
    sim = await withSimEnv({ AWRL_SIM_SPEED: 'instant', AWRL_SIM_FAULT: 'zero-reward@3-5,oom@8' }, () =>
      launchSim(['++trial_name=night']),
    );
    log = join(sim.dir, '.awrl/runs', sim.runId, 'stdout.log');
    // The OOM ends the trainer: wait for its process to be gone, so the log is complete.
    const pid = await waitFor(
      () => {
        try {
          return Number(readFileSync(join(sim.dir, '.awrl/runs', sim.runId, 'job.pid'), 'utf8').trim()) || null;
        } catch {
          return null;
        }
      },
      { timeoutMs: 30_000, what: 'the job pid' },
    );
    await waitFor(() => !pidAlive(pid), { timeoutMs: 90_000, what: 'the simulated trainer to crash' });
    events = parseLogBytes(readFileSync(log));
  }, 120_000);

  afterAll(async () => {
    await sim?.stop();
  });

  function stepTime(events: TrainerEvent[], g: number, nth = 0): number {
    const s = events.filter((e): e is StepEvent => e.type === 'step' && e.globalStep === g)[nth];
    return localTimeMs(s.time)!;
  }

  it('h lists the zero-reward stretch and the crash with the log times and steps', async () => {
    expect(events.some((e) => e.type === 'error')).toBe(true);
    const session: LiveSession = createLiveSession({
      targets: [{ target: sim.target, transport: sim.transport }],
      openRunId: sim.runId,
      runsPollMs: 1000,
      statePollMs: 500,
      gpuPoller: null,
    });
    const r: Rendered = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 120, rows: 40 }} colors={false} frameMs={50} />,
    );
    try {
      await waitFor(() => session.getState().run?.alertHistory?.some((e) => e.key === 'reward-zero'), {
        timeoutMs: 30_000,
        what: 'the history from the log',
      }).catch((err) => {
        const st = session.getState();
        console.log(
          JSON.stringify({
            notice: st.notice,
            run: st.run && { s: st.run.summary, h: st.run.alertHistory?.map((e) => e.key), log: st.run.log.slice(-5) },
          }),
        );
        throw err;
      });
      r.stdin.write('h');
      const zero = `${timeSpan(stepTime(events, 5), stepTime(events, 6))}${stepSpan(5, 5)}, cleared`;
      const f = await waitForFrame(
        r,
        (x) => x.includes('Alert history') && x.includes('Reward is exactly 0 for 3 steps'),
        'the history list',
        15_000,
      );
      expect(f).toContain(zero);
      // The crash: active (no resume), since the error record's time (its record is closed once the
      // cockpit sees the run ended and reads its log to the end). The trainer logs it, then raises
      // it uncaught after its end record (AsyncWebRL's exit path): two error records.
      const first = events.find((e) => e.type === 'error')!;
      const crash = await waitFor(
        () => session.getState().run?.alertHistory?.find((e) => e.key.startsWith(`error@${first.time}|`)),
        { timeoutMs: 30_000, what: 'the crash in the history' },
      );
      expect(crash.active).toBe(true);
      expect(crash.firstSeenAt).toBe(localTimeMs(first.time)!);
      const errorCount = events.filter((e) => e.type === 'error').length;
      expect(errorCount).toBe(2);
      const withCrash = await waitForFrame(
        r,
        (x) => /active since \d\d-\d\d \d\d:\d\d/.test(x) && x.includes('1 active · 1 cleared'),
        'the crash, active, in the list',
        15_000,
      ); // one failure told twice: one alert
      expect(withCrash).toContain('1 active · 1 cleared');
    } finally {
      r.unmount();
      await session.close();
    }
  }, 120_000);

  it('a backfill through the target-side filter gives the same history as the whole log', async () => {
    const open = (backfillThresholdBytes: number) =>
      new RunFeed({
        transport: sim.transport,
        target: sim.target,
        summary: {
          id: sim.runId,
          target: 'local',
          state: 'running',
          step: null,
          totalSteps: null,
          reward: null,
          lastStepAt: null,
        },
        logPath: log,
        backfillThresholdBytes,
        statePollMs: 60_000,
        onChange: () => {},
      });
    const lastStep = events.filter((e): e is StepEvent => e.type === 'step').at(-1)!.globalStep;
    const histories = [];
    for (const threshold of [1024, 1 << 30]) {
      const feed = open(threshold);
      feed.start();
      try {
        await waitFor(() => feed.store.lastStepEvent?.globalStep === lastStep, {
          timeoutMs: 20_000,
          what: 'the last step',
        });
        // The history's records are handed on as they are read: it is whole once the note says so.
        if (threshold === 1024)
          await waitFor(() => feed.getView().log.some((l) => l.text.startsWith('history:')), {
            timeoutMs: 20_000,
            what: 'the history note',
          });
        histories.push(
          feed
            .getView()
            .alertHistory!.filter((e) => !e.active)
            .map((e) => [e.key, e.firstSeenAt, e.firstStep, e.lastStep, e.clearedAt]),
        );
      } finally {
        feed.close();
      }
    }
    expect(histories[0]).toEqual(histories[1]);
    expect(histories[0].map((h) => h[0])).toContain('reward-zero');
  }, 60_000);
});
