// Which ssh client carries a target: OpenSSH where the ssh config sets a ControlPath (starting the
// master when none runs, which then outlives the transport as ControlPersist says), ssh2 otherwise;
// `--ssh` / targets.yaml's `ssh` choose one outright, and a bad word is an error naming the choices.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { openTransport } from '../../src/remote/index.js';
import { loadTargets, resolveTarget } from '../../src/runs/targets.js';
import { killTree, startSshd, type SshdHandle } from '../harness/sshd.js';
import { controlPathConfig, startControlMaster, type ControlMaster } from '../harness/control-master.js';

describe('choosing the ssh client', () => {
  let s: SshdHandle;
  let cm: { sshConfigFile: string; controlPath: string };
  const masterUp = (): boolean => {
    try {
      execFileSync('ssh', ['-F', cm.sshConfigFile, '-O', 'check', s.alias], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  beforeAll(async () => {
    s = await startSshd();
    cm = controlPathConfig(s);
  });
  afterAll(async () => {
    // The master the transport's login started (in the background, ControlPersist): ended by its PID.
    if (cm && masterUp()) {
      const check = spawnSync('ssh', ['-F', cm.sshConfigFile, '-O', 'check', s.alias], { encoding: 'utf8' });
      const pid = Number(/pid=(\d+)/.exec(check.stderr)?.[1] ?? 0); // "Master running (pid=N)"
      expect(pid).toBeGreaterThan(0);
      if (pid > 0) await killTree(pid);
    }
    await s?.stop();
  });

  it('a ControlPath selects OpenSSH, whose first login starts the master that later commands ride', async () => {
    expect(masterUp()).toBe(false);
    const t = await openTransport(s.alias, { sshConfigFile: cm.sshConfigFile });
    expect(t.constructor.name).toBe('OpensshTransport');
    expect(masterUp()).toBe(true);
    const logins = (): number =>
      (execFileSync('cat', [`${s.dir}/sshd.log`], { encoding: 'utf8' }).match(/Accepted publickey/g) ?? []).length;
    const before = logins();
    const rs = await Promise.all([1, 2, 3].map((i) => t.exec(['echo', String(i)])));
    expect(rs.map((r) => r.stdout.toString())).toEqual(['1\n', '2\n', '3\n']);
    expect(logins()).toBe(before); // no new login: every command rode the master
    await t.close();
    expect(masterUp()).toBe(true); // the master is the user's: ControlPersist decides
  });

  it('sshClient chooses outright: ssh2 despite a ControlPath, OpenSSH without one', async () => {
    const ssh2 = await openTransport(s.alias, { sshConfigFile: cm.sshConfigFile, sshClient: 'ssh2' });
    expect(ssh2.constructor.name).toBe('SshTransport');
    await ssh2.close();
    const own = await openTransport(s.alias, { sshConfigFile: s.sshConfigFile, sshClient: 'openssh' });
    expect(own.constructor.name).toBe('OpensshTransport');
    expect((await own.exec(['echo', 'direct'])).stdout.toString()).toBe('direct\n');
    await own.close();
  });

  it('targets.yaml `ssh` and --ssh take auto, openssh, ssh2; another word is an error', () => {
    const profiles = loadTargets('targets:\n  hpc:\n    host: hpc\n    workdir: /w\n    ssh: openssh\n', 't.yaml');
    expect(profiles.hpc.sshClient).toBe('openssh');
    expect(resolveTarget({ target: 'hpc' }, profiles)).toMatchObject({ sshClient: 'openssh' });
    expect(resolveTarget({ target: 'hpc', sshClient: 'ssh2' }, profiles)).toMatchObject({ sshClient: 'ssh2' });
    expect(resolveTarget({ target: 'hpc', sshClient: 'putty' }, profiles)).toBe(
      "--ssh must be one of auto, openssh, ssh2, not 'putty'",
    );
    expect(() => loadTargets('targets:\n  x:\n    host: x\n    workdir: /w\n    ssh: putty\n', 't.yaml')).toThrow(
      /t\.yaml:5: targets\.x\.ssh: /,
    );
  });
});

describe('OpenSSH sessions beyond what the master’s sshd allows at once', () => {
  let s: SshdHandle;
  let master: ControlMaster;
  beforeAll(async () => {
    // MaxSessions 3: the person's own terminal and a few of ours share it.
    s = await startSshd({ extraConfig: ['MaxSessions 3'] });
    master = await startControlMaster(s);
  });
  afterAll(async () => {
    await master?.stop();
    await s?.stop();
  });

  it('a session the master refuses is asked again: every command runs once, its stderr its own', async () => {
    const t = await openTransport(s.alias, { sshConfigFile: master.sshConfigFile });
    try {
      const rs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.exec(['bash', '-c', `sleep 0.3; echo out${i}; echo err${i} >&2`])),
      );
      expect(rs.map((r) => r.code)).toEqual(Array(8).fill(0));
      expect(rs.map((r) => r.stdout.toString())).toEqual(Array.from({ length: 8 }, (_, i) => `out${i}\n`));
      expect(rs.map((r) => r.stderr.toString())).toEqual(Array.from({ length: 8 }, (_, i) => `err${i}\n`));
      // stdin given as bytes reaches a command that had to be asked again, too.
      const piped = await Promise.all(
        Array.from({ length: 6 }, (_, i) => t.exec(['bash', '-c', 'sleep 0.2; cat'], { stdin: `in${i}` })),
      );
      expect(piped.map((r) => r.stdout.toString())).toEqual(Array.from({ length: 6 }, (_, i) => `in${i}`));
      expect(t.state.state).toBe('ready');
    } finally {
      await t.close();
    }
  });
});

describe('OpenSSH and a host key seen for the first time', () => {
  let s: SshdHandle;
  beforeAll(async () => {
    s = await startSshd();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('is refused headless (host-key-unknown), and recorded with acceptNewHostKey', async () => {
    const kh = `${s.dir}/known_hosts_empty`;
    execFileSync('touch', [kh]);
    const cfg = `${s.dir}/ssh_config_new`;
    execFileSync('bash', [
      '-c',
      `sed -e 's|UserKnownHostsFile .*|UserKnownHostsFile ${kh}|' '${s.sshConfigFile}' > '${cfg}'`,
    ]);
    const refused = await openTransport(s.alias, { sshConfigFile: cfg, sshClient: 'openssh' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'host-key-unknown' });
    const t = await openTransport(s.alias, { sshConfigFile: cfg, sshClient: 'openssh', acceptNewHostKey: true });
    expect((await t.exec(['echo', 'ok'])).stdout.toString()).toBe('ok\n');
    await t.close();
    expect(execFileSync('cat', [kh], { encoding: 'utf8' })).toContain(s.hostPublicKey.split(' ')[1]);
  });
});
