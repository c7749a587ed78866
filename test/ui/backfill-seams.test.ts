// The streamed backfill over a real sshd and locally: the filtered history plus following from the
// seam reads exactly what parsing the whole log reads (every step, the panels' stats, every other
// record, saves in order), on a log with tables, a traceback, colours and a cut last line; the
// raw tail comes first; progress is told; the local cache makes a second attach move only what is
// new, and is not used for a replaced or truncated log, a damaged file or another version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { TrainerLogReader } from '../../src/trainer-log/index.js';
import type { HealthEvent } from '../../src/health/index.js';
import { backfill, BACKFILL_KEYS, type BackfillProgress } from '../../src/session/backfill.js';
import { BackfillCache, BACKFILL_CACHE_VERSION } from '../../src/session/backfill-cache.js';
import { keyPatterns } from '../../src/session/backfill-filter.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/', import.meta.url).pathname;
const KINDS = (process.env.AWRL_TRANSPORTS ?? 'local,ssh').split(',');

/** run-a's controller log twice, its merged.log (role prefixes) between, and a line being written. */
function makeLog(): Buffer {
  const stdout = readFileSync(join(RUN_A, 'stdout.log'));
  const merged = readFileSync(join(RUN_A, 'merged.log'));
  const cut = Buffer.from('\x1b[37m(AReaL)\x1b[0m 20260525-16:00:00.000 StatsLogger INFO: Epoch 1/10 Step 9');
  return Buffer.concat([stdout, merged, stdout, cut]);
}

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

/** A transport that counts the bytes it moved from the target (commands' output, files read). */
function counting(t: Transport): { t: Transport; moved: () => number } {
  let moved = 0;
  const wrapped = Object.create(t) as Transport;
  wrapped.execStream = (argv, opts) => {
    const s = t.execStream(argv, opts);
    s.stdout.on('data', (b: Buffer) => (moved += b.length));
    return s;
  };
  wrapped.readFile = async (p, o) => {
    const b = await t.readFile(p, o);
    moved += b.length;
    return b;
  };
  return { t: wrapped, moved: () => moved };
}

