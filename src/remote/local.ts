// The `local` transport: child processes and the file system of this machine, for single-node use
// and the demo. Same contract as ssh, so commands never care which one they hold. No shell is
// involved: argv goes straight to spawn, so there is nothing to quote.
import { spawn } from 'node:child_process';
import { mkdir, open, rename, stat, unlink, writeFile, chmod } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type {
  ConnectionState,
  ExecOptions,
  ExecResult,
  ExecStream,
  FileStat,
  FollowEvent,
  FollowHandle,
  Transport,
} from './transport.js';
import { followLocal } from './local-follow.js';

export interface LocalTransportOptions {
  /** Poll interval of `follow` (default 50 ms). */
  followPollMs?: number;
  /** Whether a watch on the followed file wakes its poll at once (default true). */
  followWatch?: boolean;
}

export class LocalTransport implements Transport {
  readonly target = 'local';
  private current: ConnectionState = { state: 'ready' };
  private readonly listeners = new Set<(s: ConnectionState) => void>();
  private readonly follows = new Set<FollowHandle>();

  constructor(private readonly opts: LocalTransportOptions = {}) {}

  get state(): ConnectionState {
    return this.current;
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  execStream(argv: string[], opts: ExecOptions = {}): ExecStream {
    if (argv.length === 0) throw new Error('exec: empty argv');
    for (const a of argv) if (a.includes('\0')) throw new Error('exec: argument contains a NUL byte');
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      signal: opts.signal,
      detached: opts.ownSignals === true,
    });
    // A missing program is reported the way a shell reports it (127 + a message on stderr), so
    // callers see the same result from local and ssh.
    // Always drained, even if the caller never reads it: a child blocked on a full stderr pipe
    // would stop producing stdout too (same rule as ssh's shared window). Capped in memory.
    const stderr = new PassThrough();
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.readableLength < 64 << 20) stderr.write(b);
    });
    let spawnFailed = false;
    child.stderr.on('end', () => {
      if (!spawnFailed) stderr.end();
    });
    const done = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR') {
          spawnFailed = true;
          const code = err.code === 'ENOENT' ? 127 : 126;
          if (!stderr.writableEnded)
            stderr.end(`${argv[0]}: ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`);
          resolve({ code, signal: null });
        }
      });
      child.once('close', (code, signal) => {
        if (!spawnFailed) resolve({ code, signal });
      });
    });
    child.stdin.on('error', () => undefined); // EPIPE when the command ignores its stdin
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    return {
      stdout: child.stdout,
      stderr,
      stdin: child.stdin,
      done,
      close: () => {
        child.stdin.destroy();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      },
    };
  }

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const s = this.execStream(argv, { ...opts, stdin: opts.stdin ?? '' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    s.stdout.on('data', (b: Buffer) => out.push(b));
    s.stderr.on('data', (b: Buffer) => err.push(b));
    const [r] = await Promise.all([s.done, ended(s.stdout), ended(s.stderr)]);
    return { ...r, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
  }

  async readFile(path: string, opts: { offset?: number; length?: number } = {}): Promise<Buffer> {
    const fh = await open(path, 'r');
    try {
      const offset = opts.offset ?? 0;
      const size = (await fh.stat()).size;
      const len = Math.max(0, Math.min(opts.length ?? Infinity, size - offset));
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, offset);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      const st = await stat(path);
      return { inode: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
        return null;
      throw err;
    }
  }

  async writeFileAtomic(path: string, bytes: string | Buffer, mode = 0o644): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(tmp, bytes, { mode });
      await chmod(tmp, mode); // writeFile's mode is filtered by the umask
      await rename(tmp, path);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  follow(path: string, fromOffset: number, onEvent: (e: FollowEvent) => void): FollowHandle {
    const h = followLocal(path, fromOffset, onEvent, {
      pollMs: this.opts.followPollMs,
      ...(this.opts.followWatch === false ? { watch: false } : {}),
    });
    this.follows.add(h);
    return {
      get offset() {
        return h.offset;
      },
      close: () => {
        h.close();
        this.follows.delete(h);
      },
    };
  }

  async close(): Promise<void> {
    for (const h of this.follows) h.close();
    this.follows.clear();
    if (this.current.state === 'closed') return;
    this.current = { state: 'closed' };
    for (const l of this.listeners) l(this.current);
  }
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
