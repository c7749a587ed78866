// `follow` over ssh: one long-lived channel running FOLLOW_SCRIPT, restarted after every drop from
// the last delivered offset with the inode and prefix fingerprint the follower last reported, so
// the new follower can tell "same file, continue" from truncated / replaced while we were away.
import type { FollowEvent, FollowHandle, Transport, ExecStream } from './transport.js';
import { FOLLOW_SCRIPT } from './remote-scripts.js';
import { remoteScript } from './quote.js';
import { FrameParser } from './follow-frames.js';
import { createHash } from 'node:crypto';

/** Must match the follower's 64-byte prefix window. */
const PREFIX_BYTES = 64;

export interface RemoteFollowOptions {
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  pollMs: number;
  /** Called when bytes arrive: the connection demonstrably works (resets the reconnect backoff). */
  onProgress?: () => void;
}

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
  let closed = false;
  let current: ExecStream | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;

  const start = (): void => {
    if (closed) return;
    if (prefix !== null && prefix.length > 0) {
      prefixLen = Math.min(prefix.length, offset);
      prefixHash = createHash('md5').update(prefix.subarray(0, prefixLen)).digest('hex');
    }
    const args = [path, String(offset), inode, prefixHash, String(prefixLen), String(opts.heartbeatTimeoutMs / 1000), String(opts.pollMs / 1000)];
    const s = t.execStream(remoteScript(FOLLOW_SCRIPT, args, 'awrl-follow'));
    current = s;
    let broken = false;
    const parser = new FrameParser((f) => {
      if (closed || broken) return;
      if (f.kind === 'state') {
        inode = f.inode;
        if (prefix === null || prefix.length === 0) {
          prefixLen = f.prefixLen;
          prefixHash = f.prefixHash;
        }
      } else if (f.kind === 'reset') {
        offset = 0;
        prefix = Buffer.alloc(0);
        inode = '-';
        prefixLen = 0;
        prefixHash = '-';
        onEvent({ type: 'reset', reason: f.reason });
      } else {
        // The follower starts exactly at our offset; anything else is a bug we must not paper over
        // by delivering bytes twice or skipping some: drop the channel and resume cleanly.
        if (f.offset !== offset) {
          broken = true;
          s.close();
          return;
        }
        offset += f.bytes.length;
        if (prefix !== null && prefix.length < PREFIX_BYTES && prefix.length === f.offset) {
          prefix = Buffer.concat([prefix, f.bytes.subarray(0, PREFIX_BYTES - prefix.length)]);
        }
        opts.onProgress?.();
        onEvent({ type: 'data', offset: f.offset, bytes: f.bytes });
      }
    });
    s.stdout.on('data', (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch {
        broken = true;
        s.close();
      }
    });
    s.stderr.on('data', () => undefined); // always drained: stderr shares the window with stdout
    const heartbeat = setInterval(() => s.stdin.write('\n'), opts.heartbeatIntervalMs);
    s.stdin.on('error', () => undefined);
    s.stdin.write('\n');
    // A channel that ended with an exit status ended on a live connection (the remote follower
    // died or was killed): pause before retrying. A rejected one lost its connection: resume as
    // soon as the transport is ready again (execStream itself waits for that).
    const restart = (delayMs: number): void => {
      clearInterval(heartbeat);
      if (current === s) current = null;
      if (closed) return;
      scheduleRestart(broken ? 0 : delayMs);
    };
    s.done.then(
      () => restart(1000),
      () => restart(0),
    );
  };

  // After a drop wait for the transport to be ready again; a follower that ended on a live
  // connection is restarted after a pause so a broken remote cannot make us spin.
  const scheduleRestart = (delayMs: number): void => {
    const whenReady = (): void => {
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
    whenReady();
  };

  start();
  return {
    get offset() {
      return offset;
    },
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      unsubscribe?.();
      current?.close();
    },
  };
}
