// The cockpit attaching to a run that is already hung: the simulated trainer (real launch path,
// instant pace) hangs for good in step 4's rollout wait. Opened while the hang is seconds old, the
// run shows no alert. With its log's mtime set 3 h back (the hang began at 3 a.m., it is now
// morning), the first view that holds the records shows the stall, saying the log has been silent
// for 3 h, with the cockpit's clock frozen (no time passes after attaching) and two hours ahead of
// the target's (the silence is measured on the target's clock alone), whether the log is read by
// the follower or backfilled through the target-side filter. Its history entry is dated where the
// threshold was crossed on the log's clock.
import { appendFileSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForFrame } from './helpers.js';
import { isHangAlert, naiveMs, RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { runsRoot } from '../../src/runs/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import type { RunView } from '../../src/session/types.js';
import { launchSim, watchSimRun, withSimEnv, type SimRun } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

const H = 3600_000;

describe('the cockpit attaching to a run that is already hung', () => {
  let sim: SimRun;
  let logPath: string;
  const feeds: RunFeed[] = [];
  const opened = new Map<RunView, RunFeed>();

  beforeAll(async () => {
    sim = await withSimEnv({ AWRL_SIM_SPEED: 'instant', AWRL_SIM_FAULT: 'stall:rollout_wait@4' }, () =>
      launchSim(['++trial_name=hung-attach']),
    );
    await waitFor(
      () => {
        const s = JSON.parse(readFileSync(join(sim.dir, 'state', 'state.json'), 'utf8')) as {
          phase?: string;
          step?: number;
        };
        return s.phase === 'rollout_wait' && s.step === 4;
      },
      { timeoutMs: 60_000, what: 'the simulated trainer to hang in rollout_wait at step 4' },
    );
    const runDir = `${runsRoot(sim.target)}/${sim.runId}`;
    logPath = join(runDir, 'stdout.log');
    // The hang's record is written: the log ends with step 4's rollout wait.
    await waitFor(
      () => readdirSync(runDir).includes('stdout.log') && readFileSync(logPath, 'latin1').includes('Train step 3/'),
      { what: 'step 3 in the log' },
    );
  }, 90_000);

  afterAll(async () => {
    for (const f of feeds) f.close();
    await sim?.stop();
  });

  /** Opens the run as the cockpit does, at a frozen clock 2 h ahead of the target's; resolves with
   *  the first frame (taken as the UI takes them: a frame after a change) in which the whole log has
   *  been read. */
  function open(backfillThresholdBytes?: number, path = logPath): Promise<RunView> {
    const now = Date.now() + 2 * H;
    const size = statSync(path).size;
    return new Promise((resolve) => {
      let done = false;
      let frame: NodeJS.Timeout | null = null;
      const feed: RunFeed = new RunFeed({
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
        logPath: path,
        statePollMs: 60_000,
        ...(backfillThresholdBytes !== undefined ? { backfillThresholdBytes } : {}),
        clock: () => now,
        onChange: () => {
          frame ??= setTimeout(() => {
            frame = null;
            const v = feed.getView();
            if (done || feed.trainerLinesOffset < size) return;
            done = true;
            opened.set(v, feed);
            resolve(v);
          }, 20);
        },
      });
      feeds.push(feed);
      feed.start();
    });
  }

  it('a hang seconds old: no alert', async () => {
    const v = await open();
    expect(v.summary.step).toBe(3);
    expect(v.alerts.filter(isHangAlert)).toEqual([]);
  }, 30_000);

  it('silent for 3 h, read by the follower: the first view shows the stall, its silence, and its history entry where it crossed', async () => {
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(logPath, mtime, mtime);
    const first = await open();
    // The clock-driven rules look once the run's state has answered (a replay never depends on timing).
    const feed = opened.get(first)!;
    let v = first;
    await waitFor(() => (v = feed.getView()).alerts.some(isHangAlert), { timeoutMs: 10_000, what: 'the stall' });
    expect(v.summary.step).toBe(3);
    const hangs = v.alerts.filter(isHangAlert);
    expect(hangs.map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
    expect(hangs[0].detail).toMatch(/the log has been silent for 3 h$/);
    // One history entry, from the second the rules first call it a hang on the log's clock
    // (scanned second by second over the same records), not from when we attached.
    const probe = new RunAlerts(new MetricsStore());
    const events = parseLogBytes(readFileSync(logPath));
    for (const e of events) probe.ingest(e, 0);
    const last = naiveMs(events.findLast((e) => 'time' in e && e.time)!.time as string)!;
    let crossing = last;
    while (!probe.health.evaluate({ now: crossing, utcOffsetMinutes: 0 }).some(isHangAlert)) crossing += 1000;
    expect(crossing - last).toBeLessThan(H);
    const entries = v.alertHistory!.filter((e) => isHangAlert(e.alert));
    expect(entries).toHaveLength(1);
    expect(
      Math.abs(entries[0].firstSeenAt - Date.parse(new Date(crossing).toISOString().slice(0, 23))),
    ).toBeLessThanOrEqual(1000);
  }, 30_000);

  it('silent for 3 h, backfilled through the target-side filter: the same at the first view', async () => {
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(logPath, mtime, mtime);
    const v = await open(1);
    expect(v.summary.step).toBe(3);
    expect(v.log.some((l) => l.text.startsWith('history:'))).toBe(true);
    const hangs = v.alerts.filter(isHangAlert);
    expect(hangs.map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
    expect(hangs[0].detail).toMatch(/the log has been silent for 3 h$/);
  }, 30_000);

  it('what was written before a hang, delivered late (a reconnect after the laptop slept): the stall shows once it is read', async () => {
    // The cockpit reads steps 1-2 as they are written; the rest (step 3, the hang's records) comes
    // in one burst, written 3 h ago.
    const whole = readFileSync(logPath);
    const cut = whole.lastIndexOf(0x0a, whole.indexOf('Train step 3/')) + 1;
    const late = join(sim.dir, 'late.log');
    writeFileSync(late, whole.subarray(0, cut));
    const first = await open(undefined, late);
    const feed = opened.get(first)!;
    expect(first.summary.step).toBe(2);
    expect(first.alerts.filter(isHangAlert)).toEqual([]);
    appendFileSync(late, whole.subarray(cut));
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(late, mtime, mtime);
    await waitFor(() => feed.getView().summary.step === 3, { what: 'step 3 read' });
    const v = await waitFor(
      () => {
        const x = feed.getView();
        return x.alerts.some(isHangAlert) ? x : null;
      },
      { timeoutMs: 15_000, what: 'the stall after the late burst' },
    );
    expect(v.alerts.filter(isHangAlert).map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
    expect(v.alerts.find(isHangAlert)!.detail).toMatch(/the log has been silent for 3 h$/);
  }, 30_000);

  it('the dashboard, opened on the run 3 h into its hang with a frozen clock, shows the stall on the Alerts panel', async () => {
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(logPath, mtime, mtime);
    const now = Date.now() + 2 * H;
    const w = await watchSimRun({ sim, runsPollMs: 60_000, statePollMs: 60_000, clock: () => now, columns: 140 });
    try {
      const f = await waitForFrame(
        w.r,
        (x) => x.includes('Stalled waiting for the rollout batch'),
        'the stall on the Alerts panel',
        20_000,
      );
      expect(f.split('Stalled waiting for the rollout batch').length - 1).toBe(1);
    } finally {
      await w.close();
    }
  }, 30_000);
});
