// An OpenSSH ControlMaster started by the test, the way a researcher logs in once in a terminal:
// `ssh -M -N` in the foreground (its PID is ours to stop), a second factor answered once through
// SSH_ASKPASS (SSH_ASKPASS_REQUIRE=force: no terminal needed). The ssh config it reads is the
// harness's own plus a ControlPath, so awrl-tui's OpenSSH transport finds and rides the master.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SshdHandle } from './sshd.js';
import { killTree } from './sshd.js';
import { waitFor } from './wait.js';

export interface ControlMaster {
  /** The ssh config with the ControlPath (pass it as sshConfigFile / -F). */
  sshConfigFile: string;
  controlPath: string;
  pid: number;
  /** Is the master up (`ssh -O check`)? */
  running(): Promise<boolean>;
  stop(): Promise<void>;
}

/** The harness's ssh config plus a ControlPath in its temp dir (short: a socket path ≤ 108 bytes). */
export function controlPathConfig(sshd: SshdHandle): { sshConfigFile: string; controlPath: string } {
  const sshConfigFile = join(sshd.dir, 'ssh_config_cm');
  const controlPath = join(sshd.dir, 'cm');
  writeFileSync(sshConfigFile, `${readFileSync(sshd.sshConfigFile, 'utf8')}  ControlPath ${controlPath}\n`);
  return { sshConfigFile, controlPath };
}

/** Starts the master; `code`: the second factor, typed once by the askpass program. */
export async function startControlMaster(sshd: SshdHandle, code?: string): Promise<ControlMaster> {
  const { sshConfigFile, controlPath } = controlPathConfig(sshd);
  const askpass = join(sshd.dir, 'askpass');
  writeFileSync(askpass, `#!/bin/sh\necho '${code ?? ''}'\n`, { mode: 0o700 });
  const child: ChildProcess = spawn('ssh', ['-F', sshConfigFile, '-M', '-N', '-o', 'ControlPersist=no', sshd.alias], {
    env: { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' },
    stdio: 'ignore',
  });
  const pid = child.pid!;
  let exited = false;
  child.once('exit', () => (exited = true));
  const running = (): Promise<boolean> =>
    new Promise((resolve) =>
      execFile('ssh', ['-F', sshConfigFile, '-O', 'check', sshd.alias], (err) => resolve(err === null)),
    );
  await waitFor(
    async () => {
      if (exited) throw new Error('the ssh master exited before it was up');
      return running();
    },
    { timeoutMs: 15_000, what: 'the ssh ControlMaster to be up' },
  );
  return { sshConfigFile, controlPath, pid, running, stop: () => (exited ? Promise.resolve() : killTree(pid)) };
}
