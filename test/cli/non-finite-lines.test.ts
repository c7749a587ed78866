// The headless lines that carry a stats value say nan, inf and -inf as the trainer printed them:
// the --follow progress line, the runs table, and runs --json (as the JSON strings of parse --json).
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../src/watch/follow-to-end.js';
import { formatRunsTable } from '../../src/cli/runs-command.js';
import { statJsonValue, type StepEvent } from '../../src/trainer-log/index.js';
import type { RunRecord, RunSummary } from '../../src/runs/index.js';
import { stepEvent } from '../harness/step-event.js';

const step = (stats: Record<string, number | null>): StepEvent => stepEvent(3, 9, '2026-01-01T00:00:00.000', stats);

describe('nan, inf, -inf in headless lines', () => {
  it('the progress line of --follow', () => {
    expect(progressLine(step({ 'rollout/reward': NaN, 'staleness/gap/offpolicy_avg': Infinity }), null)).toBe(
      'step 3/9  reward nan  step time -  staleness inf',
    );
    expect(progressLine(step({ 'rollout/reward': -Infinity, 'staleness/gap/offpolicy_avg': null }), null)).toBe(
      'step 3/9  reward -inf  step time -  staleness n/a',
    );
    expect(progressLine(step({ 'rollout/reward': 0.25 }), null)).toBe(
      'step 3/9  reward 0.2500  step time -  staleness -',
    );
  });

  it('the runs table and runs --json', () => {
    const run = (lastReward: number | null): RunSummary => ({
      runId: 'r1',
      record: { experiment: 'e', trial: 't', backend: 'direct' } as RunRecord,
      state: 'running',
      detail: 'pid 1',
      globalStep: 3,
      totalSteps: 9,
      lastReward,
    });
    const rewards = [NaN, Infinity, -Infinity, null, 0.5].map(
      (v) =>
        formatRunsTable([run(v)])
          .split('\n')[1]
          .split(/\s+/)[4],
    );
    expect(rewards).toEqual(['nan', 'inf', '-inf', 'n/a', '0.5000']);
    expect(JSON.stringify([NaN, Infinity, -Infinity, null, 0.5].map(statJsonValue))).toBe(
      '["nan","inf","-inf",null,0.5]',
    );
  });
});
