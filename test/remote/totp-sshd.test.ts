// The second-factor sshd of the harness is real: a key alone is not enough, the key and a fresh
// code from oathtool are, and the machine's own PAM file is untouched by it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTotpSshd, type TotpSshd } from '../harness/sshd-totp.js';

/** Runs OpenSSH's client with no terminal; the code (if any) comes from an askpass script. */
function sshWithCode(s: TotpSshd, code: string | null, dir: string): Promise<{ code: number; out: string }> {
  const askpass = join(dir, `askpass-${Math.random().toString(36).slice(2)}`);
  writeFileSync(askpass, `#!/bin/sh\necho ${code ?? 'none'}\n`, { mode: 0o700 });
  const env = { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' };
  const args = ['-F', s.sshConfigFile, '-o', `NumberOfPasswordPrompts=1`, s.alias, 'echo', 'in'];
  if (code === null) args.unshift('-o', 'KbdInteractiveAuthentication=no');
  return new Promise((resolve) => {
    execFile('ssh', args, { env, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('the second-factor sshd (publickey, then a TOTP code through PAM)', () => {
  let s: TotpSshd;
  let dir: string;
  const pamBefore = readFileSync('/etc/pam.d/sshd');
  beforeAll(async () => {
    s = await startTotpSshd();
    dir = mkdtempSync(join(tmpdir(), 'awrl-totp-client-'));
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the key alone and a wrong code, accepts the key and a fresh code', async () => {
    const keyOnly = await sshWithCode(s, null, dir);
    expect(keyOnly.code).not.toBe(0);
    const wrong = await sshWithCode(s, '000000', dir);
    expect(wrong.code).not.toBe(0);
    expect(s.secondFactorLogins()).toBe(0);
    const ok = await sshWithCode(s, s.nextCode(), dir);
    expect(ok.out).toContain('in');
    expect(ok.code).toBe(0);
    expect(s.secondFactorLogins()).toBe(1);
    expect(s.log()).toMatch(/Partial publickey for \S+ from 127\.0\.0\.1/);
  });

  it("leaves the machine's /etc/pam.d/sshd as it was", () => {
    expect(readFileSync('/etc/pam.d/sshd')).toEqual(pamBefore);
  });
});
