// The bytes of `parse`'s files, in order, as chunks. The next chunk is read on libuv's thread
// pool while the caller parses the current one: reading a big log from the page cache is a
// tenth of the parse time, and it need not wait for the parser.
import { closeSync, fstatSync, openSync, read } from 'node:fs';
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

function readInto(fd: number, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buf, 0, buf.length, null, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

/** The files' bytes in order, `size` bytes at a time, with one read ahead. Two buffers take
 *  turns: a yielded chunk stays valid until the consumer asks for the next one (the parser copies
 *  what it keeps). Every file is closed once read, or when the consumer stops early, but never
 *  while a read on it is still in flight. `onFile(i)`: file i is about to be read (its chunks
 *  follow, up to the next call). */
export async function* readAhead(
  fds: number[],
  files: string[],
  size: number,
  onFile?: (i: number) => void,
): AsyncGenerator<Buffer> {
  const bufs = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let turn = 0;
  let i = 0;
  try {
    for (; i < fds.length; i++) {
      onFile?.(i);
      let pending: Promise<number> | null = readInto(fds[i], bufs[turn]);
      try {
        for (;;) {
          const n: number = await pending;
          pending = null;
          if (n === 0) break;
          const chunk = bufs[turn].subarray(0, n);
          turn ^= 1;
          pending = readInto(fds[i], bufs[turn]);
          yield chunk;
        }
      } catch (e) {
        if (e instanceof CliError) throw e;
        throw new CliError(`cannot read ${files[i]}: ${(e as Error).message}`, EXIT.usage, { code: 'file-unreadable' });
      } finally {
        // The consumer stopped early (or a read failed): let the read in flight end first.
        if (pending !== null) await pending.catch(() => 0);
        closeSync(fds[i]);
      }
    }
  } finally {
    // Files never reached (the consumer stopped early) are closed too.
    for (let k = i + 1; k < fds.length; k++) closeSync(fds[k]);
  }
}
