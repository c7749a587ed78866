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
