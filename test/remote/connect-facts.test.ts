// Connection failures carry their facts, set where they fail, against a real sshd: the fingerprint
// of an unknown host key (as `ssh-keygen -lf` prints it for the server's key), the known_hosts file
// and line of a mismatch, the key file of an encrypted key or a wrong passphrase, host:port and the
// socket error of a refused port, the hop of a ProxyJump that could not forward. Each reaches the
// cockpit's advice and the CLI's --json error line as values, whatever the message's words.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectFailure, openTransport, type OpenTransportOptions } from '../../src/remote/index.js';
import { connectFactsOf, type ConnectFacts } from '../../src/remote/connect-failure.js';
import { connect } from '../../src/runs/cli-target.js';
import type { Target } from '../../src/runs/targets.js';
import { cliErrorFromConnect } from '../../src/cli/run-errors.js';
import { jsonErrorOf } from '../../src/cli/json-errors.js';
import { connectProblem } from '../../src/session/connect-advice.js';
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

describe('connection failures carry their facts', () => {
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

  const variant = (name: string, o: ClientConfigOptions = {}) => ({
    host: `facts-${name}`,
    sshConfigFile: clientConfig(s, `facts-${name}`, o),
  });

  /** What openTransport threw (it must throw a ConnectFailure). */
  async function failure(
    v: { host: string; sshConfigFile: string },
    opts: OpenTransportOptions = {},
  ): Promise<ConnectFailure> {
    const raw = await openTransport(v.host, { sshConfigFile: v.sshConfigFile, ...opts }).then(
      async (t) => {
        await t.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(raw, 'the transport must fail').toBeInstanceOf(ConnectFailure);
    return raw as ConnectFailure;
  }

  /** The --json error line of the headless commands for the same target (through src/runs' connect()). */
  async function jsonLine(v: { host: string; sshConfigFile: string }): Promise<Record<string, unknown>> {
    const target = {
      name: 'head',
      host: v.host,
      sshConfigFile: v.sshConfigFile,
      workdir: '/w',
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    } as Target;
    const wrapped = await connect(target).then(
      async (t) => {
        await t.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(wrapped).toBeInstanceOf(Error);
    return JSON.parse(JSON.stringify(jsonErrorOf(cliErrorFromConnect(wrapped))));
  }

  const serverLink = (alias: string, configFile: string): ConnectFacts => ({
    alias,
    user: s.user,
    host: s.host,
    port: s.port,
    sshConfigFile: configFile,
  });

  it('an unknown host key: its fingerprint is the one ssh-keygen -lf prints for the server key', async () => {
    const pub = join(s.dir, 'facts_host_key.pub');
    writeFileSync(pub, `${s.hostPublicKey}\n`);
    const keygenFp = execFileSync('ssh-keygen', ['-lf', pub], { encoding: 'utf8' }).split(/\s+/)[1];
    expect(keygenFp).toMatch(/^SHA256:/);
    const kh = writeKnownHosts(s, 'facts_unknown', '');
    const v = variant('unknown', { knownHostsFile: kh });
    const f = await failure(v);
    expect(f.kind).toBe('host-key-unknown');
    expect(f.facts).toEqual({ ...serverLink(v.host, v.sshConfigFile), fingerprint: keygenFp, knownHostsFile: kh });
    expect(connectProblem('head', f).what).toBe(`host key of ${s.host}:${s.port} is not known: ${keygenFp}`);
    const json = await jsonLine(v);
    // The five fields every error line has, unchanged, then the facts.
    expect(Object.keys(json).slice(0, 5)).toEqual(['type', 'exit', 'code', 'message', 'hint']);
    expect(json).toMatchObject({
      type: 'cli-error',
      exit: 2,
      code: 'host-key-unknown',
      host: s.host,
      port: s.port,
      alias: v.host,
      fingerprint: keygenFp,
      knownHostsFile: kh,
    });
    expect(json).not.toHaveProperty('knownHostsLine');
  }, 60_000);

  it('a mismatched or revoked host key: the known_hosts file and the line that decided', async () => {
    const kh = writeKnownHosts(s, 'facts_mismatch', `# ours\n\n${knownHostsLine(s, other.hostPublicKey)}\n`);
    const v = variant('mismatch', { knownHostsFile: kh });
    // Even with --accept-new-host-key: a changed key is never accepted.
    const f = await failure(v, { acceptNewHostKey: true });
    expect(f.kind).toBe('host-key-mismatch');
    expect(f.facts).toEqual({
      ...serverLink(v.host, v.sshConfigFile),
      fingerprint: s.hostKeyFingerprint,
      knownHostsFile: kh,
      knownHostsLine: 3,
    });
    const p = connectProblem('head', f);
    expect(p.what).toBe(
      `host key of ${s.host}:${s.port} does NOT match known_hosts (${kh}:3): the server offered ${s.hostKeyFingerprint}`,
    );
    expect(p.todo).toContain(`ssh-keygen -R '[${s.host}]:${s.port}' -f ${kh}`);
    expect(await jsonLine(v)).toMatchObject({
      exit: 2,
      code: 'host-key-mismatch',
      knownHostsFile: kh,
      knownHostsLine: 3,
      fingerprint: s.hostKeyFingerprint,
      port: s.port,
    });
    // A revoked key: the @revoked line, though a plain line for the same key follows it.
    const rkh = writeKnownHosts(s, 'facts_revoked', `${knownHostsLine(s)}\n@revoked * ${s.hostPublicKey}\n`);
    const revoked = await failure(variant('revoked', { knownHostsFile: rkh }));
    expect(revoked.kind).toBe('host-key-revoked');
    expect(revoked.facts).toMatchObject({ fingerprint: s.hostKeyFingerprint, knownHostsFile: rkh, knownHostsLine: 2 });
    expect(connectProblem('head', revoked).what).toBe(
      `host key of ${s.host}:${s.port} is marked @revoked in known_hosts (${rkh}:2): ${s.hostKeyFingerprint}`,
    );
  }, 60_000);

  it('an encrypted key headless, and a wrong passphrase: the key file, never the passphrase', async () => {
    const key = encryptedKeyCopy(s, 'facts_enc', 'facts right phrase');
    const v = variant('enc', { identityFile: key });
    const enc = await failure(v);
    expect(enc.kind).toBe('key-encrypted');
    expect(enc.facts).toEqual({ ...serverLink(v.host, v.sshConfigFile), keyFile: key });
    expect(connectProblem('head', enc).what).toBe(
      `the key ${key} is encrypted and no passphrase was given (${s.user}@${s.host}:${s.port})`,
    );
    const json = await jsonLine(v);
    expect(json).toMatchObject({ exit: 2, code: 'auth-failed', keyFile: key, user: s.user });
    const wrong = await failure(v, {
      interactive: { askHostKey: async () => false, askPassphrase: async () => 'facts wrong phrase' },
    });
    expect(wrong.kind).toBe('wrong-passphrase');
    expect(wrong.facts).toMatchObject({ keyFile: key, host: s.host, port: s.port });
    const everything = JSON.stringify([enc.facts, wrong.facts, json]);
    expect(everything).not.toContain('facts right phrase');
    expect(everything).not.toContain('facts wrong phrase');
    expect(everything).not.toContain(readFileSync(key, 'utf8').split('\n')[1]);
  }, 60_000);

  it('a refused port: host, port and the socket error', async () => {
    const port = await freePort();
    const v = variant('refused', { port });
    const f = await failure(v);
    expect(f.kind).toBe('unreachable');
    expect(f.facts).toEqual({ ...serverLink(v.host, v.sshConfigFile), port, errno: 'ECONNREFUSED' });
    expect(connectProblem('head', f).what).toBe(`cannot reach ${v.host} at ${s.host}:${port} (ECONNREFUSED)`);
    expect(await jsonLine(v)).toMatchObject({
      exit: 4,
      code: 'host-unreachable',
      host: s.host,
      port,
      errno: 'ECONNREFUSED',
    });
  }, 60_000);

  it('a ProxyJump hop that cannot forward: the target beyond it and the hop', async () => {
    const port = await freePort();
    const hop = variant('hop');
    const file = join(s.dir, 'ssh_config_facts_beyond');
    writeFileSync(
      file,
      readFileSync(hop.sshConfigFile, 'utf8') +
        [
          'Host facts-beyond',
          `  HostName ${s.host}`,
          `  Port ${port}`,
          `  User ${s.user}`,
          `  ProxyJump ${hop.host}`,
          `  UserKnownHostsFile ${s.knownHostsFile}`,
        ].join('\n') +
        '\n',
    );
    const f = await failure({ host: 'facts-beyond', sshConfigFile: file });
    expect(f.kind).toBe('unreachable');
    expect(f.facts).toMatchObject({
      alias: 'facts-beyond',
      host: s.host,
      port,
      jumpHost: hop.host,
      sshConfigFile: file,
    });
    expect(connectProblem('beyond', f).what).toBe(`cannot reach facts-beyond at ${s.host}:${port} through ${hop.host}`);
  }, 60_000);

  it('settings that cannot resolve: the target as written and the config file', async () => {
    const missing = join(s.dir, 'no-such-ssh-config');
    const f = await failure({ host: s.alias, sshConfigFile: missing });
    expect(f.kind).toBe('ssh-settings');
    expect(f.facts).toEqual({ alias: s.alias, sshConfigFile: missing });
    // Rewrapped (src/runs' ConnectError keeps the failure as its cause): the facts are found there.
    expect(connectFactsOf(new Error(`cannot connect to head: ${f.message}`, { cause: f }))).toEqual(f.facts);
    expect(connectFactsOf(new Error(`cannot connect to head: ${f.message}`))).toEqual({});
  }, 30_000);
});
