// An sshd that asks for a key and then a one-time code, the way many HPC login nodes do: publickey,
// then keyboard-interactive through PAM (pam_oath, TOTP codes made with oathtool). The PAM file is
// bind-mounted over /etc/pam.d/sshd inside sshd's own mount namespace (startSshd's pamServiceFile):
// the machine's PAM is never touched.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshd, type SshdHandle, type SshdOptions } from './sshd.js';

/** The words PAM's oath module asks with (pam_oath's prompt). */
export const TOTP_PROMPT = 'One-time password (OATH) for';

export interface TotpSshd extends SshdHandle {
  /** A code valid now and never handed out before: pam_oath refuses a code of a time step it has
   *  already accepted (replay), so each call takes the next 30 s step (the PAM window allows 40). */
  nextCode(): string;
  /** Logins that passed the second factor so far (sshd's log: `Accepted keyboard-interactive/pam`). */
  secondFactorLogins(): number;
  /** sshd's log so far. */
  log(): string;
}

export async function startTotpSshd(opts: SshdOptions = {}): Promise<TotpSshd> {
  const secret = randomBytes(20).toString('hex');
  // A file of its own for the PAM stack and the oath users (pam_oath rewrites it after each login).
  const scratch = execFileSync('mktemp', ['-d', '/tmp/awrl-totp-XXXXXX'], { encoding: 'utf8' }).trim();
  const users = join(scratch, 'users.oath');
  writeFileSync(users, `HOTP/T30/6 ${process.env.USER ?? 'root'} - ${secret}\n`, { mode: 0o600 });
  const pam = join(scratch, 'sshd.pam');
  writeFileSync(
    pam,
    [
      `auth required pam_oath.so usersfile=${users} window=40 digits=6`,
      'account required pam_permit.so',
      'session required pam_permit.so',
      'password required pam_deny.so',
    ].join('\n') + '\n',
  );
  const sshd = await startSshd({
    ...opts,
    pamServiceFile: pam,
    extraConfig: [
      ...(opts.extraConfig ?? []),
      'UsePAM yes',
      'KbdInteractiveAuthentication yes',
      'AuthenticationMethods publickey,keyboard-interactive',
      // prohibit-password would refuse keyboard-interactive for root (tests run as root).
      'PermitRootLogin yes',
    ],
  });
  let step = Math.floor(Date.now() / 30_000);
  const logFile = join(sshd.dir, 'sshd.log');
  const log = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    ...sshd,
    nextCode() {
      step = Math.max(step + 1, Math.floor(Date.now() / 30_000));
      return execFileSync('oathtool', ['--totp', '-d', '6', `--now=@${step * 30}`, secret], {
        encoding: 'utf8',
      }).trim();
    },
    secondFactorLogins: () => (log().match(/Accepted keyboard-interactive\/pam for /g) ?? []).length,
    log,
    async stop() {
      await sshd.stop();
      execFileSync('rm', ['-rf', scratch]);
    },
  };
}
