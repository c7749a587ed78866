// sentinel.json on disk: one JSON line (what the list script reads with `read -r`) padded with spaces
// after its newline to a fixed size (4 KiB, or the next multiple). Written whole or not at all
// (a temporary file renamed over it); when that fails (a full disk: creating the temporary file
// needs blocks the filesystem no longer has), written in place into the existing file, which never
// grows, so its blocks are already the file's: a sentinel on a full disk still beats, and is not
// called silent while it watches. One write of one page: a reader may in theory catch it half done
// (the line then does not parse, and that one look says no sentinel); a copy-on-write filesystem
// (btrfs, ZFS) may refuse even that, and the sentinel is then silent, as it should be.
import { closeSync, fstatSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

/** sentinel.json's size: one page, as long as its line fits. */
export const BEAT_BYTES = 4096;

/** The line, its newline, spaces up to `size` (null: it does not fit). */
export function padded(line: string, size: number): Buffer | null {
  const body = Buffer.from(`${line}\n`, 'utf8');
  if (body.length > size) return null;
  const out = Buffer.alloc(size, 0x20);
  body.copy(out);
  return out;
}

/** The size a line is written at: BEAT_BYTES, or the next multiple that holds it. */
export const beatSize = (line: string): number =>
  Math.ceil((Buffer.byteLength(line, 'utf8') + 1) / BEAT_BYTES) * BEAT_BYTES;

export interface BeatWriteError {
  code: string;
  message: string;
  path: string;
}

/** Writes whole (temp + rename); null on success, else why (the temporary file removed). */
export function writeWhole(path: string, line: string): BeatWriteError | null {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, padded(line, beatSize(line))!, { mode: 0o600 });
    renameSync(tmp, path);
    return null;
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
    return errorOf(e, tmp);
  }
}

/**
 * Writes `lines[0]` into the existing file at its own size, or the next of `lines` that fits (the
 * same beat with less in it); null on success, else why.
 */
export function writeInPlace(path: string, lines: string[]): BeatWriteError | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r+');
    const size = fstatSync(fd).size;
    const buf = lines.map((l) => padded(l, size)).find((b) => b !== null);
    if (!buf) return { code: 'EFBIG', message: `the beat does not fit in its ${size} bytes`, path };
    for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at, at);
    return null;
  } catch (e) {
    return errorOf(e, path);
  } finally {
    if (fd !== null) closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* what was written is written */
  }
}

function errorOf(e: unknown, path: string): BeatWriteError {
  const err = e as NodeJS.ErrnoException;
  return { code: err.code ?? 'EIO', message: err.message, path };
}
