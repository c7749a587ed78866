// Attaching to a long run: its history comes from the log, but not the whole log through SSH.
// First the raw tail (a few MiB): it says where the history ends (the last line end: following
// goes on from there), gives the log pane its lines and a preview of the last steps at once.
// Then the history before that seam, through the target-side filter (backfill-filter.ts: the
// record headers and the table rows the panels and alert rules read), gzipped, streamed: gunzipped
// and read a chunk at a time by the reader that goes on following, its records handed on as they
// come (nothing holds the whole history). A local cache (backfill-cache.ts) keeps what was
// received: the next attach to the same log filters only what is new since. Where the run's
// sentinel keeps a digest (run-digest.ts: the same kept lines, up to a recent offset), the target
// sends it and filters only the log after it.
import { createGunzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { ExecStream, Transport } from '../remote/transport.js';
import { TrainerLogReader, type LogLine } from '../trainer-log/index.js';
import type { HealthEvent } from '../health/index.js';
import { FILTER_SCRIPT, PROGRESS_LINE, keyPatterns } from './backfill-filter.js';
import { BackfillCache, type CacheHit, type CacheWriter } from './backfill-cache.js';
import { DIGEST_MIN_GAIN_BYTES, keysHash } from './run-digest.js';
import type { WatchSnapshot } from '../watch/watch-snapshot.js';
import type { LogTail } from '../watch/follow-alerts.js';
import { headerWords, takeSnapshot } from './snapshot-read.js';

export { BACKFILL_KEYS } from './backfill-filter.js';

/** Raw bytes read first at the log's end (the seam, the log pane's lines, the last steps): a
 *  64th of the log, at least 256 KiB (the pane's 500 lines), at most 4 MiB (~70 steps of tables). */
/** Raw bytes before the seam read into the log pane (its ring holds 500 lines). */
const PANE_BYTES = 256 * 1024;

export function tailBytes(size: number): number {
  return Math.min(4 << 20, Math.max(256 << 10, Math.ceil(size / 64)));
}

export interface BackfillProgress {
  /** Bytes of the log's history read so far (the cached part included), of `totalBytes`. */
  readBytes: number;
  totalBytes: number;
}

export interface BackfillTail {
  /** The log pane's lines just before the seam (read by the reader that goes on following). */
  lines: LogLine[];
  /** Bytes before the tail exist and are not in `lines`. */
  midLog: boolean;
  /** The records of the tail alone (a fresh reader's): the last steps, for a preview. */
  preview: HealthEvent[];
}

export interface BackfillOptions {
  /** The history's records, in log order, a chunk at a time. Absent: collected into `events`. */
  onEvents?(events: HealthEvent[]): void;
  onProgress?(p: BackfillProgress): void;
  /** The raw tail, before any history. */
  onTail?(t: BackfillTail): void;
  /** null: no cache. Default: none (the cockpit passes one). */
  cache?: BackfillCache | null;
  tailBytes?: number;
  /** Aborted: the filter is stopped (its channel closed) and the backfill rejects. */
  signal?: AbortSignal;
  /** The stats keys whose table rows cross (default BACKFILL_KEYS: what the panels and rules read);
   *  a cache must be made for the same keys. */
  keys?: readonly string[];
  /** The run's digest on the target (run-digest.ts's digestPathFor), used when it is this log's and
   *  covers more than the cache; null or absent: none. */
  digest?: string | null;
  /** The run's watch snapshot beside the digest (run-digest.ts's snapshotPathFor; only with
   *  `digest`): where it is this log's, its state is restored (`restore`) and only the log after
   *  it is read. One that does not decode or restore: the backfill again without it, said in
   *  `onNote`. */
  snapshot?: string | null;
  /** The watch takes a snapshot's state into its own objects and `reader`; throws when it is not
   *  one it can take (another version, another config). */
  restore?(s: WatchSnapshot, reader: TrainerLogReader): void;
  /** One line about how the history was read (a snapshot not used, and why). */
  onNote?(text: string): void;
  /** The log's last bytes up to `size`, read already (with the silence's measure): the raw tail is
   *  read only where it starts before them. */
  tail?: LogTail;
  /** Only the digest or the snapshot: without a usable one nothing is filtered and the result
   *  starts at 0 with a fresh reader (the caller reads the whole log, as without a backfill: `follow`). */
  digestOnly?: boolean;
}

export interface BackfillResult {
  /** Byte offset in the log where following must continue. */
  offset: number;
  /** The reader holding any record still open at `offset`: give it to the follower. */
  reader: TrainerLogReader;
  /** The records when no `onEvents` was given (else empty). */
  events: HealthEvent[];
  /** Records handed on (to `onEvents` or `events`). */
  records: number;
  /** Bytes that crossed the network (the raw tail and the gzipped history) vs bytes of log covered. */
  sentBytes: number;
  coveredBytes: number;
  /** Bytes of log whose history came from the local cache. */
  cachedBytes: number;
  /** Bytes of log whose history came from the run's digest (where following the filter started),
   *  and the digest's gzipped bytes sent (0, 0: not used). */
  digestBytes: number;
  digestGzBytes: number;
  /** Bytes of log whose state came from the run's watch snapshot, and the snapshot's bytes sent (0, 0: none). */
  snapshotBytes: number;
  snapshotSize: number;
}

/** A cache for the filter's current keys, in the default directory. */
export function defaultBackfillCache(dir?: string): BackfillCache {
  return new BackfillCache({ keys: keyPatterns(), ...(dir ? { dir } : {}) });
}

export async function backfill(
  transport: Transport,
  logPath: string,
  size: number,
  opts: BackfillOptions = {},
): Promise<BackfillResult> {
  const cache = opts.cache ?? null;
  let hit: CacheHit | null = cache ? await cache.lookup(transport.target, logPath) : null;
  // With the history cached, the tail read is what is new (the pane's 256 KiB at least): a second
  // attach moves what the log gained, not its last MiBs again.
  const want = opts.tailBytes ?? tailBytes(size);
  const fresh = hit && hit.offset <= size ? Math.max(256 << 10, size - hit.offset) : want;
  const tailFrom = Math.max(0, size - Math.min(want, fresh));
  let tail: Awaited<ReturnType<typeof readTail>> | null;
  try {
    tail = await readTail(transport, logPath, tailFrom, size, opts.tail);
    if (tail.bytes.lastIndexOf(0x0a) < 0 && tailFrom > 0)
      throw new Error(`no line ends in the last ${size - tailFrom} bytes of ${logPath}`);
  } catch (err) {
    await hit?.close();
    throw err;
  }
  const lastNl = tail.bytes.lastIndexOf(0x0a);
  const cut = tailFrom + lastNl + 1;
  const reader = new TrainerLogReader();
  // Told once the filter is started (the target filters while the tail is read here), then
  // dropped: the tail's bytes (up to 4 MiB) are not kept while the history is read, nor after.
  let tellTail: (() => void) | null = tailTeller(tail, lastNl, reader, opts);
  const showTail = (): void => {
    const tell = tellTail;
    tellTail = null;
    tell?.();
  };

  const events: HealthEvent[] = [];
  let records = 0;
  const hand = (b: Buffer): void => {
    const e = reader.pushEventsOnly(b);
    if (e.length === 0) return;
    records += e.length;
    if (opts.onEvents) opts.onEvents(e);
    else for (const x of e) events.push(x);
  };
  const done = { offset: cut, reader, events, records: 0, sentBytes: tail.bytes.length, coveredBytes: cut };
  tail = null;
  if (cut === 0) {
    await hit?.close();
    showTail();
    return { ...done, cachedBytes: 0, digestBytes: 0, digestGzBytes: 0, snapshotBytes: 0, snapshotSize: 0 };
  }
  if (hit && hit.offset > cut) {
    await hit.close();
    hit = null;
  }
  let writer: CacheWriter | null = null;
  let s: ExecStream | null = null;
  try {
    if (opts.signal?.aborted) throw new Error('the backfill was stopped');
    const from = hit?.offset ?? 0;
    s = transport.execStream(
      [
        'bash',
        '-c',
        FILTER_SCRIPT,
        'awrl-backfill',
        String(cut),
        logPath,
        String(from),
        hit?.identity ?? '',
        keyPatterns(opts.keys),
        ...(opts.digest
          ? [
              opts.digest,
              keysHash(keyPatterns(opts.keys)),
              String(DIGEST_MIN_GAIN_BYTES),
              opts.digestOnly ? '1' : '0',
              ...(opts.snapshot && opts.restore ? [opts.snapshot] : []),
            ]
          : []),
      ],
      { stdin: '', ...(opts.signal ? { signal: opts.signal } : {}) },
    );
    opts.onProgress?.({ readBytes: 0, totalBytes: cut });
    showTail();
    const errors: string[] = [];
    readProgress(s.stderr, errors, (pos) => opts.onProgress?.({ readBytes: Math.min(pos, cut), totalBytes: cut }));
    const out = s.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head = await firstLine(out);
    const [gotFrom, ino, headCk, seamCk, ...more] = head.line.split(' ');
    if (!/^\d+$/.test(gotFrom ?? '') || !seamCk) {
      s.close();
      await s.done.catch(() => undefined);
      throw new Error(`the backfill filter failed on ${transport.target}: ${errors.at(-1) ?? 'no answer'}`);
    }
    // The target says whether the log is still the one the cache saw (else it filters all of it),
    // or that the run's digest comes first (then the cache is not used).
    const said = headerWords(more, opts.onNote);
    const digestGzBytes = said.digestGz;
    const snapshotSize = said.snapshot;
    const used = hit && !digestGzBytes && !snapshotSize && Number(gotFrom) === hit.offset ? hit : null;
    if (hit && !used) await hit.close();
    let rest = head.rest;
    if (snapshotSize) {
      // The state at the snapshot's offset first; the filter's gzip of the log after it follows.
      const snap = await takeSnapshot(out, rest, snapshotSize, (x) => opts.restore!(x, reader));
      rest = snap.rest;
      const why = snap.why;
      if (why) {
        s.close();
        await s.done.catch(() => undefined);
        opts.onNote?.(`the run's watch snapshot was not used (${why}): reading its history`);
        return backfill(transport, logPath, size, { ...opts, snapshot: null });
      }
    }
    if (opts.digestOnly && !digestGzBytes && !snapshotSize) {
      const r = await s.done;
      if (r.code !== 0) throw new Error(`the digest check failed on ${transport.target}: exit ${r.code}`);
      const none = { offset: 0, reader: new TrainerLogReader(), coveredBytes: 0, cachedBytes: 0 };
      const nothing = { digestBytes: 0, digestGzBytes: 0, snapshotBytes: 0, snapshotSize: 0 };
      return { ...done, ...none, sentBytes: done.sentBytes + head.line.length + 1, ...nothing };
    }
    const covered = digestGzBytes || snapshotSize ? Number(gotFrom) : (used?.offset ?? 0);
    opts.onProgress?.({ readBytes: covered, totalBytes: cut });
    // A snapshot's history is not in the gzip that follows: nothing for the cache.
    writer = cache && !snapshotSize ? await cache.writer(transport.target, logPath).catch(() => null) : null;
    let sent = head.line.length + 1 + (snapshotSize ? snapshotSize + rest.length : head.rest.length);
    const w = writer;
    async function* gz(): AsyncGenerator<Buffer> {
      if (used) {
        for await (const c of used.read()) {
          await w?.write(c as Buffer);
          yield c as Buffer;
        }
      }
      if (rest.length) {
        await w?.write(rest);
        yield rest;
      }
      for (let r = await out.next(); !r.done; r = await out.next()) {
        sent += r.value.length;
        await w?.write(r.value);
        yield r.value;
      }
    }
    try {
      await pipeline(
        Readable.from(gz()),
        createGunzip({ chunkSize: 256 * 1024 }),
        async (plain: AsyncIterable<Buffer>) => {
          for await (const b of plain) hand(b);
        },
      );
    } finally {
      await used?.close();
    }
    const r = await s.done;
    if (r.code !== 0)
      throw new Error(`the backfill filter failed on ${transport.target}: ${errors.at(-1) ?? `exit ${r.code}`}`);
    opts.onProgress?.({ readBytes: cut, totalBytes: cut });
    await writer?.commit(cut, `${ino} ${headCk} ${seamCk}`).catch(() => undefined);
    writer = null;
    return {
      ...done,
      records,
      sentBytes: done.sentBytes + sent,
      cachedBytes: used ? covered : 0,
      digestBytes: digestGzBytes ? covered : 0,
      digestGzBytes,
      snapshotBytes: snapshotSize ? covered : 0,
      snapshotSize,
    };
  } catch (err) {
    await writer?.abort();
    // Whatever failed here, the filter on the target does not go on.
    s?.close();
    await hit?.close().catch(() => undefined);
    throw err;
  }
}

/** What `onTail` is told of the raw tail (its bytes up to its last line end, `lastNl`). */
function tailTeller(
  tail: { bytes: Buffer; midLog: boolean; insideLine: boolean },
  lastNl: number,
  reader: TrainerLogReader,
  opts: BackfillOptions,
): () => void {
  const seen = tail.bytes.subarray(0, lastNl + 1);
  // The pane keeps its last 500 lines: the last 256 KiB hold them (cleaning lines costs more than
  // reading records: the whole tail would delay the first frame).
  const paneFrom = Math.max(0, seen.length - PANE_BYTES);
  const { midLog, insideLine } = tail;
  return () =>
    opts.onTail?.({
      lines: reader.linesBefore(seen.subarray(paneFrom), paneFrom > 0 ? seen[paneFrom - 1] !== 0x0a : insideLine),
      midLog: midLog || paneFrom > 0,
      preview: new TrainerLogReader({ lines: false }).push(seen).events,
    });
}

/** The first line of a stream (the filter's header), and what came after it in that chunk. */
export async function firstLine(it: AsyncIterator<Buffer>): Promise<{ line: string; rest: Buffer }> {
  let acc: Buffer = Buffer.alloc(0);
  for (;;) {
    const r = await it.next();
    if (r.done) return { line: acc.toString('latin1'), rest: Buffer.alloc(0) };
    acc = acc.length ? Buffer.concat([acc, r.value]) : r.value;
    const nl = acc.indexOf(0x0a);
    if (nl >= 0) return { line: acc.subarray(0, nl).toString('latin1'), rest: acc.subarray(nl + 1) };
    if (acc.length > 4096) return { line: '', rest: Buffer.alloc(0) };
  }
}

/** The filter's stderr: progress lines told, the others kept (its error, if it fails). */
function readProgress(stderr: Readable, errors: string[], onPos: (pos: number) => void): void {
  let carry = '';
  stderr.on('data', (b: Buffer) => {
    const lines = (carry + b.toString('utf8')).split('\n');
    carry = lines.pop() ?? '';
    for (const l of lines) {
      const m = PROGRESS_LINE.exec(l);
      if (m) onPos(Number(m[1]));
      else if (l.trim() && errors.length < 20) errors.push(l.trim());
    }
  });
}

/** The raw log in [from, end) for the trainer-lines pane, reading one byte before `from` to know
 *  whether `from` starts a line. `midLog`: bytes before `from` exist and are not shown. `have`: the
 *  log's bytes up to `end` read already (the silence's measure took them): only what lies before
 *  them is read, nothing when they cover it. */
export async function readTail(
  transport: Transport,
  logPath: string,
  from: number,
  end: number,
  have?: LogTail,
): Promise<{ bytes: Buffer; midLog: boolean; insideLine: boolean }> {
  const start = Math.max(0, from - 1);
  const own = have && have.from + have.bytes.length === end ? have : null;
  let bytes: Buffer;
  if (own && own.from <= start) bytes = own.bytes.subarray(start - own.from);
  else {
    const until = own ? own.from : end;
    const read = await transport.readFile(logPath, { offset: start, length: until - start });
    if (own && read.length !== until - start) throw new Error(`${logPath} was truncated while its tail was read`);
    bytes = own ? Buffer.concat([read, own.bytes]) : read;
  }
  if (from <= 0) return { bytes, midLog: false, insideLine: false };
  return { bytes: bytes.subarray(1), midLog: true, insideLine: bytes[0] !== 0x0a };
}
