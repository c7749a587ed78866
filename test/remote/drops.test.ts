// Connection drops through a TCP proxy the test controls: reset, silent hold, refused reconnects.
// `follow` must deliver every byte exactly once across the outages, report truncation and rotation
// that happen while disconnected, and leave no remote follower behind a dead client.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent, type ConnectionState } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { followers, proxiedConfig } from '../harness/proxied-ssh.js';
import { waitFor } from '../harness/wait.js';

describe('drops', () => {
  let sshd: SshdHandle;
  let proxy: TcpProxy;
  let t: Transport;
  let dir: string;
  const states: ConnectionState[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-drops-'));
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    const cfg = proxiedConfig(sshd, proxy);
    t = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      keepaliveIntervalMs: 300,
      keepaliveCountMax: 2,
      connectTimeoutMs: 1500,
      reconnect: { baseMs: 100, capMs: 800 },
      heartbeatIntervalMs: 250,
      heartbeatTimeoutMs: 1500,
      followPollMs: 30,
    });
    t.onState((s) => {
      states.push(s);
      if (process.env.AWRL_DEBUG) console.error(Date.now() % 100000, 'STATE', JSON.stringify(s));
    });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const waitState = (name: ConnectionState['state'], what: string): Promise<unknown> =>
    waitFor(() => t.state.state === name, { timeoutMs: 20_000, what });

  it('follow delivers a growing file exactly once across reset, silent hold and refused reconnects', async () => {
    const p = join(dir, 'grow.log');
    writeFileSync(p, '');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    let n = 0;
    const writer = setInterval(() => appendFileSync(p, `line ${++n} ${'x'.repeat(n % 50)}\n`), 15);
    const received = (): number => events.reduce((a, e) => a + (e.type === 'data' ? e.bytes.length : 0), 0);
    const progress = async (what: string): Promise<void> => {
      const before = received();
      await waitFor(() => received() > before + 200, { timeoutMs: 20_000, what });
    };
    try {
      await progress('initial delivery');

      proxy.resetAll(); // outage 1: RST
      await waitFor(() => states.some((s) => s.state === 'reconnecting'), {
        timeoutMs: 20_000,
        what: 'reconnecting after RST',
      });
      await waitState('ready', 'ready after RST');
      await progress('delivery after RST');

      states.length = 0;
      await proxy.hold(); // outage 2: silent dead path, noticed by keepalive only
      await waitState('reconnecting', 'keepalive to notice the silent path');
      await proxy.pass();
      await waitState('ready', 'ready after hold');
      await progress('delivery after hold');

      await proxy.refuse(); // outage 3: connections refused
      proxy.resetAll();
      await waitFor(
        () =>
          t.state.state === 'reconnecting' &&
          /ECONNREFUSED|refused/i.test((t.state as { lastError: string }).lastError),
        {
          timeoutMs: 20_000,
          what: 'a refused reconnect attempt',
        },
      );
      await proxy.pass();
      await waitState('ready', 'ready after refusal');
      await progress('delivery after refusal');
    } finally {
      clearInterval(writer);
    }
    const size = readFileSync(p).length;
    await waitFor(() => received() === size, { timeoutMs: 20_000, what: 'every byte delivered' });
    h.close();
    expect(events.filter((e) => e.type === 'reset')).toEqual([]);
    let expected = 0;
    for (const e of events)
      if (e.type === 'data') {
        expect(e.offset).toBe(expected);
        expected += e.bytes.length;
      }
    expect(Buffer.concat(events.map((e) => (e.type === 'data' ? e.bytes : Buffer.alloc(0))))).toEqual(readFileSync(p));
  });

  it('reports truncation and rotation that happen while disconnected', async () => {
    const p = join(dir, 'rot.log');
    writeFileSync(p, 'first file, first line\n');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    const text = (): string =>
      Buffer.concat(
        events.map((e) => (e.type === 'data' ? e.bytes : Buffer.from(`<${e.type === 'reset' ? e.reason : e.type}>`))),
      ).toString();
    await waitFor(() => text() === 'first file, first line\n', { what: 'the first line' });

    // Truncate then regrow past the old offset while away: only the prefix fingerprint shows it.
    await proxy.refuse();
    proxy.resetAll();
    await waitState('reconnecting', 'the drop');
    truncateSync(p, 0);
    appendFileSync(p, 'SECOND content, longer than the first line was\n');
    await proxy.pass();
    await waitFor(() => text().endsWith('<truncated>SECOND content, longer than the first line was\n'), {
      timeoutMs: 20_000,
      what: 'truncation reported after reconnect',
    });

    // Rotation while away.
    await proxy.refuse();
    proxy.resetAll();
    await waitState('reconnecting', 'the second drop');
    renameSync(p, `${p}.1`);
    writeFileSync(p, 'third\n');
    await proxy.pass();
    await waitFor(() => text().endsWith('<replaced>third\n'), {
      timeoutMs: 20_000,
      what: 'rotation reported after reconnect',
    });
    h.close();
  });

  it('gives up after maxElapsedMs (state failed, commands reject) and lets a waiting command be aborted', async () => {
    const cfg = proxiedConfig(sshd, proxy);
    const t2 = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      connectTimeoutMs: 1000,
      reconnect: { baseMs: 50, capMs: 200, maxElapsedMs: 1500 },
    });
    try {
      await proxy.refuse();
      proxy.resetAll();
      await waitFor(() => t2.state.state === 'reconnecting', { what: 't2 to notice the drop' });
      const ac = new AbortController();
      const waiting = t2.exec(['echo', 'never'], { signal: ac.signal });
      ac.abort();
      await expect(waiting).rejects.toThrow(/aborted/);
      await waitFor(() => t2.state.state === 'failed', { what: 't2 to give up' });
      expect((t2.state as { reason: string }).reason).toMatch(/could not reconnect .* within 1500 ms/);
      await expect(t2.exec(['echo', 'x'])).rejects.toThrow(/could not reconnect/);
    } finally {
      await proxy.pass();
      await t2.close();
    }
    await waitState('ready', 'the main transport to recover');
  });

  it('no remote follower outlives a client whose path went silent', async () => {
    const p = join(dir, 'hb.log');
    writeFileSync(p, 'x\n');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => events.length > 0 && followers(sshd).length > 0, { what: 'a running follower' });
    await proxy.hold(); // the client can no longer reach it; sshd does not notice for hours
    await waitFor(() => followers(sshd).length === 0, {
      timeoutMs: 15_000,
      what: 'the orphaned follower to exit on its heartbeat timeout',
    });
    h.close();
    await proxy.pass();
    await waitState('ready', 'ready again');
  });
});
