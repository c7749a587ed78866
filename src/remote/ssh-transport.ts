// The ssh transport: one logical connection (possibly a ProxyJump chain) that reconnects on its
// own. State machine: connecting -> ready -> reconnecting{attempt,nextInMs,lastError} -> ready ...
// -> failed{reason} | closed. Reconnection is driven by `close` only (ssh2's `error` can be benign).
import { PassThrough } from 'node:stream';
import type { ClientChannel } from 'ssh2';
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
} from './transport.js';
import type { AnswerLogin, OpenTransportOptions } from './options.js';
import { resolveChain, type SshSettings } from './ssh-config.js';
import { connectChain, type Chain, type ConnectContext } from './ssh-connect.js';
import { ConnectFailure } from './connect-failure.js';
import { Semaphore } from './semaphore.js';
import { commandLine } from './quote.js';
import { readRemoteFile, remoteFollowOptions, statRemote, writeRemoteFileAtomic } from './remote-files.js';
import { collectExec } from './exec-collect.js';
import { followRemote } from './ssh-follow.js';
import { OpenFollows } from './open-follows.js';

const STDERR_CAP = 64 << 20; // beyond this, unread stderr is dropped rather than stalling stdout

export class SshTransport implements Transport {
  private current: ConnectionState = { state: 'connecting' };
  private readonly listeners = new Set<(s: ConnectionState) => void>();
  private conn: Chain | null = null;
  private readonly channels: Semaphore;
  private readonly ctx: ConnectContext;
  private attempt = 0;
  private closing = false;
  private backoffTimer: NodeJS.Timeout | null = null;
  private wakeBackoff: (() => void) | null = null;
  private readonly follows = new OpenFollows();
  /** Channels open on each chain: a dropped chain does not always close its channels (keepalive
   *  timeout), so the drop settles them itself. */
  private readonly openChannels = new WeakMap<Chain, Set<() => void>>();
  private heardAt: number | null = null;
  /** A reconnect met a login that needs a person: `loginAgain` may try once more (the person asked). */
  private loginNeeded = false;
  private relogging: Promise<void> | null = null;
  private readonly heard = (): void => {
    this.heardAt = Date.now();
  };

  private constructor(
    readonly target: string,
    private readonly chain: SshSettings[],
    private readonly opts: OpenTransportOptions,
  ) {
    this.channels = new Semaphore(opts.maxChannels ?? 8);
    this.ctx = { opts, passphrases: new Map(), connectedOnce: false };
  }

  /** `resolving`: the target's chain, when the caller started resolving it already. */
  static async open(
    target: string,
    opts: OpenTransportOptions,
    resolving: Promise<SshSettings[]> = resolveChain(target, opts.sshConfigFile),
  ): Promise<SshTransport> {
    const chain = await resolving;
    const t = new SshTransport(target, chain, opts);
    try {
      t.attach(await connectChain(chain, t.ctx));
      t.ctx.connectedOnce = true;
    } catch (err) {
      t.setState({ state: 'failed', reason: (err as Error).message });
      throw err instanceof Error ? err : new Error(String(err));
    }
    t.setState({ state: 'ready' });
    return t;
  }

  get state(): ConnectionState {
    return this.current;
  }

