// How a log that cannot be followed is said in the cockpit's header and status line at any width:
// the error is never cut (the path is, in its middle), and nothing is wider than the terminal.
import { describe, expect, it } from 'vitest';
import { followProblemStatus, headerLines } from '../../src/ui/panels/header.js';
import type { Line } from '../../src/ui/lines.js';
import type { DashboardFigures } from '../../src/session/types.js';

const path = '/scratch/team/awrl/runs/webgym-grpo-8x8-nokl-20261129-101500-a1b2/stdout.log';
const problem = {
  path,
  error: `${path}: Permission denied`,
  advice: `check its permissions for the ssh user on login-7 (ls -l ${path})`,
  text: `cannot follow ${path} on login-7: Permission denied; check its permissions for the ssh user on login-7 (ls -l ${path}) (still retrying)`,
};
const text = (l: Line): string => (typeof l === 'string' ? l : l.map((s) => s.t).join(''));
const figures: DashboardFigures = {
  step: null,
  totalSteps: null,
  epoch: null,
  epochs: null,
  startedAt: null,
  lastStepAt: null,
  etaS: null,
  stepTimeS: null,
  episodesPerS: null,
  trainTokensPerS: null,
  rolloutWaitS: null,
};

describe('followProblemStatus', () => {
  it('is the whole text where it fits', () => {
    expect(followProblemStatus(problem, 400)).toBe(problem.text);
  });

  it('drops the target and the retry remark before the advice', () => {
    const shorter = `cannot follow ${path}: Permission denied; ${problem.advice}`;
    expect(followProblemStatus(problem, shorter.length)).toBe(shorter);
    expect(followProblemStatus(problem, shorter.length - 1)).toBe(
      `cannot follow ${path}: Permission denied (what to do: log pane)`,
    );
  });

  it.each([
    [120, ' (what to do: log pane)'],
    [80, ' (what to do: log pane)'],
    [60, ' (see log pane)'],
    [48, ''],
  ])('at %i columns keeps the error whole, cuts the path in its middle, fits', (width, pointer) => {
    const s = followProblemStatus(problem, width);
    expect(s.length).toBeLessThanOrEqual(width);
    expect(s.endsWith(`: Permission denied${pointer}`)).toBe(true);
    expect(s).toMatch(/^cannot follow \/sc.*….*\.log: /);
  });

  it('narrower still: the error, cut only now', () => {
    expect(followProblemStatus(problem, 30)).toBe('cannot follow the log: Permis…');
  });
});

describe('header with a follow problem', () => {
  const base = {
    runId: 'webgym-grpo-8x8-nokl-20261129-101500-a1b2',
    target: 'login-7',
    connection: { state: 'ready' } as const,
    runState: 'running' as const,
    figures,
    connectionAt: 0,
    now: 0,
  };

  it('says the log is not followed next to the connection, shorter where narrow, never wider than the screen', () => {
    expect(text(headerLines({ ...base, followProblem: true, width: 160 })[0]!)).toContain(
      'login-7 │ connected, cannot follow the log │ running',
    );
    const narrow = text(headerLines({ ...base, followProblem: true, width: 60 })[0]!);
    expect(narrow).toContain('│ log not followed │');
    expect(narrow.length).toBeLessThanOrEqual(60);
    expect(text(headerLines({ ...base, width: 160 })[0]!)).toContain('│ connected │');
  });

  it('a reconnecting transport is said as such (the follow problem waits for the connection)', () => {
    const h = text(
      headerLines({
        ...base,
        connection: { state: 'reconnecting', attempt: 2, nextInMs: 3000, lastError: 'x' },
        followProblem: true,
        width: 160,
      })[0]!,
    );
    expect(h).toContain('reconnecting in 3 s');
    expect(h).not.toContain('follow');
  });
});
