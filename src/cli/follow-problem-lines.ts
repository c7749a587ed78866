// What `follow` says about a log it cannot follow although the host answers: the human line (on
// stderr with --json, on stdout without) and, with --json, a line on stdout a script can act on,
// next to the `alert` / `alert-cleared` lines: `follow-problem` when it starts (and once more, with
// `retrying: false`, if the run ended while it stood) and `follow-problem-cleared` when reading
// resumes. The fields are FollowProblem's: one contract for the cockpit, the CLI and scripts.
import { problemText, type FollowProblem, type FollowingNow } from '../remote/follow-status.js';

/** `follow   cannot follow PATH on T: error; advice (still retrying | gave up: …)`. */
export function followProblemLine(p: FollowProblem, now: FollowingNow): string {
  return `follow   ${problemText(p, now)}`;
}

/** `follow   reading PATH again`: said before what it reads. */
export function followReadingAgainLine(path: string): string {
  return `follow   reading ${path} again`;
}

/** `{"type":"follow-problem","target","path","error","advice","since","attempts","retrying"[,"unreadBytes"],"text"}`;
 *  `since` is our clock's ISO 8601 UTC time of the first failure. */
export function followProblemJsonLine(p: FollowProblem, now: FollowingNow): string {
  return JSON.stringify({
    type: 'follow-problem',
    target: p.target,
    path: p.path,
    error: p.error,
    advice: p.advice,
    since: new Date(p.since).toISOString(),
    attempts: p.attempts,
    retrying: now.kind === 'retrying',
    ...(now.kind === 'gave-up' ? { unreadBytes: now.unreadBytes } : {}),
    text: problemText(p, now),
  });
}

/** `{"type":"follow-problem-cleared","target","path"}`: the log is read again. */
export function followProblemClearedJsonLine(p: Pick<FollowProblem, 'target' | 'path'>): string {
  return JSON.stringify({ type: 'follow-problem-cleared', target: p.target, path: p.path });
}
