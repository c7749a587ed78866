// A run that lives for days, watched over a flaky network: the head's sshd restarted (same host key:
// resume; new host key: stop with the attack warning), a drop in the middle of a big frame, two
// followers of one log at once. Each checks "every byte exactly once" against the file itself.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { restartSshd, type RestartedSshd } from '../harness/sshd-restart.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { followers, proxiedConfig } from '../harness/proxied-ssh.js';
import { waitFor } from '../harness/wait.js';
import { SHARED } from '../harness/fixtures.js';
import { followRun } from '../../src/runs/follow-run.js';
import { parseLogBytes, eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';

const FIXTURE = `${SHARED}fixtures/areal-logs/run-a/stdout.log`;

const FAST = {
  keepaliveIntervalMs: 300,
  keepaliveCountMax: 2,
  connectTimeoutMs: 2000,
  reconnect: { baseMs: 100, capMs: 500 },
  heartbeatIntervalMs: 250,
  heartbeatTimeoutMs: 1500,
  followPollMs: 30,
};

/** Asserts the data events are contiguous from 0, without resets, and equal the file. */
function expectExactlyOnce(events: FollowEvent[], file: string): void {
  expect(events.filter((e) => e.type === 'reset')).toEqual([]);
  let at = 0;
  for (const e of events) {
    if (e.type !== 'data') continue;
    expect(e.offset).toBe(at);
    at += e.bytes.length;
  }
  expect(
    Buffer.concat(events.map((e) => (e.type === 'data' ? e.bytes : Buffer.alloc(0)))).equals(readFileSync(file)),
  ).toBe(true);
}

const received = (events: FollowEvent[]): number =>
  events.reduce((a, e) => a + (e.type === 'data' ? e.bytes.length : 0), 0);

describe('long watches', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-longwatch-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sshd restarted with the same host key: the follow resumes, every byte once', async () => {
    const sshd = await startSshd();
    let restarted: RestartedSshd | null = null;
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, ...FAST });
    try {
      const p = join(dir, 'restart.log');
      writeFileSync(p, '');
      const events: FollowEvent[] = [];
      const h = t.follow(p, 0, (e) => events.push(e));
      let n = 0;
      const writer = setInterval(() => appendFileSync(p, `line ${++n} ${'y'.repeat(n % 37)}\n`), 10);
      try {
        await waitFor(() => received(events) > 500, { timeoutMs: 20_000, what: 'initial delivery' });
        restarted = await restartSshd(sshd);
        const before = received(events);
        await waitFor(() => received(events) > before + 500, { timeoutMs: 30_000, what: 'delivery after the restart' });
      } finally {
        clearInterval(writer);
      }
      await waitFor(() => received(events) === readFileSync(p).length, { timeoutMs: 20_000, what: 'every byte' });
      h.close();
      expectExactlyOnce(events, p);
    } finally {
      await t.close();
      await restarted?.stop();
      await sshd.stop();
    }
  });

  it('sshd reinstalled with a new host key: the transport fails with the mismatch warning and what to do', async () => {
    const sshd = await startSshd();
    let restarted: RestartedSshd | null = null;
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, ...FAST });
    try {
      const p = join(dir, 'rekeyed.log');
      writeFileSync(p, 'before the reinstall\n');
      const events: FollowEvent[] = [];
      const h = t.follow(p, 0, (e) => events.push(e));
      await waitFor(() => received(events) > 0, { what: 'the first line' });
      restarted = await restartSshd(sshd, { newHostKey: true });
      appendFileSync(p, 'after\n');
      await waitFor(() => t.state.state === 'failed', { timeoutMs: 20_000, what: 'the transport to give up' });
      const reason = (t.state as { reason: string }).reason;
      expect(reason).toMatch(/does NOT match the recorded one/);
      expect(reason).toMatch(/ssh-keygen -R/);
      h.close();
      // Nothing after the reinstall may arrive: the new server is not trusted.
      writeFileSync(join(dir, 'rekeyed.expected'), 'before the reinstall\n');
      expectExactlyOnce(events, join(dir, 'rekeyed.expected'));
    } finally {
      await t.close();
      await restarted?.stop();
      await sshd.stop();
    }
  });

  describe('through a cuttable proxy', () => {
    let sshd: SshdHandle;
    let proxy: TcpProxy;
    let t: Transport;
    beforeAll(async () => {
      sshd = await startSshd();
      proxy = await startTcpProxy(sshd.port);
      const cfg = proxiedConfig(sshd, proxy, 'lw');
      t = await openTransport(cfg.alias, { sshConfigFile: cfg.file, ...FAST });
    });
    afterAll(async () => {
      await t?.close();
      await proxy?.stop();
      await sshd?.stop();
    });

    it('a drop in the middle of a 6 MB frame: the rest arrives once, from the cut', async () => {
      const p = join(dir, 'bigframe.log');
      writeFileSync(p, '');
      const events: FollowEvent[] = [];
      let cut = false;
      const acceptedBefore = proxy.accepted;
      const h = t.follow(p, 0, (e) => {
        events.push(e);
        // Cut while the first (4 MB) frame is still arriving.
        if (!cut && received(events) > 1_000_000) {
          cut = true;
          proxy.resetAll();
        }
      });
      await waitFor(() => followers(sshd).length > 0, { what: 'a running follower' });
      const line = (i: number): string => `│ row ${i} │ ${'9.8765e-01 │ '.repeat(8)}\n`;
      appendFileSync(p, Array.from({ length: 60_000 }, (_, i) => line(i)).join(''));
      const size = readFileSync(p).length;
      await waitFor(() => received(events) === size, { timeoutMs: 60_000, what: 'every byte after the cut' });
      h.close();
      expect(cut).toBe(true);
      expect(proxy.accepted).toBeGreaterThan(acceptedBefore);
      expectExactlyOnce(events, p);
    });

    it('two followers of one log at once each get every byte once across a drop', async () => {
      const p = join(dir, 'two.log');
      writeFileSync(p, '');
      const a: FollowEvent[] = [];
      const b: FollowEvent[] = [];
      const ha = t.follow(p, 0, (e) => a.push(e));
      const hb = t.follow(p, 0, (e) => b.push(e));
      let n = 0;
      const writer = setInterval(() => appendFileSync(p, `two ${++n}\n`), 10);
      try {
        await waitFor(() => received(a) > 200 && received(b) > 200, { timeoutMs: 20_000, what: 'both delivering' });
        proxy.resetAll();
        const [ra, rb] = [received(a), received(b)];
        await waitFor(() => received(a) > ra + 200 && received(b) > rb + 200, {
          timeoutMs: 30_000,
          what: 'both delivering after the drop',
        });
      } finally {
        clearInterval(writer);
      }
      const size = readFileSync(p).length;
      await waitFor(() => received(a) === size && received(b) === size, {
        timeoutMs: 20_000,
        what: 'every byte to both',
      });
      ha.close();
      hb.close();
      expectExactlyOnce(a, p);
      expectExactlyOnce(b, p);
    });

    it('the end-of-run drain survives a drop during the drain: every event once, none missing', async () => {
      const all = readFileSync(FIXTURE);
      const half = all.indexOf('\n', Math.floor(all.length / 2)) + 1;
      const p = join(dir, 'drain.log');
      writeFileSync(p, all.subarray(0, half));
      const got: TrainerEvent[] = [];
      const f = followRun(t, p, { onEvent: (e) => got.push(e) });
      await waitFor(() => f.offset === half, { timeoutMs: 20_000, what: 'the first half' });
      // The path goes silent just as the run ends; the last half is written meanwhile.
      await proxy.hold();
      appendFileSync(p, all.subarray(half));
      const drained = f.finish(30_000);
      await waitFor(() => t.state.state === 'reconnecting', {
        timeoutMs: 20_000,
        what: 'keepalive to notice the silent path',
      });
      await proxy.pass();
      expect(await drained).toBe(true);
      expect(f.offset).toBe(all.length);
      expect(got.map(eventToJsonLine)).toEqual(parseLogBytes(all).map(eventToJsonLine));
    });
    it('a drain the transport gives up on says so (resolves false), with what it had', async () => {
      const cfg = proxiedConfig(sshd, proxy, 'lw');
      const t2 = await openTransport(cfg.alias, {
        sshConfigFile: cfg.file,
        ...FAST,
        reconnect: { baseMs: 50, capMs: 200, maxElapsedMs: 1500 },
      });
      try {
        const p = join(dir, 'lost-tail.log');
        writeFileSync(p, 'first line\n');
        const f = followRun(t2, p, { onEvent: () => undefined });
        await waitFor(() => f.offset === 11, { what: 'the first line' });
        await proxy.refuse();
        proxy.resetAll();
        appendFileSync(p, 'never read\n');
        expect(await f.finish(30_000)).toBe(false);
        expect(t2.state.state).toBe('failed');
        expect(f.offset).toBe(11);
      } finally {
        await proxy.pass();
        await t2.close();
      }
      await waitFor(() => t.state.state === 'ready', { timeoutMs: 20_000, what: 'the shared transport to recover' });
    });
    it('drop after drop, each as soon as delivery resumed: every byte once', async () => {
      const p = join(dir, 'flap.log');
      writeFileSync(p, '');
      const events: FollowEvent[] = [];
      const h = t.follow(p, 0, (e) => events.push(e));
      let n = 0;
      const writer = setInterval(() => appendFileSync(p, `flap ${++n} │ ${'1.2345e-03 │ '.repeat(n % 9)}\n`), 5);
      try {
        for (let i = 0; i < 8; i++) {
          const before = received(events);
          await waitFor(() => received(events) > before, { timeoutMs: 30_000, what: `delivery before drop ${i + 1}` });
          proxy.resetAll();
        }
      } finally {
        clearInterval(writer);
      }
      await waitFor(() => received(events) === readFileSync(p).length, {
        timeoutMs: 30_000,
        what: 'every byte after the last drop',
      });
      h.close();
      expectExactlyOnce(events, p);
    });
  });
});
