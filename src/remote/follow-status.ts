// The follow status both followers (local and ssh) deliver in their event stream: a follower that
// keeps failing while the connection is fine (an unreadable log, a follower that exits at once, a
// chatty login shell, a refused channel, a silent follower) says so, with what to do, instead of
// retrying silently; and says when following works again. In the stream (`{type:'problem'}`), not
// a side channel, so it reaches exactly the one consumer of that follow, in order with the bytes.

/** A followed file that cannot be followed although the connection works. */
export interface FollowProblem {
  /** The transport's target ('local', an ssh alias, user@host[:port]). */
  target: string;
  path: string;
  /** The error as the target said it (secrets scrubbed), e.g. `/x/stdout.log: Permission denied`. */
  error: string;
  /** What to do about it. */
  advice: string;
  /** Epoch ms of the first failure in this run of failures. */
  since: number;
  /** Failed follower starts (ssh) or looks at the file (local) so far. */
  attempts: number;
  /** One line for people: target, path, error, advice, and "(still retrying)": true when the
   *  follower reports it. Once following is paused or over, say problemText(problem, …) instead. */
  text: string;
}

/** Reported after this many failed attempts, or after this long failing, whichever comes first. */
export const PROBLEM_AFTER_ATTEMPTS = 3;
export const PROBLEM_AFTER_MS = 3000;

/** One follower's run of failures: reported once it persists, cleared (null) when following works. */
export class FollowTrouble {
  private since = 0;
  private attempts = 0;
  private error = '';
  private reported: FollowProblem | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly target: string,
    private readonly path: string,
    private readonly report: (problem: FollowProblem | null) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get failing(): boolean {
    return this.attempts > 0;
  }

  /** The problem reported and not cleared yet (null: none). */
  get problem(): FollowProblem | null {
    return this.reported;
  }

  /** One more failed attempt (a follower that ended at once, a look at the file that failed).
   *  `lasting`: the failure has already lasted long enough to be said at once. */
  failed(error: string, lasting = false): void {
    if (this.attempts === 0) {
      this.since = this.now();
      // A failure nobody retries soon (a follower that keeps running, reporting its problem
      // once) must still be reported when it has lasted long enough.
      this.timer = setTimeout(() => this.reported === null && this.publish(), PROBLEM_AFTER_MS);
      this.timer.unref?.();
    }
    this.attempts++;
    const changed = error !== this.error;
    this.error = error;
    // Reported once per problem: a follower looking again every poll has nothing new to say
    // (a local follower retried every 50 ms printed the same line 20 times a second); a
    // different error is a new problem.
    if (this.reported !== null) {
      if (changed) this.publish();
      return;
    }
    if (lasting || this.attempts >= PROBLEM_AFTER_ATTEMPTS || this.now() - this.since >= PROBLEM_AFTER_MS)
      this.publish();
  }

  /** Following works (bytes or the file's state arrived): clear any report. */
  ok(): void {
    if (this.attempts === 0) return;
    this.attempts = 0;
    this.error = '';
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.reported === null) return;
    this.reported = null;
    this.report(null);
  }

  /** The follower is closed: its report goes with it. */
  close(): void {
    this.ok();
  }

  private publish(): void {
    if (this.attempts === 0) return;
    const error = scrubSecrets(this.error);
    const facts = { target: this.target, path: this.path, error, advice: adviceFor(error, this.target, this.path) };
    this.reported = {
      ...facts,
      since: this.since,
      attempts: this.attempts,
      text: problemText(facts, { kind: 'retrying' }),
    };
    this.report(this.reported);
  }
}

/** Where following stands while a problem lasts: a follower is still trying; it was paused because
 *  the run ended (the cockpit: tried again if the run is resumed); or following is over (`follow`
 *  exits with the run's end) with `unreadBytes` of the log never read (null: unknown). */
export type FollowingNow = { kind: 'retrying' } | { kind: 'paused' } | { kind: 'gave-up'; unreadBytes: number | null };

/** The problem in one line for people, ending with what is true of following now (a paused or
 *  finished follower must not say "still retrying"). `FollowProblem.text` is the `retrying` form:
 *  the follower that reports a problem is still trying. */
export function problemText(p: Pick<FollowProblem, 'target' | 'path' | 'error' | 'advice'>, now: FollowingNow): string {
  // The target's error usually starts with the path: said once is enough.
  const error = p.error.startsWith(`${p.path}: `) ? p.error.slice(p.path.length + 2) : p.error;
  return `cannot follow ${p.path} on ${p.target}: ${error}; ${p.advice} (${standing(now)})`;
}

function standing(now: FollowingNow): string {
  if (now.kind === 'retrying') return 'still retrying';
  if (now.kind === 'paused') return 'not retrying: the run has ended; following starts again if it is resumed';
  if (now.unreadBytes === null) return 'gave up: the run has ended; the rest of its log was not read';
  if (now.unreadBytes === 0) return 'stopped: the run has ended and its whole log was read';
  return `gave up: the run has ended with ${now.unreadBytes} bytes of its log never read`;
}

/** What to do about a follow error, in the words of the host it happens on. */
export function adviceFor(error: string, target: string, path: string): string {
  const on = target === 'local' ? '' : ` on ${target}`;
  if (/permission denied/i.test(error))
    return target === 'local'
      ? `check its permissions for the user running awrl-tui (ls -l ${path})`
      : `check its permissions for the ssh user on ${target} (ls -l ${path})`;
  if (/is a directory/i.test(error)) return `the log path is a directory${on}, not a file: check the run's log path`;
  if (/not found|no such file/i.test(error))
    return `a command the follower needs (bash, stat, dd, cmp, md5sum) is not found${on}: check PATH for non-interactive ssh sessions`;
  if (/unexpected (line|output)/i.test(error))
    return `the remote shell printed text of its own: make the login shell's startup files quiet for non-interactive sessions`;
  if (/temporary directory/i.test(error)) return `free some space in TMPDIR, /tmp or HOME${on}`;
  if (/has not answered/i.test(error))
    return `check that a shell${on} starts promptly (ssh ${target} true) and that TMPDIR and the log's file system respond; it may also wait for a free ssh channel`;
  return `check the file and the host${on}`;
}

/** Values of secret-looking environment variables never reach a message, whatever the target printed. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [name, value] of Object.entries(process.env)) {
    if (!value || value.length < 6 || !/KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i.test(name)) continue;
    out = out.split(value).join('<redacted>');
  }
  return out;
}
