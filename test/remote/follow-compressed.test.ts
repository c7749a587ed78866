// A follower far behind sends its backlog compressed (`Z` frames: lz4, zstd or gzip), over a real sshd: the same
// bytes and the same trainer events as plain frames, a live tail that is never compressed, a drop in
// the middle of a compressed range, and a truncation while the backlog is still being sent. Each
// checks "every byte exactly once" against the file itself.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { sessionPathConfig } from '../harness/session-path.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { proxiedConfig } from '../harness/proxied-ssh.js';
import { waitFor } from '../harness/wait.js';
import { bytesOf, expectExactlyOnce, received } from '../harness/exactly-once.js';
import { followWhole } from '../harness/follow-whole.js';
import { SHARED } from '../harness/fixtures.js';
import { followRun } from '../../src/runs/follow-run.js';
import { codecPreference } from '../../src/remote/member-decoder.js';
import { eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';

const RUN_A = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

const FAST = {
  keepaliveIntervalMs: 300,
  keepaliveCountMax: 2,
  connectTimeoutMs: 2000,
  reconnect: { baseMs: 100, capMs: 500 },
  heartbeatIntervalMs: 250,
  heartbeatTimeoutMs: 1500,
  followPollMs: 30,
};
/** Small members, two at once: a backlog of a few MB is many members. */
const COMPRESSED = {
  ...FAST,
  followCompressMinBytes: 1 << 20,
  followCompressChunkBytes: 1 << 20,
  followCompressJobs: 2,
};

const NONE = { wireBytes: 0, fileBytes: 0, zstdFileBytes: 0, lz4FileBytes: 0 };

// `auto` takes the best codec for this Node the target has (this one has all three: .ci/run
// installs lz4 and zstd); a codec named goes first; `gzip` forces gzip.
describe.each([
  { codec: 'auto' as const, sent: codecPreference('auto')[0]! },
  { codec: 'lz4' as const, sent: 'lz4' },
  { codec: 'zstd' as const, sent: 'zstd' },
  { codec: 'gzip' as const, sent: 'gzip' },
])('compressed catch-up over ssh ($codec)', ({ codec, sent }) => {
  let dir: string;
  let sshd: SshdHandle;
  let proxy: TcpProxy;
  let zipped: Transport;
  let plain: Transport;
  let proxied: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-zfollow-'));
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    const cfg = proxiedConfig(sshd, proxy, 'zf');
    zipped = await openTransport(sshd.alias, {
      sshConfigFile: sshd.sshConfigFile,
      ...COMPRESSED,
      followCompressCodec: codec,
    });
    plain = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, ...FAST, followCompressMinBytes: 0 });
    proxied = await openTransport(cfg.alias, { sshConfigFile: cfg.file, ...COMPRESSED, followCompressCodec: codec });
  });
  afterAll(async () => {
    await zipped?.close();
    await plain?.close();
    await proxied?.close();
    await proxy?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a long trainer log: the same bytes and events as plain frames, a fraction on the wire; the live tail goes plain', async () => {
    const p = join(dir, 'long.log');
    const log = Buffer.concat(Array.from({ length: 12 }, () => RUN_A)); // ≈ 5.7 MB
    writeFileSync(p, log);
    const follow = (t: Transport) => {
      const raw: FollowEvent[] = [];
      const events: TrainerEvent[] = [];
      const f = followRun(t, p, { onEvent: (e) => events.push(e) });
      const h = t.follow(p, 0, (e) => raw.push(e));
      return { raw, events, f, h };
    };
    const z = follow(zipped);
    const q = follow(plain);
    await waitFor(() => received(z.raw) === log.length && received(q.raw) === log.length, {
      timeoutMs: 60_000,
      what: 'the whole log, both ways',
    });
    expectExactlyOnce(z.raw, log);
    expectExactlyOnce(q.raw, log);
    const zc = z.h.compression!;
    expect(zc.fileBytes).toBe(log.length);
    expect(zc.wireBytes).toBeLessThan(log.length / 4);
    expect(zc.zstdFileBytes).toBe(sent === 'zstd' ? log.length : 0);
    expect(zc.lz4FileBytes).toBe(sent === 'lz4' ? log.length : 0);
    expect(q.h.compression).toEqual(NONE);

    // Live: a step's worth of lines at a time, each sent as it is.
    const tail = RUN_A.subarray(0, 64 * 1024);
    appendFileSync(p, tail);
    const size = log.length + tail.length;
    await waitFor(() => received(z.raw) === size && z.f.offset === size && q.f.offset === size, {
      timeoutMs: 30_000,
      what: 'the live tail',
    });
    expect(z.h.compression!.fileBytes).toBe(log.length);
    expectExactlyOnce(z.raw, readFileSync(p));
    await z.f.finish(5000);
    await q.f.finish(5000);
    z.h.close();
    q.h.close();
    expect(z.events.length).toBeGreaterThan(100);
    expect(z.events.map(eventToJsonLine)).toEqual(q.events.map(eventToJsonLine));
  });

  it('a drop in the middle of a compressed range: the rest arrives once, from the cut, compressed again', async () => {
    const p = join(dir, 'cut.log');
    const log = Buffer.concat(Array.from({ length: 16 }, () => RUN_A)); // ≈ 7.6 MB
    writeFileSync(p, log);
    const events: FollowEvent[] = [];
    let cut = false;
    const acceptedBefore = proxy.accepted;
    const h = proxied.follow(p, 0, (e) => {
      events.push(e);
      // Inside the third member (1 MiB each): bytes of it were delivered, the rest were not.
      if (!cut && received(events) > 2.5 * 2 ** 20) {
        cut = true;
        proxy.resetAll();
      }
    });
    await waitFor(() => received(events) === log.length, { timeoutMs: 60_000, what: 'every byte after the cut' });
    h.close();
    expect(cut).toBe(true);
    expect(proxy.accepted).toBeGreaterThan(acceptedBefore);
    expectExactlyOnce(events, log);
    // The follower after the drop was far behind too: most of the log came compressed.
    expect(h.compression!.fileBytes).toBeGreaterThan(log.length / 2);
  });

  it('truncated while the backlog is being sent: what came before is the old file, then a reset and the new one', async () => {
    const p = join(dir, 'truncated.log');
    // Barely compressible, so the backlog takes a while to cross and the follower is still at it.
    const old = Buffer.from(randomBytes(24 << 20).toString('base64'));
    writeFileSync(p, old);
    const fresh = Buffer.from('after the truncation 1\nafter the truncation 2\n');
    const events: FollowEvent[] = [];
    let truncatedAt = -1;
    const h = zipped.follow(p, 0, (e) => {
      events.push(e);
      if (truncatedAt < 0 && received(events) > 2 << 20) {
        truncatedAt = received(events);
        truncateSync(p, 0);
        writeFileSync(p, fresh);
      }
    });
    await waitFor(() => events.some((e) => e.type === 'reset') && bytesOf(after(events)).equals(fresh), {
      timeoutMs: 60_000,
      what: 'the reset and the new content',
    });
    h.close();
    const resetAt = events.findIndex((e) => e.type === 'reset');
    expect(events[resetAt]).toEqual({ type: 'reset', reason: 'truncated' });
    const before = bytesOf(events.slice(0, resetAt));
    // Cut short: the truncation came in the middle of the catch-up, and nothing after it is old bytes.
    expect(before.length).toBeGreaterThanOrEqual(truncatedAt);
    expect(before.length).toBeLessThan(old.length);
    expect(before.equals(old.subarray(0, before.length))).toBe(true);
    expectExactlyOnce(after(events), fresh);
    expect(h.compression!.fileBytes).toBeGreaterThan(0);
  });
});

