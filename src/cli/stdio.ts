// The end of a command's output. main.ts ends every command with process.exit (a stray timer must
// never hang a finished CLI), but a pipe whose reader is slower than us holds the rest of a big
// output queued in this process: measured here, `config show` of a 30,000-line config through
// `| wc -l` delivered 2,612 lines. So the queue is handed over first. And a reader that goes away
// early (`… | head`) ends the command quietly, never with an EPIPE stack trace.
import type { Writable } from 'node:stream';

/** `… | head`: when stdout's reader goes away, exit 0 quietly (the command's work is done or
 *  moot; a detached run goes on). */
export function quietWhenStdoutCloses(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** Resolves once everything written so far to stdout and stderr has been handed to the OS, or its
 *  reader has gone away (a write callback runs after the writes queued before it). */
export async function flushStdio(): Promise<void> {
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
