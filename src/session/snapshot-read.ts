// The attach's side of the run's watch snapshot (run-digest.ts's SNAPSHOT_FILE): what the filter's
// header line says of it and of the digest, and the snapshot's bytes taken off the stream and
// restored before the gzip of the log after it (backfill.ts).
import { decodeWatchSnapshot, type WatchSnapshot } from '../watch/watch-snapshot.js';
import { SNAPSHOT_REFUSED } from './run-digest.js';

/** The words after the filter's `FROM INODE HEAD SEAM`: ` digest GZBYTES`, ` snapshot BYTES`, or
 *  ` nosnapshot WHY` (a snapshot there but not usable: said in `onNote`). */
export function headerWords(more: string[], onNote?: (text: string) => void): { digestGz: number; snapshot: number } {
  const said = (w: string) => (more.includes(w) ? (more[more.indexOf(w) + 1] ?? '') : '');
  const refused = said('nosnapshot');
  if (refused) onNote?.(`the run's watch snapshot was not used (${SNAPSHOT_REFUSED[refused] ?? refused})`);
  return { digestGz: Number(said('digest')) || 0, snapshot: Number(said('snapshot')) || 0 };
}

/** The snapshot's `size` bytes off the stream (`have` came with the header line), restored by
 *  `restore` (which throws when it cannot take it: nothing taken); what follows them, and why it
 *  was not restored, if it was not. */
export async function takeSnapshot(
  it: AsyncIterator<Buffer>,
  have: Buffer,
  size: number,
  restore: (s: WatchSnapshot) => void,
): Promise<{ rest: Buffer; why: string | null }> {
  const { bytes, rest } = await takeBytes(it, have, size);
  if (bytes.length < size) return { rest, why: 'it was cut short' };
  try {
    restore(decodeWatchSnapshot(bytes));
    return { rest, why: null };
  } catch (e) {
    return { rest, why: (e as Error).message };
  }
}

/** `n` bytes of a stream that already gave `have`: them, and what came after them. */
async function takeBytes(it: AsyncIterator<Buffer>, have: Buffer, n: number): Promise<{ bytes: Buffer; rest: Buffer }> {
  const parts = [have];
  let got = have.length;
  while (got < n) {
    const r = await it.next();
    if (r.done) break;
    parts.push(r.value);
    got += r.value.length;
  }
  const all = Buffer.concat(parts);
  return { bytes: all.subarray(0, n), rest: all.subarray(n) };
}
