// The one Transport every command uses to reach a target (ssh2 or local child processes).
// Contract shared by src/remote (implementations), src/runs, src/gpu and the cockpit session.
// Callers pass argv arrays; quoting for the remote shell is the transport's job, never theirs.
import type { Readable, Writable } from 'node:stream';
import type { FollowProblem } from './follow-status.js';
import type { AnswerLogin } from './options.js';

export type { FollowProblem };

export type ConnectionState =
  | { state: 'connecting' }
  | { state: 'ready' }
  | { state: 'reconnecting'; attempt: number; nextInMs: number; lastError: string }
  | { state: 'failed'; reason: string }
  | { state: 'closed' };

export interface ExecOptions {
  /** Bytes written to the command's stdin, then stdin is closed. The only way secrets travel. */
  stdin?: string | Buffer;
  cwd?: string;
  signal?: AbortSignal;
  /** The command must not share the caller's terminal signals (a launch's start script: a Ctrl-C
   *  after it was sent lets it finish). Remote commands never do; the local Transport starts it
   *  in a process group of its own. */
  ownSignals?: boolean;
}

export interface ExecResult {
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
}

export interface ExecStream {
  stdout: Readable;
  stderr: Readable;
  stdin: Writable;
  /** Settles when the command ends (or the connection drops: then rejects). */
  done: Promise<{ code: number | null; signal: string | null }>;
  /** Ends the channel (and with it, for ssh, the remote process once it notices). */
  close(): void;
}

export interface FileStat {
  inode: number;
  size: number;
  mtimeMs: number;
}

export type FollowEvent =
  /** `bytes` start at file offset `offset`; offsets are contiguous between resets. */
  | { type: 'data'; offset: number; bytes: Buffer }
  /** The file was truncated, replaced (rotated) or appeared: delivery restarts at offset 0.
   *  Consumers must drop any partial line/record they hold. */
  | { type: 'reset'; reason: 'truncated' | 'replaced' | 'appeared' }
  /** The file cannot be followed although the connection works (the follower keeps trying), or
   *  null: it is followed again. In order with the bytes: a clearing comes before what it reads.
   *  Consumers that do not show it ignore it. Never delivered after `close()`. */
  | { type: 'problem'; problem: FollowProblem | null };

export interface FollowOptions {
  /** The consumer copies what it keeps of a `data` event's bytes (a parser does): they may then
   *  be a decoder's buffer, valid only during the call and reused for the next bytes. A decoded
   *  backlog then costs no fresh memory per MiB (fresh pages took half the lz4 decoder's time). */
  borrowBytes?: boolean;
}

export interface FollowWake {
  pushed: boolean;
  resident: boolean;
  pollMs: number;
}

export interface FollowHandle {
  /** The offset just past the last delivered byte. */
  readonly offset: number;
  /** What came compressed (a backlog over ssh): the bytes received for it and the file bytes they
   *  carried (of them, those that came as zstd, and as lz4; the rest came as gzip). Absent where
   *  nothing is ever compressed (local). */
  readonly compression?: { wireBytes: number; fileBytes: number; zstdFileBytes: number; lz4FileBytes: number };
  /** How the target's follower learns of changes (remote): pushed by inotify or polled every
   *  `pollMs` once the log is quiet; read by its resident reader or by a few processes per change.
   *  null until the follower said; absent where it does not apply (local). */
  readonly wake?: FollowWake | null;
  close(): void;
}

export interface Transport {
  /** 'local', an ssh alias, or user@host[:port], as given. */
  readonly target: string;
  readonly state: ConnectionState;
  onState(listener: (s: ConnectionState) => void): () => void;
  /** When the target last answered (Date.now ms: a command's output or exit, a follower's frame),
   *  or null before it did. A silently dead link is declared lost only when keepalive gives up (up
   *  to a minute later): the time since this is when nothing could be read. Absent: not known. */
  readonly lastHeardAt?: number | null;

  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  execStream(argv: string[], opts?: ExecOptions): ExecStream;

  readFile(path: string, opts?: { offset?: number; length?: number }): Promise<Buffer>;
  /** null when the path does not exist. */
  stat(path: string): Promise<FileStat | null>;
  /** Temp file + atomic rename; parent directories created. */
  writeFileAtomic(path: string, bytes: string | Buffer, mode?: number): Promise<void>;

  /** Follows a (possibly not yet existing) file from a byte offset, across reconnects:
   *  every byte exactly once. */
  follow(path: string, fromOffset: number, onEvent: (e: FollowEvent) => void, opts?: FollowOptions): FollowHandle;

  /** The connection ended at a login that needs a person (a second factor asked again on a
   *  reconnect): nothing more is tried until `loginAgain`. Absent: this transport never asks. */
  readonly needsLogin?: boolean;
  /** One more connection attempt, on which the server's keyboard-interactive questions go to
   *  `answer` (the person at the cockpit): only while `needsLogin`, one attempt at a time. Declined
   *  (`answer` gives null): the transport stays failed as it was. */
  loginAgain?(answer: AnswerLogin): Promise<void>;

  close(): Promise<void>;
}
