// The Transport through the user's own OpenSSH client: every command, stream, file transfer and
// the follower run as `ssh -T -o BatchMode=yes TARGET CMD`, which rides the ControlMaster of that
// host (ControlPath in its ssh config): one login, a second factor included, serves them all for as
// long as the master lives. It also brings what ssh2 lacks (GSSAPI, FIDO and PKCS#11 keys,
// certificates, ProxyCommand, Match exec). The first connection starts the master if none runs
// (OpenSSH asks its own questions at the terminal, when there is one); a lost master is looked for
// again with backoff, and one that needs a person to log in again is said, not retried.
import { spawn, type ChildProcess } from 'node:child_process';
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
} from './transport.js';
import type { OpenTransportOptions } from './options.js';
import { splitTarget, type SshSettings } from './ssh-config.js';
import { ConnectFailure, type ConnectFacts } from './connect-failure.js';
import { Semaphore } from './semaphore.js';
import { commandLine } from './quote.js';
import { readRemoteFile, remoteFollowOptions, statRemote, writeRemoteFileAtomic } from './remote-files.js';
import { collectExec } from './exec-collect.js';
import { followRemote } from './ssh-follow.js';
import { clientLine, isClientFailure, opensshFailure } from './openssh-failure.js';
import { runSshCommand } from './openssh-exec.js';
import { OpenFollows } from './open-follows.js';

const STDERR_TAIL = 4096;
/** A master the first login starts lives this long idle when the ssh config sets no ControlPersist. */
const DEFAULT_PERSIST = '30m';

export class OpensshTransport implements Transport {
  private current: ConnectionState = { state: 'connecting' };
  private readonly listeners = new Set<(s: ConnectionState) => void>();
  private readonly channels: Semaphore;
  private readonly children = new Set<ChildProcess>();
  private readonly follows = new OpenFollows();
  private heardAt: number | null = null;
  private closing = false;
  private attempt = 0;
  private backoff: { timer: NodeJS.Timeout; wake: () => void } | null = null;
  private readonly heard = (): void => {
    this.heardAt = Date.now();
  };

  private constructor(
    readonly target: string,
    private readonly settings: SshSettings,
    private readonly opts: OpenTransportOptions,
  ) {
    this.channels = new Semaphore(opts.maxChannels ?? 8);
  }

