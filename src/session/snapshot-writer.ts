// The run's watch snapshot (run-digest.ts's SNAPSHOT_FILE) kept by the sentinel beside its digest:
// the digest writer hands each update's gzip of kept lines here too, a WatchReplay (the cockpit's
// attach replayed) takes them, and once the digest is renamed into place the replay's state at
// the same offset is written beside it (0600, a temporary file renamed over it, the digest's header
// form with the snapshot's bytes and sum). A replay that cannot start at the digest's offset (a
// sentinel started again on a run with a digest) first reads the digest's own gzip; a snapshot that
// cannot be written exactly (state-graph.ts says which part) is removed, and an attach then reads
// the digest as before.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { createGunzip, type Gunzip } from 'node:zlib';
import { once } from 'node:events';
import type { RunWatchFacts } from '../runs/run-facts.js';
import { DIGEST_HEADER_BYTES, formatDigestHeader, SNAPSHOT_KIND } from './run-digest.js';
import { WatchReplay } from './watch-replay.js';

/** One update's kept lines (gzipped) going into the replay. */
export interface SnapshotFeed {
  write(gz: Buffer): Promise<void>;
  /** All of the update's bytes are in: the replay has taken them. */
  end(): Promise<void>;
}

export class SnapshotWriter {
  private replay: WatchReplay | null = null;
  /** Log bytes the replay has taken (-1: none). */
  private at = -1;

  constructor(
    private readonly path: string,
    private readonly facts: Promise<RunWatchFacts>,
  ) {}

  /** The feed of an update that filters the log from `from`; the digest (`digestPath`, `digestGz`
   *  gzip bytes) covers [0, from) when from > 0. */
  async begin(from: number, digestPath: string, digestGz: number): Promise<SnapshotFeed> {
    if (!this.replay || this.at !== from) {
      this.replay = new WatchReplay(await this.facts);
      this.at = 0;
      if (from > 0) {
        const r = gunzipInto(this.replay);
        const end = DIGEST_HEADER_BYTES + digestGz - 1;
        for await (const c of createReadStream(digestPath, { start: DIGEST_HEADER_BYTES, end }))
          await r.write(c as Buffer);
        await r.end();
      }
    }
    return gunzipInto(this.replay);
  }

  /** The replay's state written as the snapshot at log offset `offset` (`identity` the log's there,
   *  `keys` the filter's keys' hash): its size, or why none was written (the old one removed). */
  async write(offset: number, identity: string, keys: string): Promise<{ bytes: number } | { error: string }> {
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      if (!this.replay) throw new Error('no replay');
      const body = this.replay.snapshot();
      this.at = offset;
      const sha256 = createHash('sha256').update(body).digest('hex');
      const header = formatDigestHeader({ keys, offset, identity, gzBytes: body.length, sha256 }, SNAPSHOT_KIND);
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.chmod(0o600);
        await fh.writev([header, body]);
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
      return { bytes: header.length + body.length };
    } catch (e) {
      this.replay = null;
      this.at = -1;
      await unlink(tmp).catch(() => undefined);
      await unlink(this.path).catch(() => undefined);
      return { error: (e as Error).message };
    }
  }

  /** The update failed: the replay took bytes the digest does not hold. */
  drop(): void {
    this.replay = null;
    this.at = -1;
  }
}

/** A gunzip whose output goes into `replay`. */
function gunzipInto(replay: WatchReplay): SnapshotFeed {
  const gz: Gunzip = createGunzip({ chunkSize: 256 * 1024 });
  let failed: Error | null = null;
  gz.on('data', (b: Buffer) => {
    if (!failed) replay.push(b);
  });
  gz.on('error', (e) => (failed = e));
  return {
    write: async (b) => {
      // events.once rejects on 'error' (then `failed` says it at the end).
      if (!gz.write(b) && !failed) await once(gz, 'drain').catch(() => undefined);
    },
    end: async () => {
      gz.end();
      if (!failed) await once(gz, 'end').catch(() => undefined);
      if (failed) throw failed;
    },
  };
}
