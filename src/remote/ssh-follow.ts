// `follow` over ssh: one long-lived channel running FOLLOWER_SCRIPT, restarted after every drop from
// the last delivered offset with the inode, the prefix fingerprint and the md5 of the last bytes
// delivered before the offset, so the new follower can tell "same file, continue" from truncated /
// replaced while we were away. A follower that keeps failing on a live connection (unreadable file,
// exits at once, prints garbage) is reported through FollowTrouble as a `problem` event, not retried
// silently.
import type { FollowEvent, FollowHandle, FollowWake, Transport, ExecStream } from './transport.js';
import { remoteScript } from './quote.js';
import { FOLLOWER_SCRIPT, FrameParser, PREFIX_WINDOW, TAIL_WINDOW, type Frame } from './follow-frames.js';
import { FollowTrouble } from './follow-status.js';
import { FrameInflater } from './follow-inflate.js';
import { RESIDENT_READER } from './follow-resident.js';
import { codecPreference } from './member-decoder.js';
import type { CodecChoice } from './options.js';
import { createHash } from 'node:crypto';

export interface RemoteFollowOptions {
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  pollMs: number;
  /** The poll while the log is quiet (default QUIET_POLL_MS, at least pollMs). */
  quietPollMs?: number;
  /** A backlog at least this long is sent compressed (default COMPRESS_MIN_BYTES; 0: never). */
  compressMinBytes?: number;
  /** Compressor jobs at once on the target (default 0: one fewer than its cores, 1 to 4) and bytes per member. */
  compressJobs?: number;
  compressChunkBytes?: number;
  /** `auto` (default): the best codec for this client the target has (codecPreference); a codec:
   *  that one first; `gzip`: gzip only. */
  compressCodec?: CodecChoice;
  /** false: no resident reader (follow-resident.ts), the bash follower alone (a bench's before). */
  resident?: boolean;
  /** Called when bytes arrive: the connection demonstrably works (resets the reconnect backoff). */
  onProgress?: () => void;
  /** FollowOptions.borrowBytes: lz4 members are decoded into one reused buffer. */
  borrowBytes?: boolean;
}

/** A follower this far behind (`follow` of a long log, a reconnect after hours) compresses its
 *  backlog; one at the end sends the live tail as it is (a step is a few KiB). */
export const COMPRESS_MIN_BYTES = 1 << 20;
/** The largest member (the first is 8 MiB, each next one twice the last): each member is a dd and a
 *  compressor process, whose start costs the target as much as compressing MiBs. 1.1 GB in 32 MiB
 *  members took 5.7 s of the target's CPU (dd | zstd -1), in 128 MiB ones 2.9 s, in one 1.5 s. */
const COMPRESS_CHUNK_BYTES = 128 << 20;
/** A quiet follower wakes this often: each wake-up is most of what it costs the target (measured:
 *  ≈ 0.9 % of a core at 100 ms, ≈ 0.35 % at 250 ms); a step after a quiet spell waits for it. */
export const QUIET_POLL_MS = 200;

/** Kept of a follower's stderr: enough for its last error lines. */
const STDERR_KEEP = 4096;
/** Pause before restarting a follower that ended on a live connection (it cannot make us spin). */
const RESTART_PAUSE_MS = 1000;
/** A follower answers (state, a problem, or "waiting for the file") within a second or so of its
 *  start; one silent this long while the connection is up hangs (a login shell's startup file, a
 *  hung file system under TMPDIR or the log). */
export const SILENT_FOLLOWER_MS = 10_000;

const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

