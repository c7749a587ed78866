// The sentinel's watch snapshot as it keeps it (src/session/snapshot-writer.ts beside the digest
// writer, over the target's own files): 0600, at the log's last line end after every look that
// found the log grown, also when the digest waits for more (its rewrite copies it whole), and again
// by a sentinel started again; restored, it shows what a snapshot written in one pass over the
// whole log shows (the dashboard's view, every series as downsampled).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { DigestWriter } from '../../src/session/digest-writer.js';
import { SnapshotWriter, type SnapshotPace } from '../../src/session/snapshot-writer.js';
import { WatchReplay } from '../../src/session/watch-replay.js';
import {
  DIGEST_HEADER_BYTES,
  digestPathFor,
  parseDigestHeader,
  snapshotPathFor,
  SNAPSHOT_KIND,
} from '../../src/session/run-digest.js';
import { lineEndNear, QUIET_CONTEXT } from '../harness/snapshot-context.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/stdout.log', import.meta.url).pathname;
const LOG = readFileSync(RUN_A);
const FACTS = { consumerBatchSize: 32, maxHeadOffpolicyness: 2 };
const CTX = QUIET_CONTEXT;

/** A line end near this part of the log. */
const near = (part: number) => lineEndNear(LOG, part);

describe("the sentinel's watch snapshot", { timeout: 60_000 }, () => {
  let dir: string;
  let local: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-snapshot-'));
    local = await openTransport('local');
  });
  afterAll(async () => {
    await local?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `pace`: by default written at every update (no gap; no state slow: on a loaded machine
   *  run-a's may take 50 ms). */
  const writer = (log: string, pace: SnapshotPace = { minGapMs: 0, slowMs: Infinity, spacing: 0 }) =>
    new DigestWriter(
      local,
      log,
      digestPathFor(log),
      undefined,
      new SnapshotWriter(local, log, snapshotPathFor(log), Promise.resolve(FACTS), pace),
    );

  /** The snapshot of `log` restored: what an attach's dashboard shows from it. */
  function restored(log: string) {
    const bytes = readFileSync(snapshotPathFor(log));
    const header = parseDigestHeader(bytes.subarray(0, DIGEST_HEADER_BYTES), SNAPSHOT_KIND);
    const r = new WatchReplay(FACTS);
    r.restore(bytes.subarray(DIGEST_HEADER_BYTES, DIGEST_HEADER_BYTES + header!.gzBytes));
    const store = r.view.store;
    const series = Object.fromEntries(store.keys().map((k) => [k, store.downsample(k, 64)]));
    return { offset: header!.offset, view: JSON.stringify(r.view.view(CTX)), series };
  }

  it('is kept at the log’s end, while the digest waits too and after a restart, and shows what one pass shows', async () => {
    mkdirSync(join(dir, 'run'));
    const log = join(dir, 'run', 'stdout.log');
    writeFileSync(log, LOG.subarray(0, near(0.4)));
    const first = await writer(log).update({ force: true });
    expect(first?.snapshot).toEqual({ bytes: statSync(snapshotPathFor(log)).size });
    expect(restored(log).offset).toBe(near(0.4));
    expect(statSync(snapshotPathFor(log)).mode & 0o777).toBe(0o600);

    const w = writer(log);
    appendFileSync(log, LOG.subarray(near(0.4), near(0.7)));
    await w.update({ force: true });
    appendFileSync(log, LOG.subarray(near(0.7), near(0.72)));
    // Too little for the digest to be rewritten (a 16th of what it covers): the snapshot moves on.
    expect(await w.update()).toBeNull();
    expect(parseDigestHeader(readFileSync(digestPathFor(log)))?.offset).toBe(near(0.7));
    expect(restored(log).offset).toBe(near(0.72));
    // A sentinel started again: its replay reads the log again, the digest only what it gained.
    appendFileSync(log, LOG.subarray(near(0.72)));
    const again = await writer(log).update({ force: true });
    expect(again?.rebuilt).toBeNull();
    expect(again?.filtered).toBe(LOG.length - near(0.7));
    expect(again?.snapshot).toEqual({ bytes: statSync(snapshotPathFor(log)).size });

    mkdirSync(join(dir, 'whole'));
    const whole = join(dir, 'whole', 'stdout.log');
    writeFileSync(whole, LOG);
    await writer(whole).update({ force: true });
    const got = restored(log);
    const want = restored(whole);
    expect(got.offset).toBe(LOG.length);
    expect(got.view).toBe(want.view);
    expect(got.series).toEqual(want.series);
    expect(Object.keys(got.series).length).toBeGreaterThan(5);
  });

  it('a state slow to bring up to date is written at most once per SPACING times its cost; the end writes it anyway', async () => {
    mkdirSync(join(dir, 'slow'));
    const log = join(dir, 'slow', 'stdout.log');
    writeFileSync(log, LOG.subarray(0, near(0.3)));
    // Every state counts as slow, and the spacing is far longer than this test.
    const w = writer(log, { minGapMs: 0, slowMs: 0, spacing: 1e9 });
    await w.update({ force: true });
    expect(restored(log).offset).toBe(near(0.3));
    appendFileSync(log, LOG.subarray(near(0.3), near(0.6)));
    const skipped = await w.update();
    expect(skipped?.snapshot).toBeUndefined();
    expect(restored(log).offset).toBe(near(0.3));
    appendFileSync(log, LOG.subarray(near(0.6)));
    const end = await w.update({ force: true });
    expect(end?.snapshot).toEqual({ bytes: statSync(snapshotPathFor(log)).size });
    // The replay went on from where it was: the end's state is one pass's.
    mkdirSync(join(dir, 'slow-whole'));
    const whole = join(dir, 'slow-whole', 'stdout.log');
    writeFileSync(whole, LOG);
    await writer(whole).update({ force: true });
    expect(restored(log).view).toBe(restored(whole).view);
  });
});
