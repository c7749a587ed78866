// The end of a command's output. main.ts ends every command with process.exit (a stray timer must
// never hang a finished CLI), but a pipe whose reader is slower than us holds the rest of a big
// output queued in this process: measured here, `config show` of a 30,000-line config through
// `| wc -l` delivered 2,612 lines. So the queue is handed over first. And a reader that goes away
// early (`… | head`) ends the command quietly, never with an EPIPE stack trace.
import type { Writable } from 'node:stream';
import { writeSync } from 'node:fs';
import { EXIT } from './errors.js';

/** `… | head`: when stdout's reader goes away, exit 0 quietly (the command's work is done or
 *  moot; a detached run goes on). Any other failure to write (a full disk: ENOSPC) is one line on
 *  stderr and exit 1, never a stack trace. `before`: what must happen first (the demo stops its
 *  simulated run and removes its checkout). */
export function quietWhenStdoutCloses(before?: () => Promise<void>): void {
  if (process.stdout.listenerCount('error') > 0) return;
  let ending = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (ending) return;
    ending = true;
    if (err.code !== 'EPIPE') return before ? void before().finally(() => cannotWrite(err)) : cannotWrite(err);
    if (!before) process.exit(EXIT.ok);
    void before().finally(() => process.exit(EXIT.ok));
  });
}

/** Resolves once everything written so far to stdout and stderr has been handed to the OS, or its
 *  reader has gone away (a write callback runs after the writes queued before it). */
export async function flushStdio(): Promise<void> {
  // A write that failed (a full disk) says so in an 'error' event still to come: it is let come
  // first, so the exit code is its (quietWhenStdoutCloses), not the command's 0. Without that
  // handler (a reader gone: nothing more to say) the event is taken here, never thrown.
  for (const s of [process.stdout, process.stderr]) s.on('error', () => undefined);
  await new Promise<void>((resolve) => setImmediate(resolve));
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
}

function flush(stream: Writable): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    // The listener stays: the write's callback and its 'error' event come in either order.
    stream.on('error', () => resolve());
    stream.write('', () => resolve());
  });
}

/** Stdout cannot be written (a full disk): one line on stderr, exit 1. */
function cannotWrite(err: Error): never {
  try {
    writeSync(2, `awrl-tui: cannot write the output: ${err.message}\n`);
  } catch {
    // stderr is gone as well: the exit code says it
  }
  process.exit(EXIT.failed);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Writes all of `bytes` to stdout, synchronously. `… | head` closing the pipe early ends the
 *  command quietly. A pipe is non-blocking once anything made process.stdout (any stream's pipe()
 *  does): a full one is retried after a wait that starts at 50 µs and doubles up to 5 ms, since its
 *  reader usually empties it at once (a fixed 5 ms capped `follow --json` at 13 MB/s). */
export function writeStdoutSync(bytes: Uint8Array): void {
  let at = 0;
  let waitMs = 0.05;
  while (at < bytes.length) {
    try {
      at += writeSync(1, bytes, at, bytes.length - at);
      waitMs = 0.05;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(EXIT.ok);
      // Called from event handlers too, where a throw would be an uncaught stack trace: one line, exit 1.
      if (code !== 'EAGAIN') cannotWrite(e as Error);
      Atomics.wait(pause, 0, 0, waitMs);
      waitMs = Math.min(5, waitMs * 2);
    }
  }
}
