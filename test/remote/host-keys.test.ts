// Host keys, authentication and reachability against a real sshd: known (plain, hashed), unknown
// (refused headless, accepted with the flag and written hashed), mismatched and revoked (refused),
// plus the errors a user sees for a bad key or a dead port. And ProxyJump through a second sshd.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { startSshd, freePort, descendants, type SshdHandle } from '../harness/sshd.js';
import {
  clientConfig,
  encryptedKeyCopy,
  knownHostsLine,
  startSshdPair,
  writeKnownHosts,
  type SshdPair,
} from '../harness/ssh-variants.js';
import { waitFor } from '../harness/wait.js';

describe('host keys and authentication', () => {
  let pair: SshdPair;
  let s: SshdHandle;
  let other: SshdHandle; // only for its (different) host key
  beforeAll(async () => {
    pair = await startSshdPair();
    ({ s, other } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
  });

  it('accepts a known plain entry', async () => {
    const t = await openTransport(s.alias, { sshConfigFile: s.sshConfigFile });
    expect((await t.exec(['echo', 'ok'])).stdout.toString()).toBe('ok\n');
    await t.close();
    expect(t.state.state).toBe('closed');
  });

  it('accepts a known hashed entry', async () => {
    const kh = writeKnownHosts(s, 'hashed', readFileSync(s.knownHostsFile, 'utf8'));
    execFileSync('ssh-keygen', ['-H', '-f', kh], { stdio: 'ignore' });
    expect(readFileSync(kh, 'utf8')).toMatch(/^\|1\|/);
    const t = await openTransport('hashed', { sshConfigFile: clientConfig(s, 'hashed', { knownHostsFile: kh }) });
    expect(t.state.state).toBe('ready');
    await t.close();
  });

  it('accepts an entry found through a wildcard pattern, and a negated pattern excludes it', async () => {
    const kh = writeKnownHosts(s, 'pattern', `[127.0.0.*]:${s.port} ${s.hostPublicKey}\n`);
    const t = await openTransport('pattern', { sshConfigFile: clientConfig(s, 'pattern', { knownHostsFile: kh }) });
    await t.close();
    writeFileSync(kh, `[127.0.0.*]:${s.port},![127.0.0.1]:${s.port} ${s.hostPublicKey}\n`);
    await expect(
      openTransport('negated', { sshConfigFile: clientConfig(s, 'negated', { knownHostsFile: kh }) }),
    ).rejects.toThrow(/unknown/);
  });

  it('refuses an unknown host headless, showing the fingerprint and the way out', async () => {
    const kh = writeKnownHosts(s, 'empty', '');
    const err = await openTransport('unknown', {
      sshConfigFile: clientConfig(s, 'unknown', { knownHostsFile: kh }),
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain(s.hostKeyFingerprint);
    expect(err?.message).toContain('--accept-new-host-key');
    expect(readFileSync(kh, 'utf8')).toBe('');
  });

  it('accepts an unknown host with acceptNewHostKey and writes a hashed line ssh-keygen -F finds', async () => {
    const kh = writeKnownHosts(s, 'new', '');
    const t = await openTransport('newkey', {
      sshConfigFile: clientConfig(s, 'newkey', { knownHostsFile: kh }),
      acceptNewHostKey: true,
    });
    await t.close();
    const text = readFileSync(kh, 'utf8');
    expect(text).toMatch(/^\|1\|[^ ]+ ssh-ed25519 /);
    const found = execFileSync('ssh-keygen', ['-F', `[127.0.0.1]:${s.port}`, '-f', kh], { encoding: 'utf8' });
    expect(found).toContain(s.hostPublicKey.split(' ')[1]);
    // And OpenSSH itself now trusts the host through that file.
    const out = execFileSync(
      'ssh',
      ['-F', clientConfig(s, 'newkey2', { knownHostsFile: kh }), '-o', 'BatchMode=yes', 'newkey2', 'echo', 'hi'],
      { encoding: 'utf8' },
    );
    expect(out).toBe('hi\n');
  });

  it('asks the TUI about an unknown host and honours the answer', async () => {
    const kh = writeKnownHosts(s, 'ask', '');
    const asked: string[] = [];
    const ask = (answer: boolean) => ({
      askHostKey: async (info: { host: string; fingerprint: string }) => {
        asked.push(`${info.host} ${info.fingerprint}`);
        return answer;
      },
      askPassphrase: async () => null,
    });
    const cfg = clientConfig(s, 'ask', { knownHostsFile: kh, extra: ['StrictHostKeyChecking ask'] });
    await expect(openTransport('ask', { sshConfigFile: cfg, interactive: ask(false) })).rejects.toThrow(/unknown/);
    const t = await openTransport('ask', { sshConfigFile: cfg, interactive: ask(true) });
    await t.close();
    expect(asked).toEqual([
      `[127.0.0.1]:${s.port} ${s.hostKeyFingerprint}`,
      `[127.0.0.1]:${s.port} ${s.hostKeyFingerprint}`,
    ]);
    expect(readFileSync(kh, 'utf8')).toMatch(/^\|1\|/);
  });

  it('asks once per connection even though the server re-keys (ssh2 re-verifies on every rekey)', async () => {
    const rekeying = await startSshd({ extraConfig: ['RekeyLimit 16K 1s', 'LogLevel DEBUG1'] });
    try {
      const kh = writeKnownHosts(rekeying, 'rekey', '');
      let asked = 0;
      const cfg = clientConfig(rekeying, 'rekey', { knownHostsFile: kh, extra: ['StrictHostKeyChecking ask'] });
      const t = await openTransport('rekey', {
        sshConfigFile: cfg,
        interactive: { askHostKey: async () => (++asked, true), askPassphrase: async () => null },
      });
      for (let i = 0; i < 3; i++)
        expect((await t.exec(['head', '-c', '200000', '/dev/zero'])).stdout.length).toBe(200000);
      expect(readFileSync(join(rekeying.dir, 'sshd.log'), 'utf8')).toMatch(/rekey/i);
      expect(asked).toBe(1);
      expect(readFileSync(kh, 'utf8').trim().split('\n')).toHaveLength(1);
      await t.close();
    } finally {
      await rekeying.stop();
    }
  });

  it('refuses a mismatched key, naming both the offered fingerprint and the disagreeing line', async () => {
    const line = knownHostsLine(s, other.hostPublicKey);
    const kh = writeKnownHosts(s, 'mismatch', `# a comment\n${line}\n`);
    const err = await openTransport('mismatch', {
      sshConfigFile: clientConfig(s, 'mismatch', { knownHostsFile: kh }),
      acceptNewHostKey: true,
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain('does NOT match');
    expect(err?.message).toContain(s.hostKeyFingerprint);
    expect(err?.message).toContain(`${kh}:2`);
    expect(err?.message).toContain(line);
  });

  it('refuses a revoked key even when it is also listed as known', async () => {
    const kh = writeKnownHosts(s, 'revoked', `@revoked * ${s.hostPublicKey}\n${knownHostsLine(s)}\n`);
    await expect(
      openTransport('revoked', { sshConfigFile: clientConfig(s, 'revoked', { knownHostsFile: kh }) }),
    ).rejects.toThrow(/REVOKED/);
  });

  it('fails authentication with a clear message', async () => {
    const cfg = clientConfig(s, 'badkey', { identityFile: other.identityFile });
    await expect(openTransport('badkey', { sshConfigFile: cfg })).rejects.toThrow(/authentication to .* failed/);
  });

  it('an encrypted key headless is a clear error, and the TUI passphrase unlocks it', async () => {
    const cfg = clientConfig(s, 'enc', { identityFile: encryptedKeyCopy(s, 'enc', 'pass phrase') });
    await expect(openTransport('enc', { sshConfigFile: cfg })).rejects.toThrow(
      /encrypted.*ssh-add|ssh-add.*encrypted/s,
    );
    const t = await openTransport('enc', {
      sshConfigFile: cfg,
      interactive: { askHostKey: async () => false, askPassphrase: async () => 'pass phrase' },
    });
    expect(t.state.state).toBe('ready');
    await t.close();
  });

  it('an unreachable port is a clear error naming the host', async () => {
    const port = await freePort();
    await expect(openTransport(`${s.user}@127.0.0.1:${port}`, { acceptNewHostKey: true })).rejects.toThrow(
      new RegExp(`cannot reach .*127\\.0\\.0\\.1:${port}.*ECONNREFUSED`),
    );
  });

  it('without an OpenSSH client on PATH, reads the config file itself', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent-awrl';
    try {
      const t = await openTransport(s.alias, { sshConfigFile: s.sshConfigFile });
      process.env.PATH = saved;
      expect((await t.exec(['echo', 'fallback'])).stdout.toString()).toBe('fallback\n');
      await t.close();
    } finally {
      process.env.PATH = saved;
    }
  });

  it('connects by user@host:port with the options given', async () => {
    const cfg = join(s.dir, 'ssh_config_direct');
    writeFileSync(
      cfg,
      `Host *\n  IdentityFile ${s.identityFile}\n  UserKnownHostsFile ${s.knownHostsFile}\n  StrictHostKeyChecking yes\n`,
    );
    const t = await openTransport(`${s.user}@127.0.0.1:${s.port}`, { sshConfigFile: cfg });
    expect((await t.exec(['whoami'])).stdout.toString().trim()).toBe(s.user);
    await t.close();
  });
});

describe('ProxyJump', () => {
  let bastion: SshdHandle;
  let target: SshdHandle;
  beforeAll(async () => {
    bastion = await startSshd();
    // Same client key on both; the target only reachable (in config) through the bastion.
    target = await startSshd({ identityFile: bastion.identityFile });
  });
  afterAll(async () => {
    await target?.stop();
    await bastion?.stop();
  });

  it('runs commands on the target through a second sshd acting as the bastion', async () => {
    const kh = join(target.dir, 'kh_both');
    writeFileSync(kh, readFileSync(bastion.knownHostsFile, 'utf8') + readFileSync(target.knownHostsFile, 'utf8'));
    const cfg = join(target.dir, 'ssh_config_jump');
    const common = [
      `  User ${bastion.user}`,
      `  IdentityFile ${bastion.identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${kh}`,
      '  StrictHostKeyChecking yes',
    ];
    writeFileSync(
      cfg,
      [
        'Host jumpbox',
        '  HostName 127.0.0.1',
        `  Port ${bastion.port}`,
        ...common,
        'Host inner',
        '  HostName 127.0.0.1',
        `  Port ${target.port}`,
        '  ProxyJump jumpbox',
        ...common,
      ].join('\n') + '\n',
    );
    const t = await openTransport('inner', { sshConfigFile: cfg, reconnect: { baseMs: 50, capMs: 200 } });
    const r = await t.exec(['bash', '-c', 'echo "$SSH_CONNECTION"']);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toContain(` ${target.port}`);
    // The chain is one connection: killing the bastion's sessions drops it, and it comes back whole.
    const states: string[] = [];
    t.onState((st) => states.push(st.state));
    const bastionSessions = descendants(bastion.pid);
    expect(bastionSessions.length).toBeGreaterThan(0);
    for (const pid of bastionSessions) process.kill(pid, 'SIGKILL');
    await waitFor(() => states.includes('reconnecting'), { what: 'the chain to notice the dead bastion' });
    await waitFor(() => t.state.state === 'ready', { what: 'the chain to reconnect' });
    expect(descendants(bastion.pid).length).toBeGreaterThan(0); // it came back through the bastion
    expect((await t.exec(['echo', 'again'])).stdout.toString()).toBe('again\n');
    await t.close();
  });
});
