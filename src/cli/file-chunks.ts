// The bytes of `parse`'s files, in order, as chunks, read in turn on the main thread. (They were
// read ahead on libuv's thread pool while the parser worked: less wall time on an idle machine,
// but more CPU time, the measure `parse` is held to.)
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CliError, EXIT } from './errors.js';

/** Opens every file first, so that a missing one is reported before any output. */
export function openAll(files: string[]): number[] {
  const fds: number[] = [];
  for (const f of files) {
    try {
      const fd = openSync(f, 'r');
      if (fstatSync(fd).isDirectory()) {
        closeSync(fd);
        throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      }
      fds.push(fd);
    } catch (e) {
      for (const fd of fds) closeSync(fd);
      const code = (e as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'is a directory'
              : (e as Error).message;
      throw new CliError(`cannot read ${f}: ${why}`, EXIT.usage, { code: 'file-unreadable' });
    }
  }
  return fds;
}

/** The files' bytes in order, `size` bytes at a time, read on this thread as the consumer asks:
 *  one buffer, so a yielded chunk is valid until the next one is asked for (the parser copies
 *  what it keeps). Rather than reading ahead on the thread pool, for less CPU time: no hand-off, no promise
 *  per chunk, and the bytes are still in this core's cache when they are parsed (`parse --json` of
 *  1 GB: 0.1-0.15 s less CPU time, test/bench/parse.bench.mjs). Every file is closed once read, or
 *  when the consumer stops early. */
export function* readChunksSync(
  fds: number[],
  files: string[],
  size: number,
  onFile?: (i: number) => void,
): Generator<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let i = 0;
  try {
    for (; i < fds.length; i++) {
      onFile?.(i);
      try {
        for (;;) {
          let n: number;
          try {
            n = readSync(fds[i], buf, 0, size, null);
          } catch (e) {
            throw new CliError(`cannot read ${files[i]}: ${(e as Error).message}`, EXIT.usage, {
              code: 'file-unreadable',
            });
          }
          if (n === 0) break;
          yield buf.subarray(0, n);
        }
      } finally {
        closeSync(fds[i]);
      }
    }
  } finally {
    // Files never reached (the consumer stopped early) are closed too.
    for (let k = i + 1; k < fds.length; k++) closeSync(fds[k]);
  }
}
