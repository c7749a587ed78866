// "last step N ago" on the dashboard header: it ages with the clock, also once the run has ended;
// a last step whose time is ahead of this clock (a simulator's time, a head in another time zone)
// cannot be aged, so the time itself is shown, never a "0 s ago" that stays forever.
import { describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/lines.js';
import { headerLines, type HeaderProps } from '../../src/ui/panels/header.js';

const T0 = Date.parse('2026-11-29T19:56:43');
const figures = {
  step: 640,
  totalSteps: 640,
  epoch: 10,
  epochs: 10,
  startedAt: T0,
  lastStepAt: T0,
  etaS: null,
  stepTimeS: 4.5,
  episodesPerS: null,
  trainTokensPerS: null,
  rolloutWaitS: null,
  endedAt: T0,
};
const props = (lastStepAt: number, now: number): HeaderProps => ({
  runId: 'r-1',
  target: 'local',
  connection: { state: 'ready' },
  runState: 'finished',
  figures: { ...figures, lastStepAt, endedAt: lastStepAt },
  connectionAt: 0,
  now,
  width: 160,
  pollingStopped: { statePollS: 60 },
});
const second = (p: HeaderProps) => lineText(headerLines(p)[1]);

describe('header: age of the last step of an ended run', () => {
  it('ages with the clock', () => {
    expect(second(props(T0, T0))).toContain('last step 0 s ago');
    expect(second(props(T0, T0 + 70_000))).toContain('last step 1 min ago');
    expect(second(props(T0, T0 + 2 * 3600_000))).toContain('last step 2 h 00 min ago');
  });

  it('shows the time itself when the step is ahead of the clock, never a frozen "0 s ago"', () => {
    const at = T0 + 48 * 60_000; // the simulator's instant run ends 48 min of log time ahead
    for (const now of [T0, T0 + 70_000]) {
      const text = second(props(at, now));
      expect(text).not.toContain('0 s ago');
      expect(text).toContain('last step at 20:44:43');
    }
    // Once the clock has passed it, it ages again.
    expect(second(props(at, at + 5 * 60_000))).toContain('last step 5 min ago');
  });
});

describe('runs list: the followed run before its records are read', () => {
  it('keeps the listed time of the last step rather than a `—`', async () => {
    const { withLiveRun } = await import('../../src/ui/screens/runs.js');
    const listed = {
      id: 'r-1',
      target: 'here',
      state: 'running' as const,
      step: 9,
      totalSteps: 640,
      reward: 0.1472,
      lastStepAt: T0,
    };
    const targets = [{ name: 'here', connection: { state: 'ready' as const }, runs: [listed] }];
    expect(withLiveRun(targets, { ...listed, lastStepAt: null })[0].runs[0].lastStepAt).toBe(T0);
    expect(withLiveRun(targets, { ...listed, step: 10, lastStepAt: T0 + 5000 })[0].runs[0]).toMatchObject({
      step: 10,
      lastStepAt: T0 + 5000,
    });
  });
});
