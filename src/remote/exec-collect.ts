// A command's whole output, for `exec` over a remote transport (ssh2 or the user's OpenSSH): its
// status first, then both streams to their end (the status can come before the last bytes).
import type { PassThrough } from 'node:stream';
import type { ExecResult, ExecStream } from './transport.js';

export async function collectExec(s: ExecStream): Promise<ExecResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  s.stdout.on('data', (b: Buffer) => out.push(b));
  s.stderr.on('data', (b: Buffer) => err.push(b));
  const r = await s.done;
  await Promise.all([ended(s.stdout), ended(s.stderr)]);
  return { ...r, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}

/** Resolves once the stream has ended (at once if it already has), closed or failed. */
export function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    if ((stream as PassThrough).readableEnded) return resolve();
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
