// A target the cockpit could not connect to when it started, kept on the Runs screen with what
// happened and what to do (ConnectProblem), and connected again on request (`r`) when retrying can
// help. It is a Transport so that the session treats it like any other target: its state says
// `failed` until a retry connects, then every call goes to the real transport, and the session's
// usual `ready` handling lists its runs. Until then calls fail at once with the problem's words
// (nothing is listed on a target that is not connected: RunsList skips it).
import { PassThrough } from 'node:stream';
import type {
  ConnectionState,
  ExecOptions,
  ExecResult,
  ExecStream,
  FileStat,
  FollowEvent,
  FollowHandle,
  FollowOptions,
  Transport,
} from '../remote/transport.js';
import type { AnswerLogin } from '../remote/options.js';
import { connectProblem, type ConnectProblem } from './connect-advice.js';

export class RetryTransport implements Transport {
  private inner: Transport | null = null;
  private current: ConnectionState;
  private readonly listeners = new Set<(s: ConnectionState) => void>();
  private innerOff: (() => void) | null = null;
  private attempt: Promise<void> | null = null;
  private closed = false;
  private why: ConnectProblem | null;

  /** `open` connects again (without prompts: the cockpit owns the terminal by then; a second
   *  factor's questions go to its `answer` when the person asked for it); `connected` is told when
   *  a retry succeeds. */
  constructor(
    readonly target: string,
    private readonly name: string,
    first: ConnectProblem,
    private readonly open: (answer?: AnswerLogin) => Promise<Transport>,
    private readonly connected: () => void = () => undefined,
  ) {
    this.why = first;
    this.current = { state: 'failed', reason: first.what };
  }

  /** Why it is not connected (null once connected, or while a retry is under way). */
  get problem(): ConnectProblem | null {
    return this.why;
  }

  get state(): ConnectionState {
    return this.inner ? this.inner.state : this.current;
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(s: ConnectionState): void {
    this.current = s;
    for (const l of [...this.listeners]) l(s);
  }

  /** Connect again, unless nothing can make it work (a revoked key) or an attempt is under way;
   *  resolves when it is over. A failure it cannot fix by itself (a key, a login) may have been
   *  fixed outside the cockpit meanwhile: `r` is how the person says so. */
  retry(answer?: AnswerLogin): Promise<void> {
    if (this.closed || this.inner || !(this.why?.retry || this.why?.retryOnceFixed))
      return this.attempt ?? Promise.resolve();
    if (this.attempt) return this.attempt;
    this.why = null;
    this.emit({ state: 'connecting' });
    this.attempt = this.open(answer)
      .then(
        async (t) => {
          if (this.closed) return void (await t.close().catch(() => undefined));
          this.inner = t;
          this.innerOff = t.onState((s) => this.emit(s));
          this.connected();
          this.emit(t.state);
        },
        (err: unknown) => {
          if (this.closed) return;
          this.why = connectProblem(this.name, err);
          this.emit({ state: 'failed', reason: this.why.what });
        },
      )
      .finally(() => {
        this.attempt = null;
      });
    return this.attempt;
  }

  /** Not connected for want of a second factor (at start, or the connection `r` made since). */
  get needsLogin(): boolean {
    return this.inner ? this.inner.needsLogin === true : this.why?.kind === 'login-needs-person';
  }

  /** `r` on a target that needs a second factor: one attempt, its questions to `answer`. */
  loginAgain(answer: AnswerLogin): Promise<void> {
    if (this.inner) return this.inner.loginAgain?.(answer) ?? Promise.resolve();
    return this.needsLogin ? this.retry(answer) : Promise.resolve();
  }

  private notConnected(): Error {
    return new Error(`${this.name}: not connected: ${this.why?.what ?? 'connecting'}`);
  }

  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    return this.inner ? this.inner.exec(argv, opts) : Promise.reject(this.notConnected());
  }

  execStream(argv: string[], opts?: ExecOptions): ExecStream {
    if (this.inner) return this.inner.execStream(argv, opts);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.end();
    stderr.end();
    const done = Promise.reject(this.notConnected());
    done.catch(() => undefined); // the caller may never await it
    return { stdout, stderr, stdin: new PassThrough(), done, close: () => undefined };
  }

  readFile(path: string, opts?: { offset?: number; length?: number }): Promise<Buffer> {
    return this.inner ? this.inner.readFile(path, opts) : Promise.reject(this.notConnected());
  }

  stat(path: string): Promise<FileStat | null> {
    return this.inner ? this.inner.stat(path) : Promise.reject(this.notConnected());
  }

  writeFileAtomic(path: string, bytes: string | Buffer, mode?: number): Promise<void> {
    return this.inner ? this.inner.writeFileAtomic(path, bytes, mode) : Promise.reject(this.notConnected());
  }

  follow(path: string, fromOffset: number, onEvent: (e: FollowEvent) => void, opts?: FollowOptions): FollowHandle {
    // No run of an unconnected target is ever opened (none is listed): a follow here reads nothing.
    return this.inner
      ? this.inner.follow(path, fromOffset, onEvent, opts)
      : { offset: fromOffset, close: () => undefined };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.innerOff?.();
    await this.inner?.close();
    this.emit({ state: 'closed' });
  }
}

/** A target's connection problem, when it is a target the cockpit could not connect to. */
export const connectProblemOf = (t: Transport): ConnectProblem | null =>
  t instanceof RetryTransport ? t.problem : null;
