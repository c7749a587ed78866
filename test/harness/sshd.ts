// A real OpenSSH server for tests: /usr/sbin/sshd on 127.0.0.1 (or another loopback address such as
// 127.0.0.2, for a second "host"), a free port, throwaway ed25519 host and client keys in a temp dir,
// plus the client-side files a test needs (ssh_config with a Host alias, known_hosts). Nothing is assumed to be running already; stop() kills everything by PID.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { waitFor, pidAlive } from './wait.js';

export interface SshdOptions {
  /** Reuse this host key (private key path) instead of generating one: e.g. to fake a re-keyed host. */
  hostKeyFile?: string;
  /** Extra sshd_config lines; they come first, so they override the harness defaults. */
  extraConfig?: string[];
  /** Extra lines for the generated ssh_config's Host block (e.g. `ProxyJump other-alias`). */
  extraClientConfig?: string[];
  /** Public keys allowed to log in besides the generated client key. */
  authorizedKeys?: string[];
  /** Reuse this client key (private key path) instead of generating one. */
  identityFile?: string;
  /** Let the login shell run the user's rc files (default false: see SetEnv SHLVL below). */
  runRcFiles?: boolean;
  /** Loopback address to listen on (default 127.0.0.1; e.g. 127.0.0.2 for a second "host"). */
  listenAddress?: string;
  /** A PAM service file for this sshd: it runs in its own mount namespace (`unshare -m`) with the
   *  file bind-mounted over /etc/pam.d/sshd, so the machine's PAM is untouched (tests run as root). */
  pamServiceFile?: string;
  /** Shell commands run as root in the sshd's own mount namespace (`unshare -m`, private
   *  propagation) before it starts, e.g. `mount -t tmpfs -o size=8m tmpfs DIR`: its sessions see
   *  the mounts, the machine does not, and they go with the namespace's last process. */
  privateMounts?: string[];
}

export interface SshdHandle {
  host: string;
  port: number;
  user: string;
  /** Host alias defined in sshConfigFile (HostName, Port, User, IdentityFile, UserKnownHostsFile). */
  alias: string;
  sshConfigFile: string;
  identityFile: string;
  knownHostsFile: string;
  /** `SHA256:...` of the host key, as `ssh-keygen -l` prints it. */
  hostKeyFingerprint: string;
  hostKeyFile: string;
  /** The host key line body: `ssh-ed25519 AAAA...`. */
  hostPublicKey: string;
  dir: string;
  pid: number;
  /** Kills the session processes (children first), then the listener; removes the temp dir. */
  stop(): Promise<void>;
}

// Safety net for a test that times out before its cleanup ran: when the worker exits, every sshd
// this module started (and its sessions) is killed by PID. Normal cleanup is still stop().
const live = new Set<number>();
process.once('exit', () => {
  for (const pid of live) {
    for (const p of [...descendants(pid), pid]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

// Ports below the kernel's ephemeral range (32768 and up, where every outgoing connection of the
// parallel tests takes its local port): a port checked free there cannot be taken by a client socket
// before the daemon that was promised it binds. CI once lost slurmctld's port that way.
const QUIET_LOW = 20_000;
const QUIET_HIGH = 32_000;
const handedOut = new Set<number>();

/** A port free on `host` now, outside the ephemeral range, never the same twice in this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = QUIET_LOW + Math.floor(Math.random() * (QUIET_HIGH - QUIET_LOW));
    if (handedOut.has(port) || !(await canListen(host, port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port on ${host} in ${QUIET_LOW}..${QUIET_HIGH} after 200 tries`);
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

function keygen(path: string, comment: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path], { stdio: 'ignore' });
}

/** Every descendant of `pid` (from /proc), deepest first, so a kill in that order leaves no orphans. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* the process ended while we looked */
    }
  }
  const out: number[] = [];
  const visit = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      visit(c);
      out.push(c);
    }
  };
  visit(pid);
  return out;
}

/** SIGKILLs the tree under `pid` leaf-first, then `pid` itself, and waits until they are gone. */
export async function killTree(pid: number): Promise<void> {
  const all = [...descendants(pid), pid];
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await waitFor(() => all.every((p) => !pidAlive(p)), { timeoutMs: 5000, what: `processes ${all.join(',')} to exit` });
}