  static async open(target: string, opts: OpenTransportOptions, settings: SshSettings): Promise<OpensshTransport> {
    const t = new OpensshTransport(target, settings, opts);
    try {
      await t.login(false);
    } catch (err) {
      t.setState({ state: 'failed', reason: (err as Error).message });
      throw err;
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

  /** `ssh` with the ssh config, no prompts (BatchMode) unless `asking`, then `extra`, then the host. */
  private sshArgs(extra: string[], asking = false): string[] {
    const { user, host, port } = splitTarget(this.target);
    return [
      ...(this.opts.sshConfigFile ? ['-F', this.opts.sshConfigFile] : []),
      ...(asking ? [] : ['-o', 'BatchMode=yes']),
      // --accept-new-host-key and the connect deadline mean for OpenSSH what they mean for ssh2.
      ...(this.opts.acceptNewHostKey ? ['-o', 'StrictHostKeyChecking=accept-new'] : []),
      ...(this.opts.connectTimeoutMs ? ['-o', `ConnectTimeout=${Math.ceil(this.opts.connectTimeoutMs / 1000)}`] : []),
      ...(port !== undefined ? ['-p', String(port)] : []),
      ...extra,
      '--',
      user !== undefined ? `${user}@${host}` : host,
    ];
  }

  /** With a ControlPath, a command rides the master or fails at once: without one ssh would log in
   *  on its own, and every command in flight when the master died would knock on a second-factor
   *  door (ProxyCommand=false is only used when ssh cannot reach the master). */
  private masterOnly(): string[] {
    return this.settings.controlPath ? ['-o', 'ControlMaster=no', '-o', 'ProxyCommand=false'] : [];
  }

  private facts(): ConnectFacts {
    const s = this.settings;
    return { alias: s.name, user: s.user, host: s.hostname, port: s.port, sshConfigFile: this.opts.sshConfigFile };
  }

  /** Runs ssh to its exit: the code and the client's stderr. `terminal`: OpenSSH may ask there. */
  private runSsh(args: string[], terminal = false): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      // A master that ControlPersist sends to the background keeps nothing of ours open (OpenSSH
      // points its stdio at /dev/null): `exit`, not `close`, ends the login.
      const child = spawn('ssh', args, { stdio: [terminal ? 'inherit' : 'ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-STDERR_TAIL)));
      child.once('error', (err) => resolve({ code: null, stderr: `ssh: ${err.message}` }));
      child.once('exit', (code) => resolve({ code, stderr }));
    });
  }

  /** Makes sure a command can reach the target: a master that runs, else a login that starts one
   *  (ControlPath set), else a plain login. Throws a ConnectFailure. */
  private async login(reconnect: boolean): Promise<void> {
    const facts = this.facts();
    if (this.settings.controlPath) {
      const check = await this.runSsh(this.sshArgs(['-O', 'check']));
      if (check.code === 0) return;
    }
    // A person can answer OpenSSH's own questions (a code) on the first login only, at a terminal.
    const terminal = !reconnect && this.opts.answerLogin !== undefined && process.stdin.isTTY === true;
    const persist = this.settings.controlPersist === 'no' ? DEFAULT_PERSIST : this.settings.controlPersist;
    const master = this.settings.controlPath ? ['-o', 'ControlMaster=auto', '-o', `ControlPersist=${persist}`] : [];
    const r = await this.runSsh([...this.sshArgs(['-T', ...master], terminal), 'true'], terminal);
    if (r.code === 0) return;
    if (/ENOENT/.test(r.stderr))
      throw new ConnectFailure('ssh-settings', `no OpenSSH client (ssh) on this machine for ${this.target}`, facts);
    throw opensshFailure(this.target, r.stderr, { reconnect, facts });
  }

  /** The master (or the link) is gone: look for it again with full-jitter backoff. */
  private lost(why: string): void {
    if (this.closing || this.current.state !== 'ready') return;
    void this.reconnect(why);
  }

  private async reconnect(firstError: string): Promise<void> {
    const base = this.opts.reconnect?.baseMs ?? 1000;
    const cap = this.opts.reconnect?.capMs ?? 60_000;
    const maxElapsed = this.opts.reconnect?.maxElapsedMs;
    const startedAt = Date.now();
    let lastError = firstError;
    for (;;) {
      const delay = Math.floor(Math.random() * Math.min(cap, base * 2 ** Math.min(this.attempt, 30)));
      this.attempt++;
      if (maxElapsed !== undefined && Date.now() - startedAt + delay > maxElapsed) {
        const reason = `could not reconnect to ${this.target} within ${maxElapsed} ms: ${lastError}`;
        return this.setState({ state: 'failed', reason });
      }
      this.setState({ state: 'reconnecting', attempt: this.attempt, nextInMs: delay, lastError });
      await new Promise<void>((wake) => (this.backoff = { timer: setTimeout(wake, delay), wake }));
      this.backoff = null;
      if (this.closing) return;
      try {
        await this.login(true);
        if (this.closing) return;
        return this.setState({ state: 'ready' });
      } catch (err) {
        lastError = (err as Error).message;
        if (err instanceof ConnectFailure && err.fatal) return this.setState({ state: 'failed', reason: lastError });
      }
    }
  }

  /** Resolves when a command can run; rejects once the transport has failed or been closed. */
  private whenReady(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const aborted = (): void => reject(new Error(`${this.target}: aborted while waiting for the connection`));
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
      const check = (): boolean => {
        const s = this.current;
        if (s.state === 'ready') resolve();
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
    // `; exit $?`: the remote shell does not exec the command, so one killed by a signal comes back
    // as 128+n (ssh itself says 255 for a signal, which would read as a lost connection).
    const cmd = `${commandLine(argv, opts.cwd)}; exit $?`; // throws on NUL before anything is sent
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new PassThrough();
    let child: ChildProcess | null = null;
    let userClosed = false;

    const run = async (): Promise<{ code: number | null; signal: string | null }> => {
      const release = await this.channels.acquire();
      try {
        for (let attempt = 0; ; attempt++) {
          if (userClosed) throw new Error(`${this.target}: ${argv[0]} was closed before it started`);
          await this.whenReady(opts.signal);
          const args = [...this.sshArgs(['-T', ...this.masterOnly()]), cmd];
          const r = await runSshCommand(
            args,
            opts.stdin,
            { stdin, stdout, stderr },
            {
              heard: this.heard,
              started: (c) => {
                child = c;
                this.children.add(c);
                if (userClosed) c.kill('SIGTERM');
              },
              ended: (c) => this.children.delete(c),
            },
          );
          if (userClosed) return { code: null, signal: null };
          // The master's sshd allows MaxSessions (10) at once, the person's own terminals included:
          // a session refused before anything ran is asked again a moment later, as ssh2's open does.
          if (r.refused && attempt < 40) {
            await new Promise((w) => setTimeout(w, Math.min(25 * (attempt + 1), 250)));
            continue;
          }
          if (r.exit.signal || isClientFailure(r.exit.code, r.tail)) {
            const why = r.exit.signal ? `the ssh client was killed by ${r.exit.signal}` : clientLine(r.tail);
            // A client killed on its own is one lost channel; the ssh client's own failure may be the master's.
            if (!r.exit.signal) this.lost(why);
            throw new Error(`${this.target}: connection lost while running ${argv[0]}: ${why}`);
          }
          this.heard();
          this.attempt = 0; // a command completed: the link works
          return r.exit;
        }
      } finally {
        stdout.end();
        release();
      }
    };
    const done = run();
    done.then(
      () => stderr.end(),
      () => stderr.end(),
    );
    const close = (): void => {
      userClosed = true;
      stdin.unpipe();
      child?.kill('SIGTERM');
    };
    opts.signal?.addEventListener('abort', close, { once: true });
    return { stdout, stderr, stdin, done, close };
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
    const h = followRemote(this, path, fromOffset, onEvent, remoteFollowOptions(this.opts, fo, this.heard));
    return this.follows.track(h);
  }

  /** Ends our commands; the master is the user's (ControlPersist decides when it goes). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.follows.closeAll();
    if (this.backoff) {
      clearTimeout(this.backoff.timer);
      this.backoff.wake();
    }
    const exits = [...this.children].map((c) => new Promise<void>((r) => c.once('close', () => r())));
    for (const c of this.children) c.kill('SIGTERM');
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.setState({ state: 'closed' });
  }
}
