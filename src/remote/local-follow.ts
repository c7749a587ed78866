// `follow` for the local transport: polls the path (stat by name, read by offset) so that
// truncation, rotation (a new inode under the same name) and late appearance are all seen the same
// way the remote follower sees them. Polling rather than fs.watch: watch misses renames on some
// file systems (NFS, overlay) and the poll interval bounds latency anyway.
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { FollowEvent, FollowHandle } from './transport.js';

/** Bytes of the file's start remembered to catch truncate-then-regrow, which inode+size miss. */
export const PREFIX_BYTES = 64;
const MAX_READ = 4 << 20;

export interface LocalFollowOptions {
  pollMs?: number;
}

export function followLocal(
  path: string,
  fromOffset: number,
  onEvent: (e: FollowEvent) => void,
  opts: LocalFollowOptions = {},
): FollowHandle {
  const pollMs = opts.pollMs ?? 50;
  let offset = fromOffset;
  let ino: number | null = null;
  let missing = false;
  let prefix: Buffer | null = null; // first min(offset, 64) bytes of the followed file
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  // The followed file stays open: reads go to the inode being followed, never to whatever file
  // has the name now, and after a rename or delete its last bytes can still be read (drained)
  // before the reset, as the remote follower does with its open descriptor.
  let fh: FileHandle | null = null;
  let ticking = false;

  const reset = (reason: 'truncated' | 'replaced' | 'appeared'): void => {
    offset = 0;
    prefix = Buffer.alloc(0);
    onEvent({ type: 'reset', reason });
  };

  const readAt = async (h: FileHandle, pos: number, len: number): Promise<Buffer> => {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await h.read(buf, 0, len, pos);
    return buf.subarray(0, bytesRead);
  };

  const deliver = async (h: FileHandle, size: number): Promise<void> => {
    while (!closed && size > offset) {
      const chunk = await readAt(h, offset, Math.min(size - offset, MAX_READ));
      if (chunk.length === 0) break;
      if (prefix && prefix.length < PREFIX_BYTES && offset < PREFIX_BYTES) {
        prefix = Buffer.concat([prefix, chunk.subarray(0, PREFIX_BYTES - offset)]);
      }
      const at = offset;
      offset += chunk.length;
      onEvent({ type: 'data', offset: at, bytes: chunk });
    }
  };

  /** The name no longer leads to the followed file: deliver what it still holds, then let go. */
  const drainOld = async (): Promise<void> => {
    if (!fh) return;
    const h = fh;
    fh = null;
    try {
      await deliver(h, (await h.stat()).size);
    } finally {
      await h.close().catch(() => undefined);
    }
  };

  const tick = async (): Promise<void> => {
    let st;
    try {
      st = await stat(path);
    } catch {
      await drainOld();
      missing = true;
      return;
    }
    if (fh === null || st.ino !== ino) {
      await drainOld();
      if (closed) return;
      let h: FileHandle;
      try {
        h = await open(path, 'r');
      } catch {
        missing = true;
        return;
      }
      const hst = await h.stat();
      if (ino === null) {
        // First sight of the file: either at start (resume from fromOffset) or after it appeared.
        if (missing) reset('appeared');
        else if (hst.size < offset) reset('truncated');
        else prefix = await readAt(h, 0, Math.min(offset, PREFIX_BYTES));
      } else if (hst.ino !== ino) reset(missing ? 'appeared' : 'replaced');
      ino = hst.ino;
      fh = h;
      missing = false;
    }
    const cur = await fh.stat();
    if (cur.size < offset) {
      reset('truncated');
    } else if (prefix && prefix.length > 0 && cur.size > offset) {
      const now = await readAt(fh, 0, prefix.length);
      if (!now.equals(prefix)) reset('truncated');
    }
    missing = false;
    await deliver(fh, cur.size);
  };

  const loop = async (): Promise<void> => {
    if (closed) return;
    ticking = true;
    try {
      await tick();
    } catch {
      // A file that vanished between stat and open: the next poll sees it missing.
    }
    ticking = false;
    if (closed) {
      await fh?.close().catch(() => undefined);
      fh = null;
      return;
    }
    timer = setTimeout(loop, pollMs);
  };
  void loop();

  return {
    get offset() {
      return offset;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      // Mid-tick, the loop closes the file when the tick ends; otherwise nothing else will.
      if (!ticking) {
        void fh?.close().catch(() => undefined);
        fh = null;
      }
    },
  };
}