export async function startSshd(opts: SshdOptions = {}): Promise<SshdHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-sshd-'));
  mkdirSync('/run/sshd', { recursive: true });
  const host = opts.listenAddress ?? '127.0.0.1';
  const port = await freePort(host);
  const user = userInfo().username;
  const alias = `awrl-test-${port}`;

  const hostKeyFile = join(dir, 'host_ed25519');
  if (opts.hostKeyFile) {
    writeFileSync(hostKeyFile, readFileSync(opts.hostKeyFile), { mode: 0o600 });
    writeFileSync(`${hostKeyFile}.pub`, readFileSync(`${opts.hostKeyFile}.pub`));
  } else keygen(hostKeyFile, 'awrl-test-host');

  const identityFile = join(dir, 'client_ed25519');
  if (opts.identityFile) {
    writeFileSync(identityFile, readFileSync(opts.identityFile), { mode: 0o600 });
    writeFileSync(`${identityFile}.pub`, readFileSync(`${opts.identityFile}.pub`));
  } else keygen(identityFile, 'awrl-test-client');

  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(
    authorizedKeys,
    [readFileSync(`${identityFile}.pub`, 'utf8').trim(), ...(opts.authorizedKeys ?? [])].join('\n') + '\n',
  );

  const pidFile = join(dir, 'sshd.pid');
  const logFile = join(dir, 'sshd.log');
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      // sshd keeps the first value it reads for a keyword: the caller's lines go first to override.
      ...(opts.extraConfig ?? []),
      `Port ${port}`,
      `ListenAddress ${host}`,
      `HostKey ${hostKeyFile}`,
      `PidFile ${pidFile}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'Subsystem sftp internal-sftp',
      'LogLevel VERBOSE',
      // bash sources ~/.bashrc for every command run over ssh when it is a top-level shell; on
      // this machine root's .bashrc runs `pyenv init` (0.5 s idle, many seconds under load). With
      // SHLVL=1 the session's bash is not top-level, so tests pay for sshd, not for pyenv.
      ...(opts.runRcFiles ? [] : ['SetEnv SHLVL=1']),
    ].join('\n') + '\n',
  );

  const hostPublicKey = readFileSync(`${hostKeyFile}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  const knownHostsFile = join(dir, 'known_hosts');
  writeFileSync(knownHostsFile, `[${host}]:${port} ${hostPublicKey}\n`);
  const sshConfigFile = join(dir, 'ssh_config');
  writeFileSync(
    sshConfigFile,
    [
      `Host ${alias}`,
      `  HostName ${host}`,
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHostsFile}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      ...(opts.extraClientConfig ?? []).map((l) => `  ${l}`),
    ].join('\n') + '\n',
  );
  const fp = execFileSync('ssh-keygen', ['-l', '-f', `${hostKeyFile}.pub`], { encoding: 'utf8' }).split(/\s+/)[1];

  const sshdArgv = ['/usr/sbin/sshd', '-D', '-f', cfg, '-E', logFile];
  // With a PAM file or private mounts: the mounts live only in the namespace unshare makes (private
  // propagation), and `exec` keeps sshd at the spawned PID, so stop() and the exit net kill the
  // listener itself.
  const setup = [...(opts.pamServiceFile ? ['mount --bind "$0" /etc/pam.d/sshd'] : []), ...(opts.privateMounts ?? [])];
  const argv = setup.length
    ? [
        'unshare',
        '-m',
        '--',
        'sh',
        '-c',
        `${setup.join(' && ')} && exec "$@"`,
        opts.pamServiceFile ?? 'sh',
        ...sshdArgv,
      ]
    : sshdArgv;
  const child: ChildProcess = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  const pid = child.pid!;
  live.add(pid);
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await waitFor(
      () => {
        if (exited) throw new Error(`sshd exited early: ${safeRead(logFile)}`);
        return safeRead(logFile).includes('Server listening on');
      },
      { timeoutMs: 10_000, intervalMs: 20, what: `sshd on port ${port} to listen` },
    );
  } catch (err) {
    await killTree(pid).catch(() => undefined);
    live.delete(pid);
    throw err;
  }

  return {
    host,
    port,
    user,
    alias,
    sshConfigFile,
    identityFile,
    knownHostsFile,
    hostKeyFingerprint: fp,
    hostKeyFile,
    hostPublicKey,
    dir,
    pid,
    async stop() {
      await killTree(pid);
      live.delete(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