export function followRemote(
  t: Transport,
  path: string,
  fromOffset: number,
  onEvent: (e: FollowEvent) => void,
  opts: RemoteFollowOptions,
): FollowHandle {
  let offset = fromOffset;
  let inode = '-';
  let prefixLen = 0;
  let prefixHash = '-';
  // The file's first bytes as we delivered them (null when we started mid-file): the fingerprint
  // for a resume is computed from these, so it never depends on an `S` frame that a drop cut off.
  let prefix: Buffer | null = fromOffset === 0 ? Buffer.alloc(0) : null;
  // The last ≤ TAIL_WINDOW bytes delivered, ending at `offset` (empty when we know none).
  let tail: Buffer = Buffer.alloc(0);
  let closed = false;
  let current: ExecStream | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;
  // Compressed bytes received and the file bytes they carried, over every follower so far.
  const wire = { compressed: 0, inflated: 0, zstd: 0, lz4: 0 };
  let inflating: FrameInflater | null = null;
  let wake: FollowWake | null = null;
  const quietPollMs = Math.max(opts.pollMs, opts.quietPollMs ?? QUIET_POLL_MS);
  // Members that would not decode (a target's odd compressor, a decoder's gap): the next follower
  // sends gzip, and after gzip failed too, plain frames, so a backlog is never stuck on one member.
  let undecodable = 0;
  // A report after close (the trouble's own clearing, a timer) reaches no one: the consumer is gone.
  const trouble = new FollowTrouble(t.target, path, (problem) => {
    if (!closed) onEvent({ type: 'problem', problem });
  });

  const start = (): void => {
    if (closed) return;
    if (prefix !== null && prefix.length > 0) {
      prefixLen = Math.min(prefix.length, offset);
      prefixHash = md5(prefix.subarray(0, prefixLen));
    }
    const args = [
      path,
      String(offset),
      inode,
      prefixHash,
      String(prefixLen),
      String(opts.heartbeatTimeoutMs / 1000),
      String(opts.pollMs / 1000),
      tail.length > 0 ? md5(tail) : '-',
      String(tail.length),
      String(undecodable >= 2 ? 0 : (opts.compressMinBytes ?? COMPRESS_MIN_BYTES)),
      String(opts.compressJobs ?? 0),
      String(opts.compressChunkBytes ?? COMPRESS_CHUNK_BYTES),
      String(quietPollMs / 1000),
      codecPreference(undecodable >= 1 ? 'gzip' : (opts.compressCodec ?? 'auto')).join(','),
      opts.resident === false ? '' : RESIDENT_READER,
    ];
    const s = t.execStream(remoteScript(FOLLOWER_SCRIPT, args, 'awrl-follow'));
    current = s;
    let broken = false;
    let brokenWhy = '';
    let worked = false; // this follower sent the file's state or bytes
    let stderrText = '';
    let answered = false;
    const silent = setTimeout(() => {
      if (!answered && !closed && t.state.state === 'ready')
        trouble.failed(`the follower has not answered for ${SILENT_FOLLOWER_MS / 1000} s`, true);
    }, SILENT_FOLLOWER_MS);
    silent.unref?.();
    const breakOff = (why: string): void => {
      broken = true;
      brokenWhy = why;
      inflater.close();
      s.close();
    };
    const inflater = new FrameInflater({
      borrowBytes: opts.borrowBytes ?? false,
      frame: (f) => onFrame(f),
      broken: (why) => {
        undecodable++;
        breakOff(`the follower sent ${why}`);
      },
      backlog: (full) => (full ? s.stdout.pause() : s.stdout.resume()),
    });
    inflating = inflater;
    const parser = new FrameParser((f) => inflater.push(f));
    const onFrame = (f: Frame): void => {
      if (closed || broken) return;
      // Said before the follower touches the log: not yet an answer (the log's file system may hang).
      if (f.kind === 'wake') {
        wake = { pushed: f.pushed, resident: f.resident, pollMs: quietPollMs };
        return;
      }
      answered = true;
      clearTimeout(silent);
      if (f.kind === 'waiting') return trouble.ok();
      if (f.kind === 'problem') {
        if (f.text === null) trouble.ok();
        else trouble.failed(f.text);
        return;
      }
      worked = true;
      trouble.ok();
      if (f.kind === 'state') {
        inode = f.inode;
        if (prefix === null || prefix.length === 0) {
          prefixLen = f.prefixLen;
          prefixHash = f.prefixHash;
        }
      } else if (f.kind === 'reset') {
        offset = 0;
        prefix = Buffer.alloc(0);
        tail = Buffer.alloc(0);
        inode = '-';
        prefixLen = 0;
        prefixHash = '-';
        onEvent({ type: 'reset', reason: f.reason });
      } else {
        // The follower starts exactly at our offset; anything else is a bug we must not paper over
        // by delivering bytes twice or skipping some: drop the channel and resume cleanly.
        if (f.offset !== offset) return breakOff(`the follower sent bytes at ${f.offset}, expected ${offset}`);
        offset += f.bytes.length;
        if (prefix !== null && prefix.length < PREFIX_WINDOW && prefix.length === f.offset) {
          prefix = Buffer.concat([prefix, f.bytes.subarray(0, PREFIX_WINDOW - prefix.length)]);
        }
        tail =
          f.bytes.length >= TAIL_WINDOW
            ? Buffer.from(f.bytes.subarray(f.bytes.length - TAIL_WINDOW))
            : Buffer.concat([tail, f.bytes]).subarray(-TAIL_WINDOW);
        opts.onProgress?.();
        onEvent({ type: 'data', offset: f.offset, bytes: f.bytes });
      }
    };
    s.stdout.on('data', (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch (err) {
        // Usually a login shell whose startup files print to stdout.
        breakOff(
          `unexpected output from the remote shell (${(err as Error).message.replace(/^follower protocol error: /, '')})`,
        );
      }
    });
    // Always drained (stderr shares the window with stdout); its end says why a follower died.
    s.stderr.on('data', (b: Buffer) => {
      stderrText = (stderrText + b.toString('utf8')).slice(-STDERR_KEEP);
    });
    const heartbeat = setInterval(() => s.stdin.write('\n'), opts.heartbeatIntervalMs);
    s.stdin.on('error', () => undefined);
    s.stdin.write('\n');
    // A channel that ended with an exit status ended on a live connection (the remote follower
    // died or was killed, or never started): that is a failure to report if it keeps happening,
    // and a pause before retrying. A rejected one lost its connection: the transport's state says
    // so; resume as soon as it is ready again (execStream itself waits for that).
    const ended = (exit: { code: number | null; signal: string | null } | null, rejection?: string): void => {
      clearInterval(heartbeat);
      clearTimeout(silent);
      wire.compressed += inflater.compressedBytes;
      wire.inflated += inflater.inflatedBytes;
      wire.zstd += inflater.zstdBytes;
      wire.lz4 += inflater.lz4Bytes;
      if (inflating === inflater) inflating = null;
      inflater.close();
      if (current === s) current = null;
      if (closed) return;
      // A channel refused while the transport still says ready (`open failed`) is no drop either.
      const onLiveConnection = exit !== null || broken || t.state.state === 'ready';
      if (onLiveConnection && (broken || !worked)) {
        const lastLine = stderrText.trim().split('\n').filter(Boolean).at(-1);
        const exitText = exit?.signal
          ? `the follower was killed by ${exit.signal}`
          : `the follower exited with code ${exit?.code ?? '?'}`;
        trouble.failed(broken ? brokenWhy : (lastLine ?? rejection ?? exitText));
      }
      // A protocol slip is retried at once, unless it keeps happening.
      const delay = !onLiveConnection ? 0 : broken && !trouble.failing ? 0 : RESTART_PAUSE_MS;
      scheduleRestart(delay);
    };
    s.done.then(
      (exit) => ended(exit),
      // Asked a moment later: a dropped connection may close its channels before it says it dropped.
      (err: unknown) =>
        setImmediate(() =>
          ended(broken ? { code: null, signal: null } : null, err instanceof Error ? err.message : String(err)),
        ),
    );
  };

  // After a drop wait for the transport to be ready again; a follower that ended on a live
  // connection is restarted after a pause so a broken remote cannot make us spin.
  const scheduleRestart = (delayMs: number): void => {
    if (closed) return;
    const st = t.state.state;
    if (st === 'ready') {
      retryTimer = setTimeout(start, delayMs);
      return;
    }
    if (st === 'failed' || st === 'closed') return;
    unsubscribe = t.onState((s) => {
      if (s.state === 'ready' || s.state === 'failed' || s.state === 'closed') {
        unsubscribe?.();
        unsubscribe = null;
        if (s.state === 'ready' && !closed) retryTimer = setTimeout(start, 0);
      }
    });
  };

  start();
  return {
    get offset() {
      return offset;
    },
    get wake() {
      return wake;
    },
    get compression() {
      return {
        wireBytes: wire.compressed + (inflating?.compressedBytes ?? 0),
        fileBytes: wire.inflated + (inflating?.inflatedBytes ?? 0),
        zstdFileBytes: wire.zstd + (inflating?.zstdBytes ?? 0),
        lz4FileBytes: wire.lz4 + (inflating?.lz4Bytes ?? 0),
      };
    },
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      unsubscribe?.();
      trouble.close();
      current?.close();
    },
  };
}
