/** @jsxRuntime classic */
// An ended run is not polled: once it has failed and its log is read to the end, the cockpit stops
// following the log, polls its state and GPUs slowly (one GPU round at once, then one every
// endedStatePollMs), and says so in the header; resumed, everything starts again. A real simulated run, the real
// local transport and the real GPU poller (counted through thin wrappers).
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeRun, type Target } from '../../src/runs/index.js';
import type { FollowHandle, Transport } from '../../src/remote/transport.js';
import { App } from '../../src/ui/app.js';
import { headerLines } from '../../src/ui/panels/header.js';
import { lineText } from '../../src/ui/lines.js';
import {
  createLiveSession,
  defaultGpuPoller,
  IDLE_RUNS_POLL_MS,
  runsPollDelay,
  type GpuPollerFactory,
  type LiveSession,
} from '../../src/session/live-session.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';
import { launchSim, withSimEnv, type SimRun } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

/** The transport, counting the follows open right now. */
function countingFollows(t: Transport, open: { n: number }): Transport {
  return new Proxy(t, {
    get(target, prop) {
      if (prop === 'follow') {
        return (path: string, from: number, onEvent: Parameters<Transport['follow']>[2]): FollowHandle => {
          const h = target.follow(path, from, onEvent);
          open.n++;
          let closed = false;
          return {
            get offset() {
              return h.offset;
            },
            close() {
              if (!closed) open.n--;
              closed = true;
              h.close();
            },
          };
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('a run that ended while watched', () => {
  let sim: SimRun;
  let session: LiveSession;
  let r: Rendered;
  const follows = { n: 0 };
  const gpu = { active: 0, rounds: 0 };

  // The real poller (the demo's fake nvidia-smi or none: a round is delivered either way), counted.
  const poller: GpuPollerFactory = (conn, scope, onSnapshots) => {
    gpu.active++;
    const stop = defaultGpuPoller(conn, scope, (s) => {
      gpu.rounds++;
      onSnapshots(s);
    });
    let stopped = false;
    return () => {
      if (!stopped) gpu.active--;
      stopped = true;
      stop();
    };
  };

  beforeAll(async () => {
    sim = await withSimEnv({ AWRL_SIM_SPEED: '400', AWRL_SIM_FAULT: 'oom@3' }, () =>
      launchSim(['++trial_name=qa-ended-polling']),
    );
    const transport = countingFollows(sim.transport, follows);
    session = createLiveSession({
      targets: [{ target: sim.target, transport }],
      openRunId: sim.runId,
      runsPollMs: 1000,
      statePollMs: 300,
      endedStatePollMs: 1000,
      gpuPoller: poller,
    });
    r = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 170, rows: 40 }} colors={false} frameMs={50} />,
    );
  }, 60_000);

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await sim?.stop();
  });

  it('stops following the log, polls state and GPUs slowly, says so; a resume starts them again', async () => {
    await waitFor(() => follows.n === 1 && gpu.active === 1, {
      timeoutMs: 30_000,
      what: 'the log followed and the GPUs polled',
    });
    await waitFor(() => session.getState().run?.summary.state === 'failed', {
      timeoutMs: 90_000,
      what: 'the run to fail',
    });
    const view = await waitFor(() => session.getState().run?.pollingStopped, {
      timeoutMs: 30_000,
      what: 'polling to stop',
    });
    expect(view.statePollS).toBe(1);
    // Everything the trainer wrote was read first: the OOM is in the alerts.
    expect(session.getState().run!.alerts.some((a) => a.severity === 'error')).toBe(true);
    expect(follows.n).toBe(0);
    const roundsAtEnd = gpu.rounds;
    // One GPU round at once, then a round now and then: each poller stopped after its round.
    await waitFor(() => gpu.rounds >= roundsAtEnd + 2 && gpu.active === 0, {
      timeoutMs: 20_000,
      what: 'GPU rounds, each poller stopped after it',
    });
    const f = await waitForFrame(r, (x) => x.includes('polling stopped'), 'the header saying polling stopped', 10_000);
    expect(f).toMatch(/│ failed │ polling stopped \(log read to its end; state and GPUs every 1 s\)/);

    // Opened after it ended (the common case: a run picked from the list): read to its end, then
    // the same stop.
    const later = { n: 0 };
    const second = createLiveSession({
      targets: [{ target: sim.target, transport: countingFollows(sim.transport, later) }],
      openRunId: sim.runId,
      statePollMs: 300,
      endedStatePollMs: 1000,
      gpuPoller: null,
    });
    try {
      await waitFor(() => second.getState().run?.pollingStopped, {
        timeoutMs: 30_000,
        what: 'the reopened ended run to stop polling',
      });
      expect(second.getState().run!.alerts.some((a) => a.severity === 'error')).toBe(true);
      expect(later.n).toBe(0);
    } finally {
      await second.close();
    }

    // Resumed (same run, a new attempt): following and GPU polling start again.
    await withSimEnv({ AWRL_SIM_SPEED: '400' }, () =>
      resumeRun(sim.runId, sim.transport, sim.target as Target, {
        env: { CPU_CLUSTER_TOKEN: 'sim-token', ...process.env },
      }),
    );
    await waitFor(
      () => session.getState().run?.summary.state === 'running' && !session.getState().run?.pollingStopped,
      { timeoutMs: 30_000, what: 'the resumed run to be followed again' },
    );
    await waitFor(() => follows.n === 1 && gpu.active === 1, {
      timeoutMs: 20_000,
      what: 'the follower and the GPU poller again',
    });
    await waitFor(() => (session.getState().run?.summary.step ?? 0) >= 3, {
      timeoutMs: 60_000,
      what: 'steps from the resumed run',
    });
    await waitForFrame(
      r,
      (x) => /│ running/.test(x) && !x.includes('polling stopped'),
      'the header without polling stopped',
      10_000,
    );
  }, 200_000);
});

describe('the header of an ended run', () => {
  const figures = {
    step: 2,
    totalSteps: 640,
    epoch: 1,
    epochs: 10,
    startedAt: 0,
    lastStepAt: 1000,
    etaS: null,
    stepTimeS: 10,
    episodesPerS: null,
    trainTokensPerS: null,
    rolloutWaitS: null,
    endedAt: 2000,
  };
  const id = 'intuition-model-20261129-134319-138b';
  const line = (width: number, stopped = true) =>
    lineText(
      headerLines({
        runId: id,
        target: 'local',
        connection: { state: 'ready' },
        connectionAt: 0,
        runState: 'failed',
        figures,
        now: 5000,
        width,
        ...(stopped ? { pollingStopped: { statePollS: 60 } } : {}),
      })[0],
    );

  it('says polling stopped, in full where the run id still fits whole, short otherwise, never wider', () => {
    expect(line(200)).toBe(
      `${id} on local │ connected │ failed │ polling stopped (log read to its end; state and GPUs every 60 s)`,
    );
    expect(line(120)).toBe(`${id} on local │ connected │ failed │ polling stopped`);
    const narrow = line(60);
    expect(narrow).toMatch(/│ failed │ polling stopped$/);
    expect(narrow.length).toBeLessThanOrEqual(60);
    expect(line(120, false)).not.toContain('polling');
  });
});

describe('the runs list once every run has ended', () => {
  it('is polled slowly only when every run on every target has ended', () => {
    const runs = (...states: string[]) => states.map((state) => ({ state })) as { state: never }[];
    const fast = { runsPollMs: 5000 };
    expect(
      runsPollDelay(
        new Map([
          ['a', runs('failed', 'finished')],
          ['b', runs('stopped')],
        ]),
        2,
        fast,
      ),
    ).toBe(IDLE_RUNS_POLL_MS);
    expect(runsPollDelay(new Map([['a', runs('failed', 'running')]]), 1, fast)).toBe(5000);
    expect(runsPollDelay(new Map([['a', runs('failed', 'unknown')]]), 1, fast)).toBe(5000);
    expect(runsPollDelay(new Map([['a', runs('timeout', 'pending')]]), 1, fast)).toBe(5000);
    // A target not listed yet, or no run at all: one may be on its way.
    expect(runsPollDelay(new Map([['a', runs('failed')]]), 2, fast)).toBe(5000);
    expect(runsPollDelay(new Map([['a', runs()]]), 1, fast)).toBe(5000);
  });
});