// A head without lz4 (or zstd, or gzip): the backlog goes as the next codec the client takes (or
// plain), every byte once.
describe.each([
  { missing: ['lz4'], sent: 'zstd' },
  { missing: ['zstd'], sent: 'lz4' },
  { missing: ['lz4', 'zstd'], sent: 'gzip' },
  { missing: ['lz4', 'zstd', 'gzip'], sent: 'plain' },
])('a target without $missing', ({ missing, sent }) => {
  let dir: string;
  let sshd: SshdHandle;
  let t: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-nozip-'));
    sshd = await startSshd({ extraConfig: sessionPathConfig(dir, missing) });
    t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, ...COMPRESSED });
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`sends the backlog as ${sent}, every byte once`, async () => {
    const check = await t.exec(['bash', '-c', `for c in ${missing.join(' ')}; do command -v $c; done; echo end`]);
    expect(check.stdout.toString().trim()).toBe('end');
    const p = join(dir, 'backlog.log');
    const log = Buffer.concat(Array.from({ length: 8 }, () => RUN_A));
    writeFileSync(p, log);
    const { h, events } = await followWhole(t, p, log.length);
    expectExactlyOnce(events, log);
    if (sent === 'plain') expect(h.compression).toEqual(NONE);
    else {
      expect(h.compression!.fileBytes).toBe(log.length);
      expect(h.compression!.zstdFileBytes).toBe(sent === 'zstd' ? log.length : 0);
      expect(h.compression!.lz4FileBytes).toBe(sent === 'lz4' ? log.length : 0);
      expect(h.compression!.wireBytes).toBeLessThan(log.length / 4);
    }
  });
});

// A zstd or lz4 that writes what no decoder reads (a broken or foreign build): the member fails to
// decode, the next follower sends gzip, and the backlog arrives once, without a problem to report.
describe.each(['zstd', 'lz4'] as const)('a target whose %s writes no such frame', (codec) => {
  let dir: string;
  let sshd: SshdHandle;
  let t: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-badzip-'));
    // Compressing, it drains stdin; decompressing a file (-d), it must leave stdin alone.
    const fake = '#!/bin/sh\ncase " $* " in *" -d"*) ;; *) cat > /dev/null ;; esac\nprintf "not a frame\\n"\n';
    sshd = await startSshd({ extraConfig: sessionPathConfig(dir, [], { [codec]: fake }) });
    const opts = { sshConfigFile: sshd.sshConfigFile, ...COMPRESSED, followCompressCodec: codec };
    t = await openTransport(sshd.alias, opts);
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('falls back to gzip members, every byte once', async () => {
    const p = join(dir, 'backlog.log');
    const log = Buffer.concat(Array.from({ length: 8 }, () => RUN_A));
    writeFileSync(p, log);
    const { h, events } = await followWhole(t, p, log.length);
    expectExactlyOnce(events, log);
    expect(events.filter((e) => e.type === 'problem')).toEqual([]);
    expect(h.compression!.zstdFileBytes).toBe(0);
    expect(h.compression!.lz4FileBytes).toBe(0);
    expect(h.compression!.fileBytes).toBe(log.length);
  });
});

/** The events after the last reset. */
function after(events: FollowEvent[]): FollowEvent[] {
  const i = events.map((e) => e.type).lastIndexOf('reset');
  return events.slice(i + 1);
}
