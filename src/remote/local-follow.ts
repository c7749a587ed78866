// `follow` for the local transport: polls the path (stat by name, read by offset) so that
// truncation, rotation (a new inode under the same name) and late appearance are all seen the same
// way the remote follower sees them. Polling rather than fs.watch: watch misses renames on some
// file systems (NFS, overlay) and the poll interval bounds latency anyway.
import { open, stat } from 'node:fs/promises';
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

  const reset = (reason: 'truncated' | 'replaced' | 'appeared'): void => {
    offset = 0;
    prefix = Buffer.alloc(0);
    onEvent({ type: 'reset', reason });
  };

  const readAt = async (pos: number, len: number): Promise<Buffer> => {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  };

  const tick = async (): Promise<void> => {
    let st;
    try {
      st = await stat(path);
    } catch {
      missing = true;
      return;
    }
    if (ino === null) {
      // First sight of the file: either at start (resume from fromOffset) or after it appeared.
      ino = st.ino;
      if (missing) reset('appeared');
      else if (st.size < offset) reset('truncated');
      else prefix = await readAt(0, Math.min(offset, PREFIX_BYTES));
      missing = false;
    } else if (st.ino !== ino) {
      ino = st.ino;
      reset(missing ? 'appeared' : 'replaced');
      missing = false;
    } else if (st.size < offset) {
      reset('truncated');
    } else if (prefix && prefix.length > 0 && st.size > offset) {
      const now = await readAt(0, prefix.length);
      if (!now.equals(prefix)) reset('truncated');
    }
    missing = false;
    while (!closed && st.size > offset) {
      const chunk = await readAt(offset, Math.min(st.size - offset, MAX_READ));
      if (chunk.length === 0) break;
      if (prefix && prefix.length < PREFIX_BYTES && offset < PREFIX_BYTES) {
        prefix = Buffer.concat([prefix, chunk.subarray(0, PREFIX_BYTES - offset)]);
      }
      const at = offset;
      offset += chunk.length;
      onEvent({ type: 'data', offset: at, bytes: chunk });
    }
  };

  const loop = async (): Promise<void> => {
    if (closed) return;
    try {
      await tick();
    } catch {
      // A file that vanished between stat and read: the next poll sees it missing.
    }
    if (!closed) timer = setTimeout(loop, pollMs);
  };
  void loop();

  return {
    get offset() {
      return offset;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
