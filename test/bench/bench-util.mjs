// Small helpers shared by the benchmarks that start real processes (sshd) and must clean up
// every process they started, by PID.
import { createServer } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';

/** A TCP port free on `host` right now. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = createServer().listen(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Every descendant PID of `pid` (children first), read from /proc. */
export function descendants(pid) {
  const kids = new Map();
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const st = readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(n)]);
    } catch {}
  }
  const out = [];
  const visit = (p) => (kids.get(p) ?? []).forEach((c) => (visit(c), out.push(c)));
  visit(pid);
  return out;
}

/** A throwaway sshd on 127.0.0.1 for `dir` (its keys, config and log there), and an ssh_config
 *  naming it `bench` for both OpenSSH and the ssh2 transport. Stop it with process.kill(pid). */
export async function startBenchSshd(dir) {
  const { execFileSync, spawn } = await import('node:child_process');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { userInfo } = await import('node:os');
  mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort();
  for (const k of ['host', 'client']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  const sshdConfig = join(dir, 'sshd_config');
  const settings = [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`];
  settings.push(`PidFile ${join(dir, 'pid')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`);
  settings.push('UsePAM no', 'StrictModes no', 'PermitRootLogin prohibit-password', 'SetEnv SHLVL=1');
  writeFileSync(sshdConfig, settings.join('\n') + '\n');
  const log = join(dir, 'sshd.log');
  const child = spawn('/usr/sbin/sshd', ['-D', '-f', sshdConfig, '-E', log], { stdio: 'ignore' });
  const end = Date.now() + 30_000;
  while (!readSafe(log).includes('Server listening')) {
    if (Date.now() > end) throw new Error('sshd did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const hostPub = readFileSync(join(dir, 'host.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`);
  const sshConfig = join(dir, 'ssh_config');
  const block = ['Host bench', '  HostName 127.0.0.1', `  Port ${port}`, `  User ${userInfo().username}`];
  block.push(`  IdentityFile ${join(dir, 'client')}`, '  IdentitiesOnly yes');
  block.push(`  UserKnownHostsFile ${join(dir, 'known_hosts')}`, '  StrictHostKeyChecking yes');
  writeFileSync(sshConfig, block.join('\n') + '\n');
  return { port, pid: child.pid, sshConfig };
}

function readSafe(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}
