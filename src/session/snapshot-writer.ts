// The run's watch snapshot (run-digest.ts's SNAPSHOT_FILE) kept by the sentinel beside its digest:
// every period the log grew, the backfill filter's kept lines of what it gained go through a
// WatchReplay (the cockpit's attach replayed) and the replay's state at the log's last line end is
// written (0600, a temporary file renamed over it, the digest's header form with the snapshot's
// bytes and sum). Unlike the digest, whose rewrite copies it whole and so waits for the log to grow
// by a 16th, the snapshot's size does not grow with the log: it is kept at the log's end, and an
// attach reads after it only what came since the last period. A log rotated or truncated (the
// filter's identity check) is replayed from its start; a snapshot that cannot be written exactly
// (state-graph.ts says which part) is removed, said, and an attach reads the digest as before; one
// whose write is refused (a full disk) stays as it was, and is written at the next period.
import { createHash } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { once } from 'node:events';
import type { Transport } from '../remote/transport.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import { formatDigestHeader, SNAPSHOT_KIND } from './run-digest.js';
import { WatchReplay } from './watch-replay.js';
import { runFilter } from './filter-run.js';

/** The snapshot is written at most every two minutes (an attach reads the little the log gained
 *  since: two minutes of a run, a step or two), and a state slow to bring up to date (≥ 50 ms: the
 *  filter, the replay, the encoding) at most once per SPACING times that (0.5 % of a core): written
 *  at every 15 s period it cost the sentinel 0.55 % of a core on the simulator's run (1.2 → 1.8 %);
 *  once a minute, ~0.18 s of CPU each (0.3 %). The sentinel's end writes it anyway. */
const MIN_GAP_MS = 120_000;
const SLOW_MS = 50;
const SPACING = 200;
export type SnapshotPace = { minGapMs: number; slowMs: number; spacing: number };

/** A snapshot written (its bytes), or why not: `code` (ENOSPC…) and `path` when a write was refused. */
export type SnapshotResult = { bytes: number } | { error: string; code?: string; path?: string };

export class SnapshotWriter {
  private replay: WatchReplay | null = null;
  /** How long the last write took (ms: filter, replay, encoding), and when it was written. */
  private cost = 0;
  private writtenAt = -Infinity;
  /** Where the replay stands in the log, and the log's identity there. */
  private at = 0;
  private identity = '';
  /** The replay stands at `at` but its snapshot could not be written there (a full disk). */
  private unwritten = false;

  constructor(
    private readonly transport: Transport,
    private readonly logPath: string,
    private readonly path: string,
    private readonly facts: Promise<RunWatchFacts>,
    /** How often it is written (tests: at every update, or a small log's state counted as slow). */
    private readonly pace: SnapshotPace = { minGapMs: MIN_GAP_MS, slowMs: SLOW_MS, spacing: SPACING },
  ) {}

  /** The replay brought to `cut` (a line end of the log) with the filter's `patterns`, and the
   *  snapshot written there (`keys`: their hash): its size, why not, or null (nothing new, or a
   *  slow state written too recently: unless `force`, the sentinel's end). */
  async update(cut: number, patterns: string, keys: string, force = false): Promise<SnapshotResult | null> {
    if (this.replay && cut === this.at && !this.unwritten) return null;
    // Paced from the last snapshot written: one refused (a full disk) is tried at every update.
    const started = performance.now();
    const slow = this.cost >= this.pace.slowMs ? this.cost * this.pace.spacing : 0;
    if (!force && started - this.writtenAt < Math.max(this.pace.minGapMs, slow)) return null;
    let body: Buffer;
    try {
      // A snapshot left unwritten at this cut (a full disk) is only written: the replay stands there.
      if (!(this.replay && cut === this.at)) await this.replayTo(cut, patterns);
      body = this.replay!.snapshot();
    } catch (e) {
      // The replay may hold part of what it was given: it starts again from the log's start.
      this.replay = null;
      this.at = 0;
      await unlink(this.path).catch(() => undefined);
      return { error: (e as Error).message };
    }
    const sha256 = createHash('sha256').update(body).digest('hex');
    const header = formatDigestHeader(
      { keys, offset: cut, identity: this.identity, gzBytes: body.length, sha256 },
      SNAPSHOT_KIND,
    );
    return this.write(header, body, started);
  }

  /** The replay brought to `cut` (from where it stands, or from the log's start). */
  private async replayTo(cut: number, patterns: string): Promise<void> {
    const from = this.replay && cut > this.at ? this.at : 0;
    const f = await runFilter(this.transport, {
      logPath: this.logPath,
      cut,
      from,
      identity: from ? this.identity : '',
      patterns,
      name: 'awrl-snapshot',
    });
    // Another log (rotated, replaced, truncated) or none yet: replayed from its start.
    if (f.from !== from || !this.replay) this.replay = new WatchReplay(await this.facts);
    this.at = -1;
    const replay = this.replay;
    const gz = createGunzip({ chunkSize: 256 * 1024 });
    gz.on('data', (b: Buffer) => replay.push(b));
    const ended = once(gz, 'end');
    if (f.rest.length && !gz.write(f.rest)) await once(gz, 'drain');
    for (let r = await f.out.next(); !r.done; r = await f.out.next()) if (!gz.write(r.value)) await once(gz, 'drain');
    gz.end();
    await ended;
    await f.done();
    this.at = cut;
    this.identity = f.identity;
  }

  /** Whole or not at all. A write refused (a full disk) leaves the last snapshot, which is still
   *  right at its own offset, and the replay, which is whole at the cut: written at the next call. */
  private async write(header: Buffer, body: Buffer, started: number): Promise<SnapshotResult> {
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.chmod(0o600);
        await fh.writev([header, body]);
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
      this.unwritten = false;
      this.writtenAt = performance.now();
      this.cost = this.writtenAt - started;
      return { bytes: header.length + body.length };
    } catch (e) {
      this.unwritten = true;
      await unlink(tmp).catch(() => undefined);
      const err = e as NodeJS.ErrnoException;
      return { error: err.message, ...(err.code ? { code: err.code } : {}), path: this.path };
    }
  }
}
