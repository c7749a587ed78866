// `follow` for the local transport: polls the path (stat by name, read by offset) so that
// truncation, rotation (a new inode under the same name) and late appearance are all seen the same
// way the remote follower sees them. The poll is the truth (fs.watch misses renames on some file
// systems, and NFS reports no writes made elsewhere); a quiet log is polled less often, and a
// watch on the followed file, where the system gives one, wakes the poll at once when it changes.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { watch, type FSWatcher, type Stats } from 'node:fs';
import type { FollowEvent, FollowHandle } from './transport.js';
import { PREFIX_WINDOW, TAIL_WINDOW } from './follow-frames.js';
import { FollowTrouble } from './follow-status.js';

/** Bytes of the file's start remembered to catch truncate-then-regrow, which inode+size miss. */
export const PREFIX_BYTES = PREFIX_WINDOW;
const MAX_READ = 4 << 20;

export interface LocalFollowOptions {
  pollMs?: number;
  /** The poll once the log has not changed for QUIET_AFTER_MS (default 250 ms, at least pollMs). */
  quietPollMs?: number;
  /** Whether a watch on the file wakes the poll at once (default true). Without it each of the
   *  writer's writes no longer costs a look: the poll alone (the sentinel's, at 500 ms). */
  watch?: boolean;
}

/** A log unchanged this long is quiet: polled every quietPollMs until it changes again. */
const QUIET_AFTER_MS = 2000;

/** The path does not lead to a file yet (or any more): waited for quietly, not a problem. */
const isMissing = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/** `PATH: Permission denied`, as the remote follower (bash) says it, rather than Node's `EACCES: …`. */
function errorText(path: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    EACCES: 'Permission denied',
    EPERM: 'Operation not permitted',
    EISDIR: 'Is a directory',
    ELOOP: 'Too many levels of symbolic links',
    EIO: 'Input/output error',
  };
  return `${path}: ${(e.code && words[e.code]) ?? e.message}`;
}

