// How far `follow` has read its log, in bytes: what the cockpit knows from its own follower and
// `follow` did not (followToEnd hides its follower). The transport handed to followToEnd is wrapped
// so that every delivery of its one follow is seen AFTER the follower consumed it (its records are
// parsed and pushed by then): the silence is counted exactly when reading reaches the size measured,
// and at the run's end we can say how much of the log was never read.
import type { FollowEvent, Transport } from '../remote/transport.js';

export interface BytesRead {
  /** The transport to follow through (everything but `follow` is the wrapped one's). */
  readonly transport: Transport;
  /** Bytes of the current file read so far (0 again after a reset: a new file's first byte). */
  readonly offset: number;
  /** Told after each delivery was consumed: the offset now. */
  onRead(listener: (offset: number) => void): void;
  /** Told the bytes each delivery added (never twice: overlaps cut by offset), and resets. */
  onBytes(listener: (bytes: Buffer | null) => void): void;
}

export function countBytesRead(t: Transport): BytesRead {
  let offset = 0;
  const listeners: Array<(offset: number) => void> = [];
  const byteListeners: Array<(bytes: Buffer | null) => void> = [];
  const seen = (e: FollowEvent): void => {
    if (e.type === 'problem') return;
    if (e.type === 'reset') {
      offset = 0;
      for (const l of byteListeners) l(null);
    } else {
      // Overlaps a reconnect may deliver again are cut by offset, as the follower cuts them.
      const end = e.offset + e.bytes.length;
      if (end > offset && byteListeners.length) {
        const fresh = e.offset < offset ? e.bytes.subarray(offset - e.offset) : e.bytes;
        for (const l of byteListeners) l(fresh);
      }
      offset = Math.max(offset, end);
    }
    for (const l of listeners) l(offset);
  };
  const follow: Transport['follow'] = (path, fromOffset, onEvent) => {
    offset = fromOffset;
    return t.follow(path, fromOffset, (e) => {
      onEvent(e);
      seen(e);
    });
  };
  // A Proxy, so the Transport contract can grow without this wrapper falling behind.
  const transport = new Proxy(t, {
    get(target, prop) {
      if (prop === 'follow') return follow;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    transport,
    get offset() {
      return offset;
    },
    onRead(listener) {
      listeners.push(listener);
    },
    onBytes(listener) {
      byteListeners.push(listener);
    },
  };
}
