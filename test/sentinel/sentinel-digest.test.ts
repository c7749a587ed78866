// The run's digest (src/session/run-digest.ts) over a real sshd: written next to the log as the
// sentinel does (DigestWriter over the target's own files), an attach through the backfill sends
// it and filters only the log after it (the filter's reading starts at the digest's end), and
// what comes out is what a full read gives (records, panel stats, saves, in order; the dashboard's
// series). A digest that does not parse, whose gzip is damaged, or whose log was rotated or
// truncated is not used (the attach filters the whole log) and the sentinel rebuilds it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { TrainerLogReader } from '../../src/trainer-log/index.js';
import type { HealthEvent } from '../../src/health/index.js';
import { backfill, BACKFILL_KEYS, type BackfillProgress } from '../../src/session/backfill.js';
import { DigestWriter } from '../../src/session/digest-writer.js';
import { DIGEST_HEADER_BYTES, digestPathFor, parseDigestHeader } from '../../src/session/run-digest.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/', import.meta.url).pathname;
const STDOUT = readFileSync(join(RUN_A, 'stdout.log'));
const MERGED = readFileSync(join(RUN_A, 'merged.log'));

/** What reading the whole log gives: the records, saves among them, in order. */
function wholeLog(bytes: Buffer): HealthEvent[] {
  const r = new TrainerLogReader({ lines: false });
  return [...r.push(bytes).events, ...r.end().events] as HealthEvent[];
}

/** Steps keep only the stats the filter keeps (a row with a key the cockpit uses). */
const panelStats = (e: HealthEvent): HealthEvent =>
  e.type === 'step'
    ? {
        ...e,
        stats: Object.fromEntries(Object.entries(e.stats).filter(([k]) => BACKFILL_KEYS.some((b) => k.includes(b)))),
      }
    : e;

