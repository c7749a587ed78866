// A failed run does not restart by itself: the advice of an OOM, an NCCL timeout or another crash
// says how to resume it (`--launch --resume`), never that it resumes (a direct run that exited 1
// does not; --auto-resume resubmits only after TIMEOUT, PREEMPTED or NODE_FAIL).
import { describe, it, expect } from 'vitest';
import { ErrorAlertTracker } from '../../src/metrics/alert-errors.js';
import type { ErrorKind } from '../../src/trainer-log/events.js';

describe('the advice of a fatal error', () => {
  it.each<ErrorKind>(['oom', 'nccl-timeout', 'other'])('%s: how to resume, not that it resumes', (kind) => {
    const t = new ErrorAlertTracker();
    t.ingest({ type: 'error', kind, message: 'Training step failed', detail: 'RuntimeError: x', time: null });
    const [a] = t.alerts();
    expect(a.advice).toContain('awrl-tui --launch --resume RUN');
    expect(a.advice).not.toMatch(/resumes automatically|the run resumes/);
  });
});
