// The stall alert's wall clock in the cockpit: it counts from the latest step's arrival, and a
// restart (resume/start record) starts the wait afresh: the time before it was the crash and the
// restart, which the error alerts explain, not a hang.
import { describe, expect, it } from 'vitest';
import type { RunViewContext } from '../../src/session/run-records.js';
import { recordsWithRules } from './records-with-rules.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { isHangAlert } from '../../src/health/index.js';
import { stepEvent } from '../harness/step-event.js';

const pad = (n: number) => String(n).padStart(2, '0');
const at = (sec: number) => `2026-05-25T12:${pad(Math.floor(sec / 60))}:${pad(sec % 60)}.000`;
const step = (g: number, sec: number): TrainerEvent => stepEvent(g, 100, at(sec), { 'rollout/reward': 0.5 });

const ctx: RunViewContext = {
  summary: { id: 'r', target: 't', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
  connection: { state: 'ready' },
  connectionAt: 0,
  gpus: [],
  trainerLines: { lines: [], startsMidLog: false, dropped: 0 },
  pollingStoppedS: null,
};

describe('RunRecords: the stall clock', () => {
  it('fires 3x the median step time after the last step arrived, and a restart record starts it afresh', () => {
    let wall = 1_000_000;
    const r = recordsWithRules({ clock: () => wall });
    for (let g = 1; g <= 5; g++) r.ingest(step(g, g * 60)); // 60 s steps
    const hangs = () =>
      r
        .view(ctx)
        .alerts.filter(isHangAlert)
        .map((a) => a.id);
    const stalled = () => hangs().length > 0;
    expect(stalled()).toBe(false);
    wall += 10 * 60_000;
    expect(stalled()).toBe(true);
    // The trainer crashed and came back: its resume record arrives now.
    r.ingest({ type: 'resume', resumeStep: 5, time: '2026-05-25T12:20:00.000' });
    expect(stalled()).toBe(false);
    wall += 2 * 60_000;
    expect(stalled()).toBe(false);
    wall += 2 * 60_000; // 4 min after the restart without a step: > 3 x 60 s
    // One hang, one alert: the resume guard's, which knows the attempt has not made a step.
    expect(hangs()).toEqual(['health/resume/no-progress']);
  });
});
