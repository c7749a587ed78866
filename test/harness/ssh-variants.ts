// Client-side variants of a test sshd, for the host-key and login tests: the sshd under test plus a
// second one whose only use is that its host key and client key differ; an ssh config for a new
// alias that differs from the harness's own in the known_hosts file, the client key or the port;
// known_hosts lines; an encrypted copy of the client key. The server side never changes: each case
// is the same server met with different client files, as a user's own files would differ.
import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshd, type SshdHandle } from './sshd.js';

export interface SshdPair {
  /** The server the tests connect to. */
  s: SshdHandle;
  /** Another server: a host key and a client key that `s` does not know. */
  other: SshdHandle;
  stop(): Promise<void>;
}

/** Starts both servers; if the second cannot start, the first is stopped before the error is thrown. */
export async function startSshdPair(): Promise<SshdPair> {
  const s = await startSshd();
  let other: SshdHandle;
  try {
    other = await startSshd();
  } catch (err) {
    await s.stop();
    throw err;
  }
  return {
    s,
    other,
    async stop() {
      await s.stop();
      await other.stop();
    },
  };
}

/** The known_hosts line that names `s` by its address and port, with `publicKey` (default its own). */
export function knownHostsLine(s: SshdHandle, publicKey = s.hostPublicKey): string {
  return `[${s.host}]:${s.port} ${publicKey}`;
}

/** Writes `text` to a fresh known_hosts file in the server's directory; returns its path. */
export function writeKnownHosts(s: SshdHandle, name: string, text: string): string {
  const file = join(s.dir, `kh_${name}`);
  writeFileSync(file, text);
  return file;
}

export interface ClientConfigOptions {
  /** Default: the harness's, which knows the server's key. */
  knownHostsFile?: string;
  /** Default: the harness's client key, which the server accepts. */
  identityFile?: string;
  /** Default: the server's (another port reaches something that is not this server). */
  port?: number;
  /** More Host lines; they come first, and the first value obtained wins in ssh_config. */
  extra?: string[];
}

/** An ssh config file whose one Host block, alias `name`, reaches `s` as the harness's own does,
 *  but for what `o` changes. Returns its path. */
export function clientConfig(s: SshdHandle, name: string, o: ClientConfigOptions = {}): string {
  const file = join(s.dir, `ssh_config_${name}`);
  writeFileSync(
    file,
    [
      `Host ${name}`,
      ...(o.extra ?? []).map((l) => `  ${l}`),
      `  HostName ${s.host}`,
      `  Port ${o.port ?? s.port}`,
      `  User ${s.user}`,
      `  IdentityFile ${o.identityFile ?? s.identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${o.knownHostsFile ?? s.knownHostsFile}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
    ].join('\n') + '\n',
  );
  return file;
}

/** A copy of the server's client key, encrypted with `passphrase` (as `ssh-keygen -p` leaves it). */
export function encryptedKeyCopy(s: SshdHandle, name: string, passphrase: string): string {
  const file = join(s.dir, `${name}_key`);
  copyFileSync(s.identityFile, file);
  execFileSync('ssh-keygen', ['-p', '-q', '-P', '', '-N', passphrase, '-f', file], { stdio: 'ignore' });
  return file;
}