  get lastHeardAt(): number | null {
    return this.heardAt;
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setState(s: ConnectionState): void {
    this.current = s;
    for (const l of [...this.listeners]) l(s);
  }

  /** Any link of the chain closing ends the whole connection (a dead bastion kills the inner one). */
  private attach(chain: Chain): void {
    this.conn = chain;
    let lastError = '';
    for (const c of chain.all) {
      c.on('error', (err: Error) => (lastError = err.message));
      c.once('close', () => this.onDrop(chain, lastError || 'connection closed'));
    }
  }

  private onDrop(chain: Chain, why: string): void {
    if (this.conn !== chain) return; // already handled for this chain
    this.conn = null;
    for (const c of chain.all) c.end();
    for (const settle of this.openChannels.get(chain) ?? []) settle();
    if (this.closing) return;
    void this.reconnect(why);
  }

  private async reconnect(firstError: string): Promise<void> {
    const base = this.opts.reconnect?.baseMs ?? 1000;
    const cap = this.opts.reconnect?.capMs ?? 60_000;
    const maxElapsed = this.opts.reconnect?.maxElapsedMs;
    const startedAt = Date.now();
    let lastError = firstError;
    for (;;) {
      // Full jitter: uniform in [0, min(cap, base * 2^attempt)).
      const delay = Math.floor(Math.random() * Math.min(cap, base * 2 ** Math.min(this.attempt, 30)));
      this.attempt++;
      if (maxElapsed !== undefined && Date.now() - startedAt + delay > maxElapsed) {
        this.setState({
          state: 'failed',
          reason: `could not reconnect to ${this.target} within ${maxElapsed} ms: ${lastError}`,
        });
        return;
      }
      this.setState({ state: 'reconnecting', attempt: this.attempt, nextInMs: delay, lastError });
      await new Promise<void>((r) => {
        this.wakeBackoff = r;
        this.backoffTimer = setTimeout(r, delay);
      });
      this.wakeBackoff = null;
      if (this.closing) return;
      try {
        const chain = await connectChain(this.chain, this.ctx);
        if (this.closing) {
          for (const c of chain.all) c.end();
          return;
        }
        this.attach(chain);
        this.setState({ state: 'ready' });
        return;
      } catch (err) {
        lastError = (err as Error).message;
        if (err instanceof ConnectFailure && err.fatal) {
          this.loginNeeded = err.kind === 'login-needs-person';
          this.setState({ state: 'failed', reason: lastError });
          return;
        }
      }
    }
  }

  get needsLogin(): boolean {
    return this.loginNeeded;
  }

  loginAgain(answer: AnswerLogin): Promise<void> {
    if (!this.loginNeeded || this.closing) return Promise.resolve();
    return (this.relogging ??= this.loginOnce(answer).finally(() => (this.relogging = null)));
  }

  /** One attempt with a person to answer; no retry after it fails (a wrong code is not typed
   *  again behind the person's back): it is said, and `loginAgain` may be asked for again. */
  private async loginOnce(answer: AnswerLogin): Promise<void> {
    const before = this.current;
    let declined = false;
    this.ctx.personAnswer = async (q) => {
      const a = await answer(q);
      if (a === null) declined = true;
      return a;
    };
    this.loginNeeded = false;
    this.setState({ state: 'connecting' });
    try {
      const chain = await connectChain(this.chain, this.ctx);
      if (this.closing) return void chain.all.forEach((c) => c.end());
      this.attempt = 0;
      this.attach(chain);
      this.setState({ state: 'ready' });
    } catch (err) {
      if (this.closing) return;
      this.loginNeeded = true;
      // Declined: as it was before `r` (the message says what is needed); else why it failed.
      this.setState(declined ? before : { state: 'failed', reason: (err as Error).message });
    } finally {
      delete this.ctx.personAnswer;
    }
  }

  /** Resolves when connected; rejects once the transport has failed or been closed. */
  private whenReady(signal?: AbortSignal): Promise<Chain> {
    return new Promise((resolve, reject) => {
      // A caller may give up waiting for a reconnect (e.g. a poller on a timer).
      if (signal?.aborted) return reject(new Error(`${this.target}: aborted while waiting for the connection`));
      signal?.addEventListener(
        'abort',
        () => reject(new Error(`${this.target}: aborted while waiting for the connection`)),
        { once: true },
      );
      const check = (): boolean => {
        const s = this.current;
        if (s.state === 'ready' && this.conn) resolve(this.conn);
        else if (s.state === 'failed') reject(new Error(`${this.target}: ${s.reason}`));
        else if (s.state === 'closed') reject(new Error(`${this.target}: transport closed`));
        else return false;
        return true;
      };
      if (check()) return;
      const off = this.onState(() => {
        if (check()) off();
      });
    });
  }

  execStream(argv: string[], opts: ExecOptions = {}): ExecStream {
    const cmd = commandLine(argv, opts.cwd); // throws on NUL before anything is sent
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new PassThrough();
    let channel: ClientChannel | null = null;
    let userClosed = false;
    if (opts.stdin !== undefined) stdin.end(opts.stdin);

    const run = async (): Promise<{ code: number | null; signal: string | null }> => {
      const release = await this.channels.acquire();
      try {
        if (userClosed)
          throw new Error(
            `${this.target}: ${argv[0]} was ${opts.signal?.aborted ? 'aborted' : 'closed'} before it started`,
          );
        const chain = await this.whenReady(opts.signal);
        let exit: { code: number | null; signal: string | null } | null = null;
        let closedResolve: () => void = () => undefined;
        const closedP = new Promise<void>((r) => (closedResolve = r));
        // Listeners go on inside ssh2's callback, synchronously: the exit status, the data and the
        // close can all arrive in the same TCP read as the exec confirmation.
        const ch = await this.openExec(chain, cmd, (c) => {
          c.on('exit', (code: number | null, signal?: string) => {
            this.heard();
            exit = signal
              ? { code: null, signal: signal.startsWith('SIG') ? signal : `SIG${signal}` }
              : { code, signal: null };
          });
          c.once('close', () => closedResolve());
          c.pipe(stdout);
          c.on('data', this.heard);
          // Always drained: stdout and stderr share one flow-control window.
          c.stderr.on('data', (b: Buffer) => {
            this.heard();
            if (stderr.readableLength < STDERR_CAP) stderr.write(b);
          });
        });
        channel = ch;
        if (userClosed) ch.close();
        stdin.pipe(ch);
        let live = this.openChannels.get(chain);
        if (!live) this.openChannels.set(chain, (live = new Set()));
        live.add(closedResolve);
        if (this.conn !== chain) closedResolve(); // dropped while the channel was opening
        await closedP;
        live.delete(closedResolve);
        if (!exit && !userClosed) {
          stdin.unpipe();
          ch.destroy();
        }
        if (exit) {
          this.attempt = 0; // a command completed: the link works, reset the backoff
          return exit;
        }
        if (userClosed) return { code: null, signal: null };
        throw new Error(`${this.target}: connection lost while running ${argv[0]}`);
      } finally {
        release();
      }
    };
    const done = run();
    done.then(
      () => {
        stderr.end();
        if (!channel) stdout.end();
      },
      () => {
        stderr.end();
        stdout.end();
      },
    );
    const onAbort = (): void => close();
    const close = (): void => {
      userClosed = true;
      stdin.unpipe();
      channel?.close();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    return { stdout, stderr, stdin, done, close };
  }

  /** The server frees a session slot a little after we see the channel close, so a full
   *  connection can still refuse a new channel (`open failed`) right after one ended: retry briefly. */
  private async openExec(chain: Chain, cmd: string, setup: (c: ClientChannel) => void): Promise<ClientChannel> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await new Promise<ClientChannel>((resolve, reject) =>
          chain.client.exec(cmd, (err, c) => {
            if (err) return reject(err);
            setup(c);
            resolve(c);
          }),
        );
      } catch (err) {
        const msg = (err as Error).message;
        if (!/open failed/i.test(msg) || attempt >= 40 || this.conn !== chain) {
          throw new Error(`${this.target}: cannot start a command: ${msg}`);
        }
        await new Promise((r) => setTimeout(r, Math.min(25 * (attempt + 1), 250)));
      }
    }
  }

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return collectExec(this.execStream(argv, { ...opts, stdin: opts.stdin ?? '' }));
  }

  readFile(path: string, opts: { offset?: number; length?: number } = {}): Promise<Buffer> {
    return readRemoteFile(this, path, opts);
  }

  stat(path: string): Promise<FileStat | null> {
    return statRemote(this, path);
  }

  writeFileAtomic(path: string, bytes: string | Buffer, mode = 0o644): Promise<void> {
    return writeRemoteFileAtomic(this, path, bytes, mode);
  }

  follow(path: string, fromOffset: number, onEvent: (e: FollowEvent) => void, fo?: FollowOptions): FollowHandle {
    const h = followRemote(
      this,
      path,
      fromOffset,
      onEvent,
      remoteFollowOptions(this.opts, fo, () => {
        this.attempt = 0;
        this.heard();
      }),
    );
    return this.follows.track(h);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.follows.closeAll();
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.wakeBackoff?.();
    const chain = this.conn;
    this.conn = null;
    if (chain) {
      const closed = Promise.all(chain.all.map((c) => new Promise<void>((r) => c.once('close', () => r()))));
      for (const c of [...chain.all].reverse()) c.end();
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
    }
    this.setState({ state: 'closed' });
  }
}
