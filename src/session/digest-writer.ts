// Writing a run's digest (run-digest.ts) where the run is: the sentinel keeps it up to date every
// period, `sentinel start` on an ended run writes it once. Each update runs the one backfill filter
// (backfill-filter.ts) over what the log gained since the digest's end, and writes the old gzip plus
// the new member to a temporary file (0600) renamed over the digest: a reader sees the old digest or
// the new one, never a part. A digest that does not parse, whose gzip does not match its sum, or
// whose log was rotated or truncated since (the filter's identity check) is rebuilt from the log.
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import type { Transport } from '../remote/transport.js';
import { keyPatterns } from './backfill-filter.js';
import type { SnapshotResult, SnapshotWriter } from './snapshot-writer.js';
import { runFilter } from './filter-run.js';
import {
  DIGEST_HEADER_BYTES,
  formatDigestHeader,
  keysHash,
  parseDigestHeader,
  type DigestHeader,
} from './run-digest.js';

/** A period's update rewrites the digest only once the log grew by this part of what it covers, or
 *  this long after the last write: each write copies the whole digest (72 MB for a 5.4 GB log), so
 *  a long run's digest is not copied every 15 s; an attach filters the rest itself. */
const GROWTH_PART = 1 / 16;
const REWRITE_AFTER_MS = 5 * 60_000;

/** How the sentinel paces a period's rewrite beyond the growth rule: at least `minGapMs` after the
 *  last write (its young digest grows by a 16th every period; an attach reads the watch snapshot,
 *  itself written at most once a minute, and filters what the digest lacks). */
export type DigestPace = { minGapMs: number };

/** How far back from the log's end a line's end is looked for (no digest update without one). */
const SEAM_WINDOW = 256 << 10;

export interface DigestUpdate {
  /** Where the digest now ends in the log, and its gzip's size. */
  offset: number;
  gzBytes: number;
  /** Log bytes filtered by this update. */
  filtered: number;
  /** Why the digest was written from the log's start, if it was (none, unreadable, another log). */
  rebuilt: string | null;
  /** The watch snapshot written beside it (its bytes), or why not (none asked: absent). */
  snapshot?: SnapshotResult;
}

export class DigestWriter {
  private readonly patterns: string;
  private readonly keys: string;
  /** The digest as last written or checked, with the running sum of its gzip (null: none usable). */
  private state: { header: DigestHeader; hash: Hash } | null = null;
  private loaded = false;
  private snapshotUnwritten = false;
  /** The log's size when the digest was last written or checked up to its end: unchanged, nothing
   *  is read (a quiet run costs one stat). */
  private seenSize = -1;
  private writtenAt = 0;
  /** The log's size at the last look. */
  private size = -1;

  constructor(
    private readonly transport: Transport,
    private readonly logPath: string,
    private readonly path: string,
    keys?: readonly string[],
    /** The watch snapshot kept beside the digest (snapshot-writer.ts), if any, and where each of
     *  its writes is said, done or not (a digest update that rewrites nothing returns none). */
    private readonly snapshot?: SnapshotWriter,
    private readonly onSnapshot?: (r: SnapshotResult) => void,
    private readonly pace: DigestPace = { minGapMs: 0 },
  ) {
    this.patterns = keyPatterns(keys);
    this.keys = keysHash(this.patterns);
  }

