// Every real way a first connection fails, against a real sshd (or a TCP listener that is not one):
// the transport names the kind where it fails, connect() keeps it on the ConnectError with the CLI's
// exit code, and the --json code comes from the kind (never from the message's words).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  ConnectFailure,
  openTransport,
  type ConnectFailureKind,
  type OpenTransportOptions,
} from '../../src/remote/index.js';
import { ConnectError, connect } from '../../src/runs/cli-target.js';
import { cliErrorFromConnect } from '../../src/cli/run-errors.js';
import type { Target } from '../../src/runs/targets.js';
import { freePort, type SshdHandle } from '../harness/sshd.js';
import {
  clientConfig,
  encryptedKeyCopy,
  knownHostsLine,
  startSshdPair,
  writeKnownHosts,
  type ClientConfigOptions,
  type SshdPair,
} from '../harness/ssh-variants.js';

/** A TCP listener on loopback that does `onSocket` with every connection (never speaks SSH). */
async function listener(onSocket: (s: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('connection failures carry their kind', () => {
  let pair: SshdPair;
  let s: SshdHandle;
  let other: SshdHandle; // only for its (different) host key and client key
  beforeAll(async () => {
    pair = await startSshdPair();
    ({ s, other } = pair);
  });
  afterAll(async () => {
    await pair?.stop();
  });

  /** Alias `kind-<name>` for the server, as the harness's but for `o`: where to connect. */
  const variant = (name: string, o: ClientConfigOptions) => ({
    host: `kind-${name}`,
    sshConfigFile: clientConfig(s, `kind-${name}`, o),
  });
  const withKnownHosts = (name: string, text: string) =>
    variant(name, { knownHostsFile: writeKnownHosts(s, `kind_${name}`, text) });
  const withPort = (name: string, port: number, extra: string[] = []) => variant(name, { port, extra });
  const withKey = (name: string, identityFile: string) => variant(name, { identityFile });

  /** What each layer says about one failing connection. */
  async function failure(
    { host, sshConfigFile }: { host: string; sshConfigFile: string },
    opts: OpenTransportOptions = {},
  ) {
    const raw = await openTransport(host, { sshConfigFile, ...opts }).then(
      async (t) => {
        await t.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(raw, 'the transport must fail').toBeInstanceOf(ConnectFailure);
    const target = {
      name: 'head',
      host,
      sshConfigFile,
      workdir: '/w',
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    } as Target;
    const wrapped = await connect(target, { acceptNewHostKey: opts.acceptNewHostKey }).then(
      async (t) => {
        await t.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(wrapped).toBeInstanceOf(ConnectError);
    const cli = cliErrorFromConnect(wrapped);
    return {
      kind: (raw as ConnectFailure).kind,
      fatal: (raw as ConnectFailure).fatal,
      error: wrapped as ConnectError,
      cli,
    };
  }

  async function expectKind(
    f: Awaited<ReturnType<typeof failure>>,
    kind: ConnectFailureKind,
    exit: number,
    code: string,
  ) {
    expect(f.kind).toBe(kind);
    expect(f.error.kind).toBe(kind);
    expect(f.error.exitCode).toBe(exit);
    expect(f.fatal).toBe(exit === 2);
    expect(f.cli).toMatchObject({ exitCode: exit, code });
    expect(f.cli.hint).not.toBe('');
    expect(f.cli.message).toBe(f.error.message);
  }

  it('host keys: unknown, mismatched, revoked', async () => {
    await expectKind(await failure(withKnownHosts('unknown', '')), 'host-key-unknown', 2, 'host-key-unknown');
    const otherLine = `${knownHostsLine(s, other.hostPublicKey)}\n`;
    // Even with --accept-new-host-key: a changed key is never accepted.
    await expectKind(
      await failure(withKnownHosts('mismatch', otherLine), { acceptNewHostKey: true }),
      'host-key-mismatch',
      2,
      'host-key-mismatch',
    );
    const revoked = `@revoked * ${s.hostPublicKey}\n${knownHostsLine(s)}\n`;
    await expectKind(await failure(withKnownHosts('revoked', revoked)), 'host-key-revoked', 2, 'host-key-mismatch');
  }, 60_000);

  it('logins: a key the server does not know, an encrypted key headless, a wrong passphrase', async () => {
    await expectKind(await failure(withKey('stranger', other.identityFile)), 'auth-failed', 2, 'auth-failed');
    const encCfg = withKey('enc', encryptedKeyCopy(s, 'kind_enc', 'right phrase'));
    await expectKind(await failure(encCfg), 'key-encrypted', 2, 'auth-failed');
    const wrong = await openTransport(encCfg.host, {
      sshConfigFile: encCfg.sshConfigFile,
      interactive: { askHostKey: async () => false, askPassphrase: async () => 'wrong phrase' },
    }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ConnectFailure);
    expect((wrong as ConnectFailure).kind).toBe('wrong-passphrase');
    expect((wrong as ConnectFailure).fatal).toBe(true);
  }, 60_000);

  it('no host: a closed port, a listener that never answers, one that hangs up at once, one that is not SSH', async () => {
    await expectKind(await failure(withPort('refused', await freePort())), 'unreachable', 4, 'host-unreachable');
    const silent = await listener(() => undefined);
    const hangup = await listener((sock) => sock.destroy());
    // Speaks SSH's banner, then garbage where the key exchange should be.
    const garbage = await listener((sock) => sock.end('SSH-2.0-NotReally\r\n\x00\x00\x00\x0c\x0a\x14garbage!!!!\n'));
    try {
      await expectKind(
        await failure(withPort('silent', silent.port, ['ConnectTimeout 1'])),
        'timeout',
        4,
        'host-unreachable',
      );
      await expectKind(await failure(withPort('hangup', hangup.port)), 'closed', 4, 'host-unreachable');
      await expectKind(await failure(withPort('garbage', garbage.port)), 'handshake-failed', 4, 'host-unreachable');
    } finally {
      await silent.close();
      await hangup.close();
      await garbage.close();
    }
  }, 60_000);

  it('settings: an ssh config file that is not there, a target that is not one', async () => {
    await expectKind(
      await failure({ host: s.alias, sshConfigFile: join(s.dir, 'no-such-ssh-config') }),
      'ssh-settings',
      2,
      'connect-failed',
    );
    const bad = await openTransport('-oProxyCommand=x').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectFailure);
    expect((bad as ConnectFailure).kind).toBe('ssh-settings');
  }, 30_000);
});
