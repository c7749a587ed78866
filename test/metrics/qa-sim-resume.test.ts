// End to end with the project's simulator (AReaL-format logs from src/sim): a run that crashes after
// step 6 with its last recover checkpoint at step 4, and resumes (steps 5 and 6 are logged again).
// What a researcher reads off the cockpit must not carry the crash: step times, mean, ETA, stall.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogBytes, isoTimeToMs, type StepEvent } from '../../src/trainer-log/index.js';
import { MetricsStore, STEP_TIME_KEY, deriveFigures, evaluateAlerts, median } from '../../src/metrics/index.js';
import { CONFIG_LOCAL, simWorkspace, type SimWorkspace } from '../sim/helpers.js';

let ws: SimWorkspace;
beforeAll(async () => {
  ws = simWorkspace(CONFIG_LOCAL, ['recover.freq_steps=4', 'recover.freq_secs=null', 'total_train_epochs=1'], {
    AWRL_SIM_DATASET_SIZE: '1280',
  });
  const first = await ws.run([], { AWRL_SIM_FAULT: 'oom@7' });
  expect(first, ws.stderr).not.toBe(0);
  const second = await ws.run([], { AWRL_SIM_FAULT: 'oom@7' });
  expect(second, ws.stderr).toBe(0);
}, 120_000);
afterAll(() => ws?.cleanup());

describe('resume with repeated steps, on simulator logs', () => {
  for (const file of ['main.log', 'merged.log']) {
    it(`${file}: no step time spans the crash; repeated steps replace; ETA and stall as before the crash`, () => {
      const events = parseLogBytes(ws.read(file));
      const steps = events.filter((e): e is StepEvent => e.type === 'step');
      const order = steps.map((s) => s.globalStep);
      // The run logged 1..6, crashed in 7, resumed from the step-4 checkpoint: 5 and 6 again.
      expect(order.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 5, 6]);
      const store = new MetricsStore();
      for (const e of events) store.ingest(e);
      const times = store.series(STEP_TIME_KEY);
      // Ground truth: gaps between consecutive records of the same process (no restart between).
      const restartAt = events.findIndex((e) => e.type === 'resume');
      expect(restartAt).toBeGreaterThan(0);
      const truth = new Map<number, number>();
      let prev: StepEvent | null = null;
      for (const e of events) {
        if (e.type === 'resume' || e.type === 'start') prev = null;
        if (e.type !== 'step') continue;
        if (prev && e.globalStep === prev.globalStep + 1)
          truth.set(e.globalStep, (isoTimeToMs(e.time) - isoTimeToMs(prev.time)) / 1000);
        prev = e;
      }
      for (let i = 0; i < times.steps.length; i++)
        expect(times.values[i], `step ${times.steps[i]}`).toBeCloseTo(truth.get(times.steps[i])!, 6);
      const med = median(times.values.filter((v): v is number => v !== null))!;
      expect(Math.max(...(times.values as number[]))).toBeLessThan(3 * med);
      // Repeated steps: the later values stand.
      const later6 = steps.filter((s) => s.globalStep === 6).at(-1)!;
      expect(store.series('rollout/reward').values[5]).toBe(later6.stats['rollout/reward']);
      const f = deriveFigures(store, { consumerBatchSize: 128 });
      const last = steps.at(-1)!;
      expect(f.globalStep).toBe(last.globalStep);
      expect(f.etaS).toBe(0);
      // One step time after the restart record the run is not stalled; four are.
      const resume = events[restartAt];
      const partial = new MetricsStore();
      for (const e of events.slice(0, restartAt + 1)) partial.ingest(e);
      // (The simulator's restarted clock reads earlier than its crashed run's last step: the wait is
      // counted from the restart record all the same.)
      const stallAt = (s: number) =>
        evaluateAlerts(partial, [], { now: isoTimeToMs(resume.time!) + s * 1000 })
          .map((a) => a.id)
          .includes('stall');
      expect(stallAt(med)).toBe(false);
      expect(stallAt(4 * med)).toBe(true);
    });
  }
});