  /** Brings the digest up to the log's last line end; null when there was nothing new, or (unless
   *  `force`: the sentinel's end, an ended run) too little to be worth a rewrite yet. */
  async update(o: { force?: boolean } = {}): Promise<DigestUpdate | null> {
    let why: string | null = null;
    if (!this.loaded) {
      this.loaded = true;
      why = await this.load();
    }
    const cut = await this.lineEnd();
    if (cut === null) return null;
    // The watch snapshot every time the log grew (a slow one less often): its write does not grow
    // with the log.
    const snapshot = await this.snapshot?.update(cut, this.patterns, this.keys, o.force);
    if (snapshot) this.onSnapshot?.(snapshot);
    // Not written (a full disk): tried again at the next update, even if the log stays as it is.
    if (snapshot) this.snapshotUnwritten = 'error' in snapshot;
    if (this.state && cut === this.state.header.offset) {
      this.seenSize = this.size;
      return null;
    }
    if (this.state && !o.force && cut > this.state.header.offset) {
      const grew = cut - this.state.header.offset;
      const since = Date.now() - this.writtenAt;
      if (grew < this.state.header.offset * GROWTH_PART && since < REWRITE_AFTER_MS) return null;
      if (since < this.pace.minGapMs) return null;
    }
    if (this.state && cut < this.state.header.offset) {
      why = 'the log is shorter than the digest (truncated or replaced)';
      this.state = null;
    }
    let from = this.state?.header.offset ?? 0;
    const f = await runFilter(this.transport, {
      logPath: this.logPath,
      cut,
      from,
      identity: this.state?.header.identity ?? '',
      patterns: this.patterns,
      name: 'awrl-digest',
    });
    if (this.state && f.from !== from) {
      why = 'the log is not the one digested (rotated, replaced or truncated)';
      this.state = null;
      from = 0;
    }
    const tmp = `${this.path}.${process.pid}.tmp`;
    const hash = this.state ? this.state.hash.copy() : createHash('sha256');
    let gzBytes = this.state?.header.gzBytes ?? 0;
    let fh: FileHandle | null = null;
    try {
      if (this.state) {
        await copyFile(this.path, tmp, constants.COPYFILE_FICLONE);
        fh = await open(tmp, 'r+');
        if ((await fh.stat()).size !== DIGEST_HEADER_BYTES + gzBytes) throw new Error('the digest changed under us');
      } else fh = await open(tmp, 'w', 0o600);
      await fh.chmod(0o600);
      const put = async (b: Buffer) => {
        hash.update(b);
        await fh!.write(b, 0, b.length, DIGEST_HEADER_BYTES + gzBytes);
        gzBytes += b.length;
      };
      if (f.rest.length) await put(f.rest);
      for (let r = await f.out.next(); !r.done; r = await f.out.next()) await put(r.value);
      await f.done();
      const header: DigestHeader = {
        keys: this.keys,
        offset: cut,
        identity: f.identity,
        gzBytes,
        sha256: hash.copy().digest('hex'),
      };
      await fh.write(formatDigestHeader(header), 0, DIGEST_HEADER_BYTES, 0);
      await fh.close();
      fh = null;
      await rename(tmp, this.path);
      this.state = { header, hash };
      this.writtenAt = Date.now();
      this.seenSize = this.size;
      const rebuilt = from === 0 ? (why ?? 'no digest yet') : null;
      return { offset: cut, gzBytes, filtered: cut - from, rebuilt, ...(snapshot ? { snapshot } : {}) };
    } catch (e) {
      f.stream.close();
      await fh?.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
  }

  /** The digest found in place, checked (header, keys, size, sum); else why it is not used. */
  private async load(): Promise<string | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch {
      return 'no digest yet';
    }
    try {
      const buf = Buffer.alloc(DIGEST_HEADER_BYTES);
      await fh.read(buf, 0, DIGEST_HEADER_BYTES, 0);
      const header = parseDigestHeader(buf);
      if (!header || header.keys !== this.keys) return 'the digest did not parse (or is for other keys)';
      if ((await fh.stat()).size !== DIGEST_HEADER_BYTES + header.gzBytes) return 'the digest is not whole';
      const hash = createHash('sha256');
      for await (const c of fh.createReadStream({ start: DIGEST_HEADER_BYTES, autoClose: false }))
        hash.update(c as Buffer);
      if (hash.copy().digest('hex') !== header.sha256) return "the digest's gzip does not match its sum";
      await chmod(this.path, 0o600).catch(() => undefined);
      this.state = { header, hash };
      return null;
    } finally {
      await fh.close();
    }
  }

  /** The log's last line end (null: no log, or no line end in its last 256 KiB). */
  private async lineEnd(): Promise<number | null> {
    const st = await this.transport.stat(this.logPath);
    if (!st || st.size === 0 || (st.size === this.seenSize && this.state && !this.snapshotUnwritten)) return null;
    this.size = st.size;
    const from = Math.max(0, st.size - SEAM_WINDOW);
    const bytes = await this.transport.readFile(this.logPath, { offset: from, length: st.size - from });
    const nl = bytes.lastIndexOf(0x0a);
    return nl < 0 ? null : from + nl + 1;
  }
}
