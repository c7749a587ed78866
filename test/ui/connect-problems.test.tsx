/** @jsxRuntime classic */
// The cockpit's connect step says, per kind of failure, what happened and what to do, over a real
// sshd: an unknown host key (its fingerprint, how to trust it), a refused login, a host that cannot
// be reached (host:port, VPN/ProxyJump, `r` retries). The targets that connected open the cockpit;
// the others stay on the Runs screen with their advice, and `r` connects one again once it can.
import React from 'react';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { connectTargets, type CockpitTarget } from '../../src/ui/connect.js';
import { createLiveSession, type LiveSession, type TargetConnection } from '../../src/session/live-session.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';

describe('connect problems on the Runs screen (real sshd)', () => {
  let s: SshdHandle;
  let other: SshdHandle; // only for a client key the server does not know
  let proxy: TcpProxy; // the `down` target's port: refused until the test lets it through
  let dir: string;
  let connections: TargetConnection[] = [];
  let failures: string[] = [];
  let session: LiveSession;
  let r: Rendered;

  /** The harness's ssh config for its alias with `edit` applied, as a target named `name`. */
  function target(name: string, edit: (text: string) => string = (t) => t): CockpitTarget {
    const file = join(dir, `ssh_config_${name}`);
    writeFileSync(file, edit(readFileSync(s.sshConfigFile, 'utf8')));
    return {
      name,
      host: s.alias,
      sshConfigFile: file,
      workdir: join(dir, name),
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    } as CockpitTarget;
  }

  beforeAll(async () => {
    s = await startSshd();
    other = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'awrl-connect-ui-'));
    proxy = await startTcpProxy(s.port);
    await proxy.refuse();
    const emptyKh = join(dir, 'known_hosts_empty');
    writeFileSync(emptyKh, '');
    const proxyKh = join(dir, 'known_hosts_proxy');
    writeFileSync(proxyKh, `[127.0.0.1]:${proxy.port} ${s.hostPublicKey}\n`);
    const targets = [
      target('good'),
      // StrictHostKeyChecking yes (the harness's): nobody is asked, the key stays unknown.
      target('stranger', (t) => t.replace(/^(\s*UserKnownHostsFile) .*$/m, `$1 ${emptyKh}`)),
      target('nokey', (t) => t.replace(s.identityFile, other.identityFile)),
      target('down', (t) =>
        t.replace(/^(\s*Port) \d+$/m, `$1 ${proxy.port}`).replace(/^(\s*UserKnownHostsFile) .*$/m, `$1 ${proxyKh}`),
      ),
    ];
    ({ connections, failures } = await connectTargets(targets));
    session = createLiveSession({ targets: connections, gpuPoller: null, runsPollMs: 60_000 });
    r = renderInk(
      <App session={session} initialScreen="runs" size={{ columns: 120, rows: 40 }} colors={false} frameMs={50} />,
    );
  });

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await Promise.all(connections.map((c) => c.transport.close().catch(() => undefined)));
    await proxy?.stop();
    await s?.stop();
    await other?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('one line per failed target, per kind, for stderr and the no-target error', () => {
    expect(failures).toHaveLength(3);
    const [stranger, nokey, down] = failures;
    expect(stranger).toBe(
      `stranger: host key of 127.0.0.1:${s.port} is not known: ${s.hostKeyFingerprint}; check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh`,
    );
    expect(nokey).toMatch(
      new RegExp(
        `^nokey: [^ ]+@127\\.0\\.0\\.1:${s.port} refused the login .*; check User and IdentityFile in the ssh config, or load your key with ssh-add`,
      ),
    );
    expect(down).toMatch(
      new RegExp(
        `^down: cannot reach ${s.alias} at 127\\.0\\.0\\.1:${proxy.port} \\(ECONNREFUSED\\); check that the host is up, the host name and port, your VPN, and any ProxyJump`,
      ),
    );
    // The advice is the cockpit's: it asks about host keys, it has no --accept-new-host-key.
    expect(failures.join('\n')).not.toContain('--accept-new-host-key');
  });

  it('the Runs screen keeps every target in order, says what to do, and when r can connect it', async () => {
    expect(connections.map((c) => c.target.name)).toEqual(['good', 'stranger', 'nokey', 'down']);
    const f = await waitForFrame(
      r,
      (x) => x.includes('not connected: cannot reach') && /good\s+connected/.test(x),
      'the four targets',
    );
    expect(f).toContain(
      `stranger  not connected: host key of 127.0.0.1:${s.port} is not known: ${s.hostKeyFingerprint}`,
    );
    expect(f).toMatch(
      /what to do: check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts/,
    );
    expect(f).toMatch(/nokey {2}not connected: \S+ refused the login/);
    expect(f).toContain(`down  not connected: cannot reach ${s.alias} at 127.0.0.1:${proxy.port} (ECONNREFUSED)`);
    // `r` under each: at once where the host may come back, once fixed where a key or login is wrong.
    const rows = f.split('\n');
    const rAfter = (name: string) =>
      rows
        .slice(rows.findIndex((l) => l.startsWith(`${name}  not connected`)))
        .find((l) => l.includes('r connects again'))
        ?.trim();
    expect(rAfter('stranger')).toBe('r connects again once it is in known_hosts');
    expect(rAfter('nokey')).toBe('r connects again once that is done');
    expect(rAfter('down')).toBe('r connects again');
  });

  it('r connects the unreachable target once it can be reached; the others stay as they were', async () => {
    await proxy.pass();
    r.stdin.write('r');
    // Every retry settled: `down` connected, and the two that r tried again answered again (a
    // retry of theirs still under way shows `connecting…`).
    const f = await waitForFrame(
      r,
      (x) => /down\s+connected/.test(x) && !x.includes('connecting…'),
      'down connected after r, the other retries settled',
      15_000,
    );
    expect(f).not.toContain('not connected: cannot reach');
    // Nothing was fixed for these two: r said the same again.
    expect(f).toContain('stranger  not connected: host key');
    expect(f).toMatch(/nokey {2}not connected/);
    const down = connections.find((c) => c.target.name === 'down')!;
    expect(down.transport.state.state).toBe('ready');
    // The connection is real: a command runs on the target through it.
    expect((await down.transport.exec(['echo', 'hi'])).stdout.toString()).toBe('hi\n');
    // What is printed once the cockpit closes no longer says `down` could not be reached.
    expect(failures.map((l) => l.split(':')[0])).toEqual(['stranger', 'nokey']);
  });

  it('fixed outside the cockpit (the host key in known_hosts, the key authorized), r connects them too', async () => {
    writeFileSync(join(dir, 'known_hosts_empty'), `[127.0.0.1]:${s.port} ${s.hostPublicKey}\n`);
    appendFileSync(join(s.dir, 'authorized_keys'), readFileSync(`${other.identityFile}.pub`, 'utf8'));
    r.stdin.write('r');
    const f = await waitForFrame(
      r,
      (x) => /stranger\s+connected/.test(x) && /nokey\s+connected/.test(x),
      'stranger and nokey connected after r',
      15_000,
    );
    expect(f).not.toContain('not connected');
    expect(failures).toEqual([]);
  });
});
