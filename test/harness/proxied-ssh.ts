// An ssh config that reaches a test sshd through the cuttable TCP proxy (so a test can drop the
// connection), and the remote follower processes left under that sshd.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { descendants, type SshdHandle } from './sshd.js';
import type { TcpProxy } from './tcp-proxy.js';

/** Remote follower processes (bash running follow-frames.ts's FOLLOWER_SCRIPT, argv0 `awrl-follow`) under this sshd. */
export function followers(sshd: SshdHandle): number[] {
  return descendants(sshd.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`).includes(Buffer.from('\0awrl-follow\0'));
    } catch {
      return false;
    }
  });
}

/** An ssh config file with one host alias (`<prefix>-<port>`) that goes through `proxy` to `sshd`,
 *  with its own known_hosts holding the sshd's key under the proxy's address. */
export function proxiedConfig(sshd: SshdHandle, proxy: TcpProxy, prefix = 'proxied'): { file: string; alias: string } {
  const alias = `${prefix}-${proxy.port}`;
  const kh = join(sshd.dir, `known_hosts_${prefix}_${proxy.port}`);
  writeFileSync(kh, `[127.0.0.1]:${proxy.port} ${sshd.hostPublicKey}\n`);
  const file = join(sshd.dir, `ssh_config_${prefix}_${proxy.port}`);
  writeFileSync(
    file,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${proxy.port}`,
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${kh}`,
      '  StrictHostKeyChecking yes',
    ].join('\n') + '\n',
  );
  return { file, alias };
}
