// What a follow problem says (pure: no follower). It is reported once per problem, however often
// the follower looks again (a local follower looks every 50 ms: the same line 20 times a second),
// and again only when the error changes. Its text says what is true of following now: "still
// retrying" only while a follower tries; a paused follower (the cockpit, after the run ended) and a
// follow that is over (`follow` exits at the run's end) say so, and how much was never read.
import { describe, it, expect, afterEach, vi } from 'vitest';
import {
  FollowTrouble,
  PROBLEM_AFTER_ATTEMPTS,
  PROBLEM_AFTER_MS,
  problemText,
  type FollowProblem,
} from '../../src/remote/follow-status.js';

const PATH = '/runs/a/stdout.log';

describe('FollowTrouble reports each problem once', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a follower failing 100 times with the same error: one report; a different error: a second one; working again: one clearing', () => {
    const seen: (FollowProblem | null)[] = [];
    const t = new FollowTrouble(
      'head',
      PATH,
      (p) => seen.push(p),
      () => 1000,
    );
    for (let i = 0; i < 100; i++) t.failed(`${PATH}: Permission denied`);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ attempts: PROBLEM_AFTER_ATTEMPTS, error: `${PATH}: Permission denied` });
    t.failed(`${PATH}: Input/output error`);
    t.failed(`${PATH}: Input/output error`);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.error).toBe(`${PATH}: Input/output error`);
    expect(t.problem).toBe(seen[1]);
    t.ok();
    expect(seen).toEqual([seen[0], seen[1], null]);
  });

  it('reported by the attempts, the delay that follows adds no second report', () => {
    vi.useFakeTimers();
    const seen: (FollowProblem | null)[] = [];
    const t = new FollowTrouble(
      'head',
      PATH,
      (p) => seen.push(p),
      () => Date.now(),
    );
    for (let i = 0; i < PROBLEM_AFTER_ATTEMPTS; i++) t.failed('the follower exited with code 1');
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(PROBLEM_AFTER_MS * 2);
    expect(seen).toHaveLength(1);
    t.close();
    expect(seen.at(-1)).toBeNull();
  });

  it('a single failure that lasts is still reported after the delay, once', () => {
    vi.useFakeTimers();
    const seen: (FollowProblem | null)[] = [];
    const t = new FollowTrouble(
      'local',
      PATH,
      (p) => seen.push(p),
      () => Date.now(),
    );
    t.failed(`${PATH}: Is a directory`);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(PROBLEM_AFTER_MS);
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(PROBLEM_AFTER_MS * 3);
    expect(seen).toHaveLength(1);
    t.close();
  });
});

describe('problemText says what is true of following now', () => {
  const p = {
    target: 'login-7',
    path: PATH,
    error: `${PATH}: Permission denied`,
    advice: `check its permissions for the ssh user on login-7 (ls -l ${PATH})`,
  };
  const head = `cannot follow ${PATH} on login-7: Permission denied; check its permissions for the ssh user on login-7 (ls -l ${PATH})`;

  it('retrying: the text a live follower reports (FollowProblem.text)', () => {
    expect(problemText(p, { kind: 'retrying' })).toBe(`${head} (still retrying)`);
    const seen: FollowProblem[] = [];
    const t = new FollowTrouble('login-7', PATH, (x) => x && seen.push(x));
    t.failed(p.error, true);
    expect(seen[0].text).toBe(problemText(p, { kind: 'retrying' }));
    t.close();
  });

  it('paused (the run ended, the cockpit stopped following): not retrying, and when it would', () => {
    const text = problemText(p, { kind: 'paused' });
    expect(text).toBe(`${head} (not retrying: the run has ended; following starts again if it is resumed)`);
    expect(text).not.toMatch(/still retrying/);
  });

  it("gave up (follow exits at the run's end): how much of the log was never read, or that all of it was", () => {
    expect(problemText(p, { kind: 'gave-up', unreadBytes: 4096 })).toBe(
      `${head} (gave up: the run has ended with 4096 bytes of its log never read)`,
    );
    expect(problemText(p, { kind: 'gave-up', unreadBytes: 0 })).toBe(
      `${head} (stopped: the run has ended and its whole log was read)`,
    );
    expect(problemText(p, { kind: 'gave-up', unreadBytes: null })).toBe(
      `${head} (gave up: the run has ended; the rest of its log was not read)`,
    );
  });
});
