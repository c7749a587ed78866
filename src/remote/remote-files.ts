// What every remote transport does the same way through its own `exec`: read, stat and write files
// with the bash scripts of remote-scripts.ts, and follow a log with the framed follower
// (ssh-follow.ts). ssh2 and OpenSSH differ only in how a command reaches the target.
import type { FileStat, FollowOptions, Transport } from './transport.js';
import type { OpenTransportOptions } from './options.js';
import { remoteScript } from './quote.js';
import { READ_SCRIPT, STAT_SCRIPT, WRITE_SCRIPT } from './remote-scripts.js';
import type { RemoteFollowOptions } from './ssh-follow.js';

type Execs = Pick<Transport, 'exec' | 'target'>;

export async function readRemoteFile(
  t: Execs,
  path: string,
  opts: { offset?: number; length?: number } = {},
): Promise<Buffer> {
  const r = await t.exec(
    remoteScript(READ_SCRIPT, [path, String(opts.offset ?? 0), opts.length === undefined ? '' : String(opts.length)]),
  );
  if (r.code !== 0) throw new Error(`${t.target}: ${r.stderr.toString().trim() || `cannot read ${path}`}`);
  return r.stdout;
}

/** The target lacks a command awrl-tui runs there (GNU `stat`, …), or has one that does not work
 *  as GNU coreutils' does (BusyBox): nothing about the run can be said; the user must fix the target. */
export class TargetCommandMissing extends Error {
  override name = 'TargetCommandMissing';
  constructor(
    readonly target: string,
    readonly command: string,
    why: string,
  ) {
    super(
      `${target}: awrl-tui needs GNU coreutils' \`${command}\` on the target's PATH (${why}); ` +
        `install coreutils there or put it first on the login PATH (~/.bashrc)`,
    );
  }
}

export async function statRemote(t: Execs, path: string): Promise<FileStat | null> {
  const r = await t.exec(remoteScript(STAT_SCRIPT, [path]));
  const out = r.stdout.toString().trim();
  const err = r.stderr.toString().trim();
  // The path exists (the script said `missing` otherwise): a stat that fails or answers in another
  // shape is the target's stat, not the file.
  if (r.code === 127 || /\bstat: (command )?not found/.test(err))
    throw new TargetCommandMissing(t.target, 'stat', 'there is no `stat` command');
  if (r.code !== 0 && /(unrecognized|invalid|illegal|unknown) option|BusyBox|^usage:/im.test(err))
    throw new TargetCommandMissing(t.target, 'stat', `its stat does not take -L -c: ${err.split('\n')[0]}`);
  if (r.code !== 0) throw new Error(`${t.target}: cannot stat ${path}: ${err}`);
  if (out === 'missing') return null;
  // `INODE SIZE EPOCH YYYY-MM-DD HH:MM:SS.NNNNNNNNN +ZZZZ`
  if (!/^\d+ \d+ \d+ \S+ \S+/.test(out))
    throw new TargetCommandMissing(t.target, 'stat', `its stat answered '${out.slice(0, 60)}'`);
  const [ino, size, epoch, , time] = out.split(' ');
  const frac = /\.(\d+)/.exec(time ?? '')?.[1] ?? '0';
  return {
    inode: Number(ino),
    size: Number(size),
    mtimeMs: Number(epoch) * 1000 + Math.floor(Number(`0.${frac}`) * 1000),
  };
}

export async function writeRemoteFileAtomic(t: Execs, path: string, bytes: string | Buffer, mode = 0o644) {
  const r = await t.exec(remoteScript(WRITE_SCRIPT, [path, mode.toString(8)]), { stdin: bytes });
  if (r.code !== 0) throw new Error(`${t.target}: cannot write ${path}: ${r.stderr.toString().trim()}`);
}

/** The follower's settings from the transport's options (defaults: the production values). */
export function remoteFollowOptions(
  opts: OpenTransportOptions,
  fo: FollowOptions | undefined,
  onProgress: () => void,
): RemoteFollowOptions {
  return {
    borrowBytes: fo?.borrowBytes ?? false,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 10_000,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 30_000,
    pollMs: opts.followPollMs ?? 100,
    ...(opts.followQuietPollMs !== undefined ? { quietPollMs: opts.followQuietPollMs } : {}),
    ...(opts.followResident !== undefined ? { resident: opts.followResident } : {}),
    ...(opts.followCompressMinBytes !== undefined ? { compressMinBytes: opts.followCompressMinBytes } : {}),
    ...(opts.followCompressJobs !== undefined ? { compressJobs: opts.followCompressJobs } : {}),
    ...(opts.followCompressChunkBytes !== undefined ? { compressChunkBytes: opts.followCompressChunkBytes } : {}),
    ...(opts.followCompressCodec !== undefined ? { compressCodec: opts.followCompressCodec } : {}),
    onProgress,
  };
}