describe('the run digest over ssh', { timeout: 60_000 }, () => {
  let sshd: SshdHandle;
  let ssh: Transport;
  /** The sentinel's side: it runs on the target, next to the log. */
  let local: Transport;
  let dir: string;
  let n = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-digest-'));
    sshd = await startSshd();
    ssh = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    local = await openTransport('local');
  });
  afterAll(async () => {
    await ssh?.close();
    await local?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run dir with `first` as its log so far. */
  function runLog(first: Buffer): string {
    const runDir = join(dir, `run-${++n}`);
    mkdirSync(runDir);
    const log = join(runDir, 'stdout.log');
    writeFileSync(log, first);
    return log;
  }

  /** Attach as the cockpit does (over ssh, no local cache), then read the rest as following does. */
  async function attach(log: string, digest: boolean) {
    const progress: BackfillProgress[] = [];
    const events: HealthEvent[] = [];
    const b = await backfill(ssh, log, statSync(log).size, {
      cache: null,
      digest: digest ? digestPathFor(log) : null,
      onEvents: (e) => events.push(...e),
      onProgress: (p) => progress.push(p),
    });
    const rest = readFileSync(log).subarray(b.offset);
    events.push(...(b.reader.push(rest).events as HealthEvent[]), ...(b.reader.end().events as HealthEvent[]));
    return { b, events, progress };
  }

  const header = (log: string) => parseDigestHeader(readFileSync(digestPathFor(log)).subarray(0, DIGEST_HEADER_BYTES));

  it('a digest is used at attach: the filter starts at its end, and the records are a full read’s', async () => {
    const first = Buffer.concat([STDOUT, MERGED]);
    const log = runLog(first);
    const writer = new DigestWriter(local, log, digestPathFor(log));
    const u = await writer.update();
    expect(u).toMatchObject({ offset: first.lastIndexOf(0x0a) + 1, rebuilt: 'no digest yet' });
    expect(statSync(digestPathFor(log)).mode & 0o777).toBe(0o600);
    expect(await writer.update()).toBeNull(); // nothing new: nothing written
    // A line more: too little for a period's rewrite (the attach filters it), written when forced.
    const line = Buffer.from('\x1b[36m(rollout pid=7)\x1b[0m a worker line\n');
    appendFileSync(log, line);
    expect(await writer.update()).toBeNull();
    expect(await writer.update({ force: true })).toMatchObject({ offset: u!.offset + line.length, rebuilt: null });
    const at = u!.offset + line.length;
    // The log goes on (a record cut by the digest's end is continued by the reader).
    appendFileSync(log, STDOUT);
    const bytes = readFileSync(log);

    const full = await attach(log, false);
    const dig = await attach(log, true);
    expect(dig.b.digestBytes).toBe(at);
    expect(dig.b.digestGzBytes).toBe(header(log)!.gzBytes);
    // The filter read the log from the digest's end only; the full one from its start.
    expect(dig.progress.filter((p) => p.readBytes > 0)[0]?.readBytes).toBe(at);
    expect(full.b.digestBytes).toBe(0);
    expect(dig.events.map(panelStats)).toEqual(wholeLog(bytes).map(panelStats));
    expect(dig.events).toEqual(full.events);
    expect(dig.events.filter((e) => e.type === 'save').length).toBeGreaterThan(0);

    // The sentinel's next period appends what is new: the whole log, the same records again.
    const u2 = await writer.update();
    expect(u2).toMatchObject({ offset: bytes.lastIndexOf(0x0a) + 1, rebuilt: null, filtered: u2!.offset - at });
    const again = await attach(log, true);
    expect(again.b.digestBytes).toBe(u2!.offset);
    expect(again.events).toEqual(full.events);
  });

  it('a digest that does not parse or whose gzip is damaged is not used, and the sentinel rebuilds it', async () => {
    const log = runLog(Buffer.concat([STDOUT, MERGED, STDOUT]));
    const path = digestPathFor(log);
    await new DigestWriter(local, log, path).update();
    const full = await attach(log, false);

    const good = readFileSync(path);
    const damaged = Buffer.from(good);
    damaged[DIGEST_HEADER_BYTES + 100] ^= 0xff;
    writeFileSync(path, damaged);
    const d = await attach(log, true);
    expect(d.b.digestBytes).toBe(0);
    expect(d.events).toEqual(full.events);
    const rebuilt = await new DigestWriter(local, log, path).update();
    expect(rebuilt?.rebuilt).toBe("the digest's gzip does not match its sum");
    expect(readFileSync(path)).toEqual(good);

    writeFileSync(path, 'not a digest\n');
    expect((await attach(log, true)).b.digestBytes).toBe(0);
    expect((await new DigestWriter(local, log, path).update())?.rebuilt).toMatch(/did not parse/);
    expect((await attach(log, true)).b.digestBytes).toBeGreaterThan(0);
  });

  it('a rotated or truncated log invalidates the digest: not used, then rebuilt from the new log', async () => {
    const log = runLog(Buffer.concat([STDOUT, MERGED]));
    const path = digestPathFor(log);
    const writer = new DigestWriter(local, log, path);
    await writer.update();
    // Rotated: a new file (another inode) of the same size and head.
    writeFileSync(`${log}.new`, Buffer.concat([STDOUT, STDOUT, MERGED.subarray(0, MERGED.length - STDOUT.length)]));
    renameSync(`${log}.new`, log);
    const rotated = await attach(log, true);
    expect(rotated.b.digestBytes).toBe(0);
    expect(rotated.events.map(panelStats)).toEqual(wholeLog(readFileSync(log)).map(panelStats));
    appendFileSync(log, STDOUT);
    const u = await writer.update();
    expect(u?.rebuilt).toMatch(/not the one digested/);
    expect(u?.offset).toBe(statSync(log).size);

    // Truncated below the digest's end, then written again.
    writeFileSync(log, STDOUT);
    expect((await attach(log, true)).b.digestBytes).toBe(0);
    const t = await writer.update();
    expect(t?.rebuilt).toMatch(/shorter than the digest/);
    expect(header(log)?.offset).toBe(STDOUT.length);
  });
});
