// Backfill through the target-side filter: the history the panels need, every step exactly once,
// for a fraction of the log's bytes; then following continues at the seam without loss.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogBytes, type StepEvent } from '../../src/trainer-log/index.js';
import { backfill, BACKFILL_KEYS } from '../../src/session/backfill.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { waitFor } from '../harness/wait.js';
import { launchSim, type SimRun } from './sim-run.js';

describe('backfill', () => {
  let sim: SimRun;
  let log: string;

  beforeAll(async () => {
    process.env.AWRL_SIM_SPEED = 'instant';
    sim = await launchSim();
    log = join(sim.dir, '.awrl/runs', sim.runId, 'stdout.log');
    await waitFor(() => readFileSync(log, 'utf8').includes('Training completes'), {
      timeoutMs: 90_000,
      what: 'the instant simulated run to finish',
    });
  }, 120_000);

  afterAll(async () => {
    await sim?.stop();
  });

  it('sends a fraction of the bytes and yields the same steps and panel values as the whole log', async () => {
    const size = statSync(log).size;
    const whole = parseLogBytes(readFileSync(log)).filter((e): e is StepEvent => e.type === 'step');
    const b = await backfill(sim.transport, log, size);
    const steps = [...b.events, ...b.reader.end().events].filter((e): e is StepEvent => e.type === 'step');
    expect(b.offset).toBe(size);
    expect(steps.map((s) => s.globalStep)).toEqual(whole.map((s) => s.globalStep));
    for (let i = 0; i < whole.length; i++) {
      for (const k of BACKFILL_KEYS) if (k in whole[i].stats) expect(steps[i].stats[k]).toEqual(whole[i].stats[k]);
    }
    expect(b.sentBytes).toBeLessThan(size / 10);
    console.log(`backfill: ${size} bytes of log, ${b.sentBytes} sent, ${whole.length} steps`);
  });

  it('a cut inside a record continues with the same reader: no step lost or doubled at the seam', async () => {
    const text = readFileSync(log);
    // Somewhere in the middle of a stats table.
    const mid = text.indexOf('│', Math.floor(text.length / 2)) + 10;
    const b = await backfill(sim.transport, log, mid);
    expect(b.offset).toBeLessThanOrEqual(mid);
    expect(text[b.offset - 1]).toBe(0x0a);
    const rest = [...b.reader.push(text.subarray(b.offset)).events, ...b.reader.end().events];
    const steps = [...b.events, ...rest].filter((e): e is StepEvent => e.type === 'step').map((s) => s.globalStep);
    const whole = parseLogBytes(text)
      .filter((e): e is StepEvent => e.type === 'step')
      .map((s) => s.globalStep);
    expect(steps).toEqual(whole);
  });

  it('a RunFeed attaching to the long log backfills, then follows', async () => {
    let changes = 0;
    const feed = new RunFeed({
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
      backfillThresholdBytes: 1024,
      statePollMs: 60_000,
      onChange: () => changes++,
    });
    feed.start();
    try {
      const whole = parseLogBytes(readFileSync(log)).filter((e): e is StepEvent => e.type === 'step');
      await waitFor(() => feed.store.lastStepEvent?.globalStep === whole.at(-1)!.globalStep, {
        timeoutMs: 20_000,
        what: 'the last step',
      });
      expect(feed.store.latest('rollout/reward')).toEqual(whole.at(-1)!.stats['rollout/reward']);
      // The records are handed on as they are read: the figures come once the filter has ended.
      await waitFor(() => feed.getView().log.some((l) => l.text.startsWith('history:')), {
        timeoutMs: 20_000,
        what: 'the history note',
      });
      expect(changes).toBeGreaterThan(0);
    } finally {
      feed.close();
    }
  });
});
