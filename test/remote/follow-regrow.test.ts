// Truncate-and-regrow between two looks at the file (a restarted trainer or launcher rewriting the
// log with `>`): the size is past the old offset again, the inode is the same, and a log whose
// first line does not change (a launcher banner) has the same first bytes too. Reading on from the
// old offset would glue the new file's middle onto the old one. It must be a `truncated` reset,
// the new file then delivered from its first byte: nothing lost, nothing twice. Local and ssh,
// while connected, and (ssh) while the connection was down.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { sessionPathConfig } from '../harness/session-path.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { proxiedConfig } from '../harness/proxied-ssh.js';
import { waitFor } from '../harness/wait.js';
import { useFollowTransport } from '../harness/follow-transport.js';

/** The same first line in every incarnation of the log, longer than the 64-byte prefix fingerprint. */
const BANNER = 'awrl: run demo-20261129-153451-ab12 started on head-node by launcher version 0.4.2\n';
const lines = (tag: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `${tag} step ${i + 1}: reward 0.${i}${i}${i}\n`).join('');
const text = (events: FollowEvent[]): string =>
  events.map((e) => (e.type === 'data' ? e.bytes.toString() : e.type === 'reset' ? `<${e.reason}>` : '')).join('');

describe.each(['local', 'ssh', 'openssh'] as const)('truncate-and-regrow between two polls, transport %s', (kind) => {
  const f = useFollowTransport(kind, 'awrl-regrow-');

  it('a rewritten log with the same first line is a truncated reset, then the new file from its first byte', async () => {
    const p = join(f.dir, 'stdout.log');
    const first = BANNER + lines('first', 3);
    writeFileSync(p, first);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => text(events) === first, { what: 'the first incarnation' });
    // One synchronous rewrite, longer than before: between two looks the file is simply bigger.
    const second = BANNER + lines('second', 6);
    writeFileSync(p, second);
    await waitFor(() => text(events).endsWith(second), { timeoutMs: 20_000, what: 'the second incarnation' });
    h.close();
    expect(text(events)).toBe(`${first}<truncated>${second}`);
  });

  it('a rewrite whose last lines repeat (same bytes before the offset) is told by its first line', async () => {
    const p = join(f.dir, 'repetitive.log');
    const waiting = 'waiting for rollout batch...\n'.repeat(20);
    const first = `20261129-15:34:51.001 started\n${waiting}`;
    writeFileSync(p, first);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => text(events) === first, { what: 'the first incarnation' });
    const second = `20261129-15:40:02.917 started\n${waiting}${waiting}`;
    writeFileSync(p, second);
    await waitFor(() => text(events).endsWith(second), { timeoutMs: 20_000, what: 'the second incarnation' });
    h.close();
    expect(text(events)).toBe(`${first}<truncated>${second}`);
  });

  it('a rewrite that keeps the size (only the bytes show it) is a truncated reset too', async () => {
    const p = join(f.dir, 'same-size.log');
    const first = BANNER + lines('aaaaa', 4);
    writeFileSync(p, first);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => text(events) === first, { what: 'the first incarnation' });
    const second = BANNER + lines('bbbbb', 4);
    expect(second.length).toBe(first.length);
    writeFileSync(p, second);
    await waitFor(() => text(events).endsWith(second), { timeoutMs: 20_000, what: 'the rewritten file' });
    h.close();
    expect(text(events)).toBe(`${first}<truncated>${second}`);
  });
});

describe('truncate-and-regrow while the ssh connection is down', () => {
  let sshd: SshdHandle;
  let proxy: TcpProxy;
  let t: Transport;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-regrow-drop-'));
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    const cfg = proxiedConfig(sshd, proxy, 'regrow');
    t = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      keepaliveIntervalMs: 500,
      keepaliveCountMax: 2,
      reconnect: { baseMs: 100, capMs: 400 },
      followPollMs: 50,
    });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the new follower sees that the bytes before the offset changed, even with the same first line', async () => {
    const p = join(dir, 'stdout.log');
    const first = BANNER + lines('first', 3);
    writeFileSync(p, first);
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => text(events) === first, { what: 'the first incarnation' });
    await proxy.refuse();
    proxy.resetAll();
    await waitFor(() => t.state.state === 'reconnecting', { what: 'the drop' });
    const second = BANNER + lines('second', 6);
    writeFileSync(p, second);
    await proxy.pass();
    await waitFor(() => text(events).endsWith(second), {
      timeoutMs: 20_000,
      what: 'the second incarnation after the reconnect',
    });
    h.close();
    expect(text(events)).toBe(`${first}<truncated>${second}`);
  });
});

// The follower took the first bytes' fingerprint from the file right AFTER sending them: a log
// rewritten in between (a busy head, a restart at once) gave it the new file's first bytes as ours,
// and with the same bytes before the offset the rewrite went unseen (a CI flake of the test above).
// A `tee` that lingers after writing widens that moment to a second, every time.
describe('a rewrite right after the first bytes were sent', () => {
  const tee = '#!/bin/sh\n/usr/bin/tee "$@"\nsleep 1\n';
  const f = useFollowTransport('ssh', 'awrl-regrow-slow-', {
    followPollMs: 100,
    sshdConfig: (dir) => sessionPathConfig(dir, [], { tee }),
  });

  it('is a truncated reset, then the new file from its first byte', async () => {
    const p = join(f.dir, 'repetitive.log');
    const waiting = 'waiting for rollout batch...\n'.repeat(20);
    const first = `20261129-15:34:51.001 started\n${waiting}`;
    writeFileSync(p, first);
    const events: FollowEvent[] = [];
    const second = `20261129-15:40:02.917 started\n${waiting}${waiting}`;
    const h = f.t.follow(p, 0, (e) => {
      events.push(e);
      // At once, while the follower's tee still lingers.
      if (e.type === 'data' && text(events) === first) writeFileSync(p, second);
    });
    await waitFor(() => text(events).endsWith(second), { timeoutMs: 20_000, what: 'the second incarnation' });
    h.close();
    expect(text(events)).toBe(`${first}<truncated>${second}`);
  });
});
