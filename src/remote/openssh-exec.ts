// One command through the user's `ssh` (openssh-transport.ts): the child process, its stdin (bytes,
// sent again on a retry, or the caller's stream), its stdout handed on, its stderr held until the
// first stdout byte (or its end, or 4 KiB) so that a session the master refused (MaxSessions: the
// person's own terminals count too) is dropped whole and the command asked again.
import { spawn, type ChildProcess } from 'node:child_process';
import type { PassThrough } from 'node:stream';

const STDERR_CAP = 64 << 20; // beyond this, unread stderr is dropped rather than stalling stdout
const STDERR_TAIL = 4096;
/** The master could not open the session (MaxSessions reached): nothing ran. */
const SESSION_REFUSED = /Session open refused|session request failed|open failed|administratively prohibited/;

export interface SshRun {
  exit: { code: number | null; signal: string | null };
  /** The last 4 KiB of its stderr (the ssh client's own words, if any, are there). */
  tail: string;
  /** The master refused the session: nothing ran, nothing was handed on. */
  refused: boolean;
}

export async function runSshCommand(
  args: string[],
  bytes: string | Buffer | undefined,
  io: { stdin: PassThrough; stdout: PassThrough; stderr: PassThrough },
  hooks: { heard: () => void; started: (c: ChildProcess) => void; ended: (c: ChildProcess) => void },
): Promise<SshRun> {
  const c = spawn('ssh', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let tail = '';
  let held: Buffer[] | null = [];
  let heldBytes = 0;
  const flush = (): void => {
    for (const b of held ?? []) if (io.stderr.readableLength < STDERR_CAP) io.stderr.write(b);
    held = null;
  };
  c.stdout.on('data', (b: Buffer) => {
    hooks.heard();
    if (held) flush();
    io.stdout.write(b);
  });
  // Always drained: a full stderr pipe would stop the command's stdout too.
  c.stderr.on('data', (b: Buffer) => {
    hooks.heard();
    tail = (tail + b.toString('utf8')).slice(-STDERR_TAIL);
    if (held && (heldBytes += b.length) <= STDERR_TAIL) held.push(b);
    else {
      flush();
      if (io.stderr.readableLength < STDERR_CAP) io.stderr.write(b);
    }
  });
  c.stdin.on('error', () => undefined);
  if (bytes !== undefined) c.stdin.end(bytes);
  else io.stdin.pipe(c.stdin);
  hooks.started(c);
  const exit = await new Promise<SshRun['exit']>((resolve, reject) => {
    c.once('error', reject);
    c.once('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    hooks.ended(c);
    io.stdin.unpipe(c.stdin);
  });
  const refused = held !== null && exit.code === 255 && SESSION_REFUSED.test(tail);
  if (!refused) flush();
  return { exit, tail, refused };
}
