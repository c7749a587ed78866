// One failure told twice is one alert (issue #15: the trainer's real exit paths): AsyncWebRL logs
// it and then Python prints it uncaught; upstream AReaL logs `Training failed with exception` and
// the uncaught traceback follows. A different failure is an alert of its own.
import { describe, expect, it } from 'vitest';
import { ErrorAlertTracker } from '../../src/metrics/alert-errors.js';
import type { ErrorEvent } from '../../src/trainer-log/events.js';

const OOM = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB';
const tb = (exc: string) =>
  ['Traceback (most recent call last):', '  File "/opt/webgym/webgym/train.py", line 203, in main', exc].join('\n');
const err = (message: string, detail: string, time: string): ErrorEvent => ({
  type: 'error',
  kind: 'oom',
  message,
  detail,
  time,
  source: 'main',
});

describe('error alerts', () => {
  it('the logged failure and its uncaught traceback: one alert', () => {
    const t = new ErrorAlertTracker();
    t.ingest(err('Training failed with exception: CUDA out of memory', tb(OOM), '2026-12-01T10:00:00.000'));
    t.ingest(err(OOM, tb(OOM), '2026-12-01T10:00:01.000'));
    expect(t.alerts()).toHaveLength(1);
    expect(t.alerts()[0].title).toBe('oom: Training failed with exception: CUDA out of memory');
    expect(t.errorCount).toBe(2);
  });

  it('two different failures: two alerts', () => {
    const t = new ErrorAlertTracker();
    t.ingest(err(OOM, tb(OOM), '2026-12-01T10:00:00.000'));
    const other = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB';
    t.ingest(err(other, tb(other), '2026-12-01T10:00:05.000'));
    expect(t.alerts().map((a) => a.id)).toEqual(['error:0', 'error:1']);
  });

  it('the same failure after a restart is a new alert', () => {
    const t = new ErrorAlertTracker();
    t.ingest(err(OOM, tb(OOM), '2026-12-01T10:00:00.000'));
    t.ingest({ type: 'resume', resumeStep: 3, time: '2026-12-01T10:05:00.000' });
    t.ingest(err(OOM, tb(OOM), '2026-12-01T10:09:00.000'));
    expect(t.alerts()).toHaveLength(2);
  });
});

describe('identical failures are one alert with a count and first/last time', () => {
  const WF = 'RuntimeError: Workflow execution failed: Omniboxes instance refused the connection';
  const logged = (time: string): ErrorEvent => ({
    type: 'error',
    kind: 'other',
    message: 'Workflow execution failed: Omniboxes instance refused the connection',
    detail: tb(WF),
    time,
    source: 'rollout',
  });

  it('28 of them, steps in between: one alert, count 28, time of the first, lastTime of the latest', () => {
    const t = new ErrorAlertTracker();
    for (let i = 0; i < 28; i++) {
      const mm = String(i).padStart(2, '0');
      t.ingest(logged(`2026-12-01T10:${mm}:00.000`));
      t.ingest({
        type: 'step',
        epoch: 1,
        epochs: 1,
        step: i + 1,
        stepsPerEpoch: 99,
        globalStep: i + 1,
        totalSteps: 99,
        time: `2026-12-01T10:${mm}:30.000`,
        stats: {},
      });
    }
    expect(t.alerts()).toEqual([
      expect.objectContaining({
        id: 'error:0',
        count: 28,
        time: '2026-12-01T10:00:00.000',
        lastTime: '2026-12-01T10:27:00.000',
      }),
    ]);
    expect(t.errorCount).toBe(28);
    // The run steps past the latest one: the group is history.
    for (const g of [30, 31])
      t.ingest({
        type: 'step',
        epoch: 1,
        epochs: 1,
        step: g,
        stepsPerEpoch: 99,
        globalStep: g,
        totalSteps: 99,
        time: `2026-12-01T11:${g}:00.000`,
        stats: {},
      });
    expect(t.alerts()).toEqual([]);
  });

  it('one failure told twice (logged, then uncaught) counts once', () => {
    const t = new ErrorAlertTracker();
    t.ingest(err('Training failed with exception: CUDA out of memory', tb(OOM), '2026-12-01T10:00:00.000'));
    t.ingest(err(OOM, tb(OOM), '2026-12-01T10:00:01.000'));
    expect(t.alerts()[0].count).toBeUndefined();
  });
});
