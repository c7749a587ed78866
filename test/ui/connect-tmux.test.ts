// What a person sees when a target cannot be connected, in a real terminal (tmux) with the built
// CLI and a real sshd: the cockpit asks about the unknown host key or the encrypted key's
// passphrase on the terminal; declined, the Runs screen says per target what happened and what to
// do (beside the target that did connect), and on quit the terminal keeps the same line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { TmuxSession } from '../harness/tmux.js';
import { BIN } from './sim-run.js';

describe('connect problems in tmux (real sshd, built CLI)', () => {
  let s: SshdHandle;
  let dir: string;
  const sessions: TmuxSession[] = [];

  /** A targets file: `good` (local) and `name` (the sshd with the harness's ssh config edited). */
  function targetsFile(name: string, edit: (text: string) => string): string {
    const cfg = join(dir, `ssh_config_${name}`);
    writeFileSync(cfg, edit(readFileSync(s.sshConfigFile, 'utf8')));
    const file = join(dir, `targets_${name}.yaml`);
    writeFileSync(
      file,
      `targets:\n  good:\n    host: local\n    workdir: ${dir}\n  ${name}:\n    host: ${s.alias}\n    ssh_config: ${cfg}\n    workdir: /tmp/awrl-nowhere\n`,
    );
    return file;
  }

  async function cockpit(targets: string): Promise<TmuxSession> {
    // Keep the pane after the cockpit exits: what it printed on the way out is read there.
    const t = await TmuxSession.start({
      command: `sh -c 'node ${BIN}; echo EXITED=$?; exec sleep 600'`,
      width: 120,
      height: 30,
      env: { AWRL_TARGETS_FILE: targets, SSH_AUTH_SOCK: '' },
    });
    sessions.push(t);
    return t;
  }

  beforeAll(async () => {
    s = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'awrl-connect-tmux-'));
  });

  afterAll(async () => {
    for (const t of sessions) await t.kill();
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an unknown host key, declined: the fingerprint and how to trust it, on the Runs screen and after quit', async () => {
    const kh = join(dir, 'known_hosts_empty');
    writeFileSync(kh, '');
    const t = await cockpit(
      targetsFile('stranger', (c) =>
        c
          .replace(/^(\s*UserKnownHostsFile) .*$/m, `$1 ${kh}`)
          .replace(/StrictHostKeyChecking yes/, 'StrictHostKeyChecking ask'),
      ),
    );
    await t.waitForScreen(
      (x) => x.includes(s.hostKeyFingerprint) && x.includes('Trust it and continue (yes/no)?'),
      'the host-key question',
      30_000,
    );
    await t.type('no');
    await t.keys('Enter');
    const screen = await t.waitForScreen(
      (x) => x.includes('stranger  not connected'),
      'the Runs screen with the stranger',
      30_000,
    );
    expect(screen).toMatch(/good {2}connected/);
    expect(screen).toContain(
      `stranger  not connected: host key of 127.0.0.1:${s.port} is not known: ${s.hostKeyFingerprint}`,
    );
    expect(screen.replace(/\s+/g, ' ')).toContain(
      "what to do: check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh",
    );
    // Retrying as it is would not change the answer: r is offered for once the key is known.
    expect(screen).toContain('r connects again once it is in known_hosts');
    // Nothing was written to known_hosts: the key was declined.
    expect(readFileSync(kh, 'utf8')).toBe('');
    await t.type('q');
    const after = await t.waitForScreen((x) => x.includes('EXITED=0'), 'the cockpit to exit');
    // tmux wraps the long line (a space at the edge is trimmed): compared without line breaks or spaces.
    const flat = (x: string) => x.replace(/\s+/g, '');
    expect(flat(after)).toContain(
      flat(
        `awrl-tui: stranger: host key of 127.0.0.1:${s.port} is not known: ${s.hostKeyFingerprint}; check the fingerprint with the host's administrator`,
      ),
    );
  });

  it('an encrypted key without its passphrase: a passphrase or ssh-agent is needed, the passphrase prompt left empty', async () => {
    const key = join(dir, 'locked_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'open sesame', '-C', 'locked', '-f', key]);
    const t = await cockpit(targetsFile('locked', (c) => c.replace(s.identityFile, key)));
    await t.waitForScreen(
      (x) => x.includes(`Passphrase for ${key} (empty to skip):`),
      'the passphrase question',
      30_000,
    );
    await t.keys('Enter');
    const screen = await t.waitForScreen(
      (x) => x.includes('locked  not connected'),
      'the Runs screen with the locked target',
      30_000,
    );
    expect(screen).toMatch(/good {2}connected/);
    expect(screen).toContain(`locked  not connected: the key ${key} is encrypted and no passphrase was given`);
    expect(screen.replace(/\s+/g, ' ')).toContain(
      `what to do: a passphrase is needed: load the key into ssh-agent (ssh-add ${key}), or type it when awrl-tui starts`,
    );
    expect(screen).toContain('r connects again once the key is in ssh-agent');
    expect(screen).not.toContain('open sesame');
    await t.type('q');
    await t.waitForScreen((x) => x.includes('EXITED=0'), 'the cockpit to exit');
  });
});
