// Restarting a harness sshd in place (same config, same port): the way a head node's sshd restarts
// after a package upgrade or a reboot. Every session dies with the old server (the client sees its
// connection close, and the remote commands it ran are gone); the host key is kept, or replaced by
// a fresh one to play a reinstalled host. Processes are killed and started by PID only.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killTree, type SshdHandle } from './sshd.js';
import { waitFor, pidAlive } from './wait.js';

export interface RestartedSshd {
  pid: number;
  /** Kills the restarted server and its sessions (the handle's own stop() knows only the first pid). */
  stop(): Promise<void>;
}

const live = new Set<number>();
process.once('exit', () => {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** Kills `sshd` (sessions first) and starts a new server from the same sshd_config. */
export async function restartSshd(sshd: SshdHandle, opts: { newHostKey?: boolean } = {}): Promise<RestartedSshd> {
  await killTree(sshd.pid);
  if (opts.newHostKey) {
    rmSync(sshd.hostKeyFile, { force: true });
    rmSync(`${sshd.hostKeyFile}.pub`, { force: true });
    execFileSync(
      'ssh-keygen',
      ['-q', '-t', 'ed25519', '-N', '', '-C', 'awrl-test-host-reinstalled', '-f', sshd.hostKeyFile],
      { stdio: 'ignore' },
    );
  }
  const log = join(sshd.dir, 'sshd-restarted.log');
  const child = spawn('/usr/sbin/sshd', ['-D', '-f', join(sshd.dir, 'sshd_config'), '-E', log], { stdio: 'ignore' });
  const pid = child.pid!;
  live.add(pid);
  await waitFor(
    () => {
      if (!pidAlive(pid)) throw new Error(`restarted sshd exited: ${safeRead(log)}`);
      // The old listener may still hold the port for a moment: sshd retries, then says so.
      return safeRead(log).includes('Server listening on');
    },
    { timeoutMs: 15_000, intervalMs: 20, what: 'the restarted sshd to listen' },
  );
  return {
    pid,
    async stop() {
      await killTree(pid);
      live.delete(pid);
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
