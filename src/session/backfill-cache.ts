// What a backfill received, kept so that the next attach to the same log only filters what is new.
// Kept locally (under $XDG_CACHE_HOME/awrl-tui, else ~/.cache/awrl-tui), not in the run dir on the
// target: a run dir may be another user's or read-only, a cockpit should not write into a run it
// only watches, and reading the cache back costs no round trip and no bytes over the network.
//
// One file per (target, log path): the gzipped filtered lines as they came over the wire (each
// attach appends one gzip member), then a JSON trailer and its length. The trailer says where the
// lines end in the log (`offset`, a line's end), the log's identity there (inode, cksum of its first
// 4 KiB, or all of it before then, and of the 4 KiB before `offset`: the filter script checks it on the target before it
// trusts the cache), the format version and filter keys (a change of either invalidates), and a
// sha256 of the gzipped bytes (checked before any byte is used: a damaged file is ignored).
// Written to a temporary file and renamed (concurrent cockpits: the last complete one wins); the
// directory is kept under a total size, least recently used first out.
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, utimes, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** Bumped whenever what a cache file holds, or how it is read, changes. */
export const BACKFILL_CACHE_VERSION = 1;
const TRAILER_LEN_BYTES = 11; // `%010d\n`
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

export interface CacheTrailer {
  v: number;
  /** sha256 of the filter's key patterns: other keys, other lines kept. */
  keys: string;
  target: string;
  path: string;
  /** Where the cached lines end in the log (just past a newline). */
  offset: number;
  /** `INODE HEADCKSUM SEAMCKSUM` of the log at `offset`, as the filter script prints it. */
  identity: string;
  gzBytes: number;
  sha256: string;
}

export interface CacheHit {
  offset: number;
  identity: string;
  gzBytes: number;
  /** The gzipped lines (verified); call at most once. */
  read(): Readable;
  close(): Promise<void>;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'awrl-tui', 'backfill');
}

export class BackfillCache {
  readonly dir: string;
  private readonly keys: string;
  private readonly maxBytes: number;

  /** `keys`: what the filter keeps, as a string (its patterns): another one is another cache. */
  constructor(o: { keys: string; dir?: string; maxBytes?: number }) {
    this.dir = o.dir ?? defaultCacheDir();
    this.keys = createHash('sha256').update(o.keys).digest('hex');
    this.maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  fileFor(target: string, path: string): string {
    const h = createHash('sha256').update(`${target}\n${path}`).digest('hex').slice(0, 32);
    return join(this.dir, `v${BACKFILL_CACHE_VERSION}-${h}.gz`);
  }

  /** The cached lines of this log, verified, or null (none, another version or keys, damaged). */
  async lookup(target: string, path: string): Promise<CacheHit | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.fileFor(target, path), 'r');
    } catch {
      return null;
    }
    try {
      const t = await readTrailer(fh);
      if (!t || t.v !== BACKFILL_CACHE_VERSION || t.keys !== this.keys || t.target !== target || t.path !== path)
        throw new Error('not this cache');
      const h = createHash('sha256');
      for await (const c of fh.createReadStream({ start: 0, end: t.gzBytes - 1, autoClose: false }))
        h.update(c as Buffer);
      if (t.gzBytes === 0 || h.digest('hex') !== t.sha256) throw new Error('damaged');
      const now = new Date();
      await utimes(this.fileFor(target, path), now, now).catch(() => undefined);
      return {
        offset: t.offset,
        identity: t.identity,
        gzBytes: t.gzBytes,
        read: () => fh.createReadStream({ start: 0, end: t.gzBytes - 1, autoClose: false }),
        close: () => fh.close(),
      };
    } catch {
      await fh.close();
      return null;
    }
  }

  /** A new cache file for this log, written as the bytes come and put in place by `commit`. */
  async writer(target: string, path: string): Promise<CacheWriter> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const final = this.fileFor(target, path);
    const tmp = `${final}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    return new CacheWriter(tmp, final, { v: BACKFILL_CACHE_VERSION, keys: this.keys, target, path }, this);
  }

  /** Keeps the directory under its size: least recently used files out first. */
  async prune(keep: string): Promise<void> {
    const files = await Promise.all(
      (await readdir(this.dir)).map(async (n) => {
        const p = join(this.dir, n);
        const s = await stat(p).catch(() => null);
        return s ? { p, size: s.size, at: s.mtimeMs } : null;
      }),
    );
    let total = 0;
    const live = files.filter((f): f is NonNullable<typeof f> => f !== null).sort((a, b) => b.at - a.at);
    for (const f of live) {
      total += f.size;
      if (total > this.maxBytes && f.p !== keep) await unlink(f.p).catch(() => undefined);
    }
  }

  get limit(): number {
    return this.maxBytes;
  }
}

export class CacheWriter {
  private readonly out: WriteStream;
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private failed = false;

  constructor(
    private readonly tmp: string,
    private readonly final: string,
    private readonly base: Pick<CacheTrailer, 'v' | 'keys' | 'target' | 'path'>,
    private readonly cache: BackfillCache,
  ) {
    this.out = createWriteStream(tmp, { mode: 0o600 });
    this.out.on('error', () => (this.failed = true));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.failed) return;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    // Over half the directory's limit: not worth keeping (the next attach filters it all again).
    if (this.bytes > this.cache.limit / 2) this.failed = true;
    else if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  async commit(offset: number, identity: string): Promise<void> {
    if (this.failed || this.bytes === 0) return this.abort();
    const t: CacheTrailer = { ...this.base, offset, identity, gzBytes: this.bytes, sha256: this.hash.digest('hex') };
    const json = JSON.stringify(t);
    this.out.end(`${json}${String(Buffer.byteLength(json)).padStart(TRAILER_LEN_BYTES - 1, '0')}\n`);
    await once(this.out, 'close');
    if (this.failed) return this.abort();
    await rename(this.tmp, this.final);
    await this.cache.prune(this.final).catch(() => undefined);
  }

  async abort(): Promise<void> {
    this.failed = true;
    if (!this.out.closed) {
      this.out.destroy();
      await once(this.out, 'close').catch(() => undefined);
    }
    await unlink(this.tmp).catch(() => undefined);
  }
}

async function readTrailer(fh: FileHandle): Promise<CacheTrailer | null> {
  const size = (await fh.stat()).size;
  if (size < TRAILER_LEN_BYTES) return null;
  const tail = Buffer.alloc(TRAILER_LEN_BYTES);
  await fh.read(tail, 0, TRAILER_LEN_BYTES, size - TRAILER_LEN_BYTES);
  const len = Number(tail.toString('latin1').trim());
  if (!Number.isInteger(len) || len <= 0 || len > 64 * 1024 || len > size - TRAILER_LEN_BYTES) return null;
  const json = Buffer.alloc(len);
  await fh.read(json, 0, len, size - TRAILER_LEN_BYTES - len);
  const t = JSON.parse(json.toString('utf8')) as CacheTrailer;
  if (!Number.isSafeInteger(t.offset) || t.offset <= 0 || typeof t.identity !== 'string') return null;
  if (!Number.isSafeInteger(t.gzBytes) || t.gzBytes + len + TRAILER_LEN_BYTES !== size) return null;
  return t;
}