describe.each(KINDS)('backfill seams over %s', (kind) => {
  let sshd: SshdHandle | undefined;
  let transport: Transport;
  let dir: string;
  let cacheDir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `awrl-bf-${kind}-`));
    cacheDir = join(dir, 'cache');
    if (kind === 'ssh') {
      sshd = await startSshd();
      transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    } else transport = await openTransport('local');
  });
  afterAll(async () => {
    await transport?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Backfill to the log's size, then read the rest with the same reader, as following does. */
  async function attach(log: string, cache: BackfillCache | null, t: Transport = transport) {
    const order: string[] = [];
    const progress: BackfillProgress[] = [];
    const events: HealthEvent[] = [];
    const b = await backfill(t, log, statSync(log).size, {
      cache,
      onTail: (tail) => order.push(`tail:${tail.preview.filter((e) => e.type === 'step').length}`),
      onEvents: (e) => (order.push('events'), events.push(...e)),
      onProgress: (p) => progress.push(p),
    });
    const rest = readFileSync(log).subarray(b.offset);
    events.push(...(b.reader.push(rest).events as HealthEvent[]), ...(b.reader.end().events as HealthEvent[]));
    return { b, events, order, progress };
  }

  it('filtered history + following = the whole log: steps, panel stats, records, saves, in order', async () => {
    const log = join(dir, 'stdout.log');
    const bytes = makeLog();
    writeFileSync(log, bytes);
    const { b, events, order, progress } = await attach(log, null);
    expect(events.map(panelStats)).toEqual(wholeLog(bytes).map(panelStats));
    expect(events.some((e) => e.type === 'error' && e.detail.includes('Traceback'))).toBe(true);
    expect(events.filter((e) => e.type === 'save').length).toBeGreaterThan(0);
    // The seam: the last line end; the cut line is the follower's.
    expect(b.offset).toBe(bytes.lastIndexOf(0x0a) + 1);
    // The tail (with its last steps) before any history; progress up to the whole history.
    expect(order[0]).toMatch(/^tail:[1-9]/);
    expect(order.slice(1).every((o) => o === 'events')).toBe(true);
    expect(progress.at(-1)).toEqual({ readBytes: b.offset, totalBytes: b.offset });
    for (let i = 1; i < progress.length; i++) expect(progress[i].totalBytes).toBe(b.offset);
    expect(b.sentBytes).toBeLessThan(bytes.length);
  });

  it('a second attach moves only what is new; the history is the same as reading the whole log', async () => {
    const log = join(dir, 'grows.log');
    const first = makeLog().subarray(0, makeLog().lastIndexOf(0x0a) + 1);
    writeFileSync(log, first);
    const cache = new BackfillCache({ keys: keyPatterns(), dir: cacheDir });
    const one = counting(transport);
    const a = await attach(log, cache, one.t);
    expect(a.b.cachedBytes).toBe(0);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.gz'))).toHaveLength(1);
    const more = readFileSync(join(RUN_A, 'main.log'));
    appendFileSync(log, more);
    const two = counting(transport);
    const b = await attach(log, cache, two.t);
    expect(b.b.cachedBytes).toBe(a.b.offset);
    // The new bytes (read raw as the tail, at least 256 KiB, and filtered), not the history again.
    expect(two.moved()).toBeLessThan(Math.max(256 << 10, more.length) + more.length / 4);
    expect(two.moved()).toBeLessThan(one.moved());
    const whole = readFileSync(log);
    expect(b.events.map(panelStats)).toEqual(wholeLog(whole).map(panelStats));
  });

  it('a replaced log (another inode) or a truncated one is backfilled whole, the cache not used', async () => {
    const log = join(dir, 'replaced.log');
    const cache = new BackfillCache({ keys: keyPatterns(), dir: cacheDir });
    const bytes = makeLog();
    writeFileSync(log, bytes);
    const a = await attach(log, cache);
    // Replaced: the same first bytes, another file (a rotation, a new attempt's log).
    const other = Buffer.concat([bytes.subarray(0, a.b.offset), readFileSync(join(RUN_A, 'main.log'))]);
    writeFileSync(`${log}.new`, other);
    renameSync(`${log}.new`, log);
    const b = await attach(log, cache);
    expect(b.b.cachedBytes).toBe(0);
    expect(b.events.map(panelStats)).toEqual(wholeLog(other).map(panelStats));
    // Truncated below the cached end.
    const c0 = await attach(log, cache);
    expect(c0.b.cachedBytes).toBe(b.b.offset);
    truncateSync(log, 300_000);
    const c = await attach(log, cache);
    expect(c.b.cachedBytes).toBe(0);
    expect(c.events.map(panelStats)).toEqual(wholeLog(readFileSync(log)).map(panelStats));
    // Truncated, then written again past the cached end in place: the bytes at the seam differ.
    const d0 = await attach(log, cache);
    expect(d0.b.cachedBytes).toBe(c.b.offset);
    const stdout = readFileSync(join(RUN_A, 'stdout.log'));
    writeFileSync(log, Buffer.concat([stdout.subarray(0, 1000), stdout, stdout]));
    const d = await attach(log, cache);
    expect(d.b.cachedBytes).toBe(0);
    expect(d.events.map(panelStats)).toEqual(wholeLog(readFileSync(log)).map(panelStats));
  });

  it('a damaged cache file, another version or other keys are ignored', async () => {
    const log = join(dir, 'damaged.log');
    const bytes = makeLog();
    writeFileSync(log, bytes);
    const dirD = join(dir, 'cache-damaged');
    const cache = new BackfillCache({ keys: keyPatterns(), dir: dirD });
    await attach(log, cache);
    const file = cache.fileFor(transport.target, log);
    expect((await attach(log, cache)).b.cachedBytes).toBeGreaterThan(0);
    const good = readFileSync(file);
    // A flipped byte in the gzipped lines.
    const bad = Buffer.from(good);
    bad[100] ^= 0xff;
    writeFileSync(file, bad);
    const a = await attach(log, cache);
    expect(a.b.cachedBytes).toBe(0);
    expect(a.events.map(panelStats)).toEqual(wholeLog(bytes).map(panelStats));
    // Another version's trailer (same length).
    const v = good.toString('latin1').replace(`{"v":${BACKFILL_CACHE_VERSION},`, `{"v":${BACKFILL_CACHE_VERSION + 1},`);
    writeFileSync(file, Buffer.from(v, 'latin1'));
    expect((await attach(log, cache)).b.cachedBytes).toBe(0);
    // Other keys: another filter's lines.
    const other = new BackfillCache({ keys: `${keyPatterns()}\nmore/key`, dir: dirD });
    writeFileSync(file, good);
    expect((await attach(log, other)).b.cachedBytes).toBe(0);
    // Garbage, and an empty file.
    writeFileSync(file, 'garbage');
    expect((await attach(log, cache)).b.cachedBytes).toBe(0);
    writeFileSync(file, '');
    const e = await attach(log, cache);
    expect(e.b.cachedBytes).toBe(0);
    expect(e.events.map(panelStats)).toEqual(wholeLog(bytes).map(panelStats));
  });

  it('concurrent attaches leave one whole cache file; the directory stays under its size', async () => {
    const log = join(dir, 'concurrent.log');
    writeFileSync(log, makeLog());
    const dirC = join(dir, 'cache-concurrent');
    const cache = new BackfillCache({ keys: keyPatterns(), dir: dirC });
    const [a, b] = await Promise.all([attach(log, cache), attach(log, cache)]);
    expect(a.events).toEqual(b.events);
    // No temporary file left; the one file there is whole (the next attach uses it).
    expect(readdirSync(dirC)).toEqual([cache.fileFor(transport.target, log).split('/').pop()]);
    expect((await attach(log, cache)).b.cachedBytes).toBe(a.b.offset);
    // A small limit: older logs' files go first, the newest stays.
    const entry = statSync(cache.fileFor(transport.target, log)).size;
    const small = new BackfillCache({ keys: keyPatterns(), dir: dirC, maxBytes: Math.ceil(entry * 2.5) });
    for (const n of ['x1.log', 'x2.log', 'x3.log']) {
      writeFileSync(join(dir, n), makeLog());
      await attach(join(dir, n), small);
    }
    const left = readdirSync(dirC);
    expect(left.reduce((sum, f) => sum + statSync(join(dirC, f)).size, 0)).toBeLessThanOrEqual(entry * 2.5);
    expect(left).toContain(small.fileFor(transport.target, join(dir, 'x3.log')).split('/').pop());
    expect(left).not.toContain(small.fileFor(transport.target, log).split('/').pop());
  });
});