export function followLocal(
  path: string,
  fromOffset: number,
  onEvent: (e: FollowEvent) => void,
  opts: LocalFollowOptions = {},
): FollowHandle {
  const pollMs = opts.pollMs ?? 50;
  const quietPollMs = Math.max(pollMs, opts.quietPollMs ?? 250);
  let changedAt = Date.now();
  let watcher: FSWatcher | null = null;
  let woken = false;
  let offset = fromOffset;
  let ino: number | null = null;
  let missing = false;
  let prefix: Buffer | null = null; // first min(offset, 64) bytes of the followed file
  // The last ≤ TAIL_WINDOW bytes before `offset`: a regrown file rarely has them in the same place.
  let tail: Buffer = Buffer.alloc(0);
  let lastMtimeMs = -1;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  // The followed file stays open: reads go to the inode being followed, never to whatever file
  // has the name now, and after a rename or delete its last bytes can still be read (drained)
  // before the reset, as the remote follower does with its open descriptor.
  let fh: FileHandle | null = null;
  let ticking = false;
  // A report after close (the trouble's own clearing, a timer) reaches no one: the consumer is gone.
  const trouble = new FollowTrouble('local', path, (problem) => {
    if (!closed) onEvent({ type: 'problem', problem });
  });

  const reset = (reason: 'truncated' | 'replaced' | 'appeared'): void => {
    changedAt = Date.now();
    offset = 0;
    prefix = Buffer.alloc(0);
    tail = Buffer.alloc(0);
    onEvent({ type: 'reset', reason });
  };

  const readAt = async (h: FileHandle, pos: number, len: number): Promise<Buffer> => {
    const buf = Buffer.allocUnsafe(len);
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
      tail =
        chunk.length >= TAIL_WINDOW
          ? Buffer.from(chunk.subarray(chunk.length - TAIL_WINDOW))
          : Buffer.concat([tail, chunk]).subarray(-TAIL_WINDOW);
      const at = offset;
      offset += chunk.length;
      changedAt = Date.now();
      onEvent({ type: 'data', offset: at, bytes: chunk });
    }
  };

  /** The name no longer leads to the followed file: deliver what it still holds, then let go. */
  const drainOld = async (): Promise<void> => {
    unwatch();
    if (!fh) return;
    const h = fh;
    fh = null;
    try {
      await deliver(h, (await h.stat()).size);
    } finally {
      await h.close().catch(() => undefined);
    }
  };

  /** The file still holds what we delivered: the same first bytes and the same bytes before the offset. */
  const unchanged = async (h: FileHandle): Promise<boolean> => {
    if (prefix && prefix.length > 0 && !(await readAt(h, 0, prefix.length)).equals(prefix)) return false;
    if (tail.length > 0 && !(await readAt(h, offset - tail.length, tail.length)).equals(tail)) return false;
    return true;
  };

  /** Opens the path: the handle, null when it is missing, or throws when it is there but unusable. */
  const openPath = async (st: Stats): Promise<FileHandle | null> => {
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    try {
      return await open(path, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  };

  const tick = async (): Promise<void> => {
    let st;
    try {
      st = await stat(path);
    } catch (err) {
      await drainOld();
      if (!isMissing(err)) throw err;
      missing = true;
      return;
    }
    // The name leads to the file we hold (its inode is ours while we hold it): its stat is the
    // file's, so a poll is one stat, not two.
    let cur: Stats = st;
    if (fh === null || st.ino !== ino) {
      await drainOld();
      if (closed) return;
      const h = await openPath(st);
      if (h === null) {
        missing = true;
        return;
      }
      const hst = await h.stat();
      if (ino === null) {
        // First sight of the file: either at start (resume from fromOffset) or after it appeared.
        if (missing) reset('appeared');
        else if (hst.size < offset) reset('truncated');
        else {
          prefix = await readAt(h, 0, Math.min(offset, PREFIX_BYTES));
          tail = await readAt(h, Math.max(0, offset - TAIL_WINDOW), Math.min(offset, TAIL_WINDOW));
        }
      } else if (hst.ino !== ino) reset(missing ? 'appeared' : 'replaced');
      ino = hst.ino;
      fh = h;
      missing = false;
      lastMtimeMs = -1;
      watchFile();
      cur = await fh.stat();
    }
    if (cur.size < offset) reset('truncated');
    // Grown, or rewritten in place (mtime moved): a truncate-then-regrow between two looks shows
    // only in the bytes.
    else if ((cur.size > offset || cur.mtimeMs !== lastMtimeMs) && !(await unchanged(fh))) reset('truncated');
    if (cur.mtimeMs !== lastMtimeMs) changedAt = Date.now();
    lastMtimeMs = cur.mtimeMs;
    missing = false;
    trouble.ok(); // before the bytes: "reading again" comes before what it reads
    await deliver(fh, cur.size);
  };

  const loop = async (): Promise<void> => {
    if (closed) return;
    ticking = true;
    try {
      await tick();
      trouble.ok(); // also when the path is missing (again): waiting for it is no problem
    } catch (err) {
      // A file that vanished between stat and open is missing at the next look; anything else
      // (permissions, a directory, an I/O error) is reported if it persists.
      if (!isMissing(err) && !closed) trouble.failed(errorText(path, err));
    }
    ticking = false;
    if (closed) {
      await fh?.close().catch(() => undefined);
      fh = null;
      return;
    }
    const quiet = Date.now() - changedAt >= QUIET_AFTER_MS;
    timer = setTimeout(loop, woken ? 0 : quiet ? quietPollMs : pollMs);
    woken = false;
  };

  /** The file changed (a watch said so): look now, or right after the look under way. */
  const wake = (): void => {
    if (closed) return;
    changedAt = Date.now();
    if (ticking) woken = true;
    else if (timer) {
      clearTimeout(timer);
      timer = setTimeout(loop, 0);
    }
  };
  const watchFile = (): void => {
    unwatch();
    if (opts.watch === false) return;
    try {
      watcher = watch(path, { persistent: false }, wake);
      watcher.on('error', unwatch);
    } catch {
      // No watch here (no inotify, its limit reached): the poll alone.
    }
  };
  function unwatch(): void {
    watcher?.close();
    watcher = null;
  }
  void loop();

  return {
    get offset() {
      return offset;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      unwatch();
      trouble.close();
      // Mid-tick, the loop closes the file when the tick ends; otherwise nothing else will.
      if (!ticking) {
        void fh?.close().catch(() => undefined);
        fh = null;
      }
    },
  };
}
