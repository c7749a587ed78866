// Every kind of connection failure gets the cockpit's own words: what happened (with the facts a
// person needs: host:port, fingerprint, known_hosts line, key file), what to do, whether `r` can
// help. The messages are the transport's (src/remote/ssh-connect.ts), as it writes them.
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECT_FAILURE_KINDS, ConnectFailure } from '../../src/remote/connect-failure.js';
import { connectProblem, connectProblemText } from '../../src/ui/connect-advice.js';
import { connectProblemRows } from '../../src/ui/screens/connect-problem.js';
import { lineText } from '../../src/ui/lines.js';

const FP = 'SHA256:53fo99WVP5KlZuy5ZhuacjCUmz21ouRcRMjN0guUFWg';
const MESSAGES = {
  unreachable: 'cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED): connect ECONNREFUSED 10.0.0.7:2222. Is the host up and the port right?',
  timeout: 'cannot reach gpu at 10.0.0.7:22 (ETIMEDOUT): Timed out while waiting for handshake. Is the host up and the port right?',
  closed: 'connection to gpu at 10.0.0.7:22 closed during the handshake',
  'handshake-failed': 'cannot reach gpu at 10.0.0.7:22: Handshake failed: no matching host key format. Is the host up and the port right?',
  'host-key-unknown': `host key of gpu (10.0.0.7:22) is unknown: ${FP}. Check this fingerprint with the host's administrator, then connect again with --accept-new-host-key (or add the key to /home/u/.ssh/known_hosts).`,
  'host-key-mismatch': `host key of gpu (10.0.0.7:22) does NOT match the recorded one: the server offered ${FP}, /home/u/.ssh/known_hosts:3 says "10.0.0.7 ssh-ed25519 AAAA". This may be an attack; if the host was really re-keyed, remove that line (ssh-keygen -R '10.0.0.7' -f /home/u/.ssh/known_hosts) and connect again.`,
  'host-key-revoked': `host key of gpu (10.0.0.7:22) is REVOKED: the server offered ${FP}, /home/u/.ssh/known_hosts:1 says "@revoked * ssh-ed25519 AAAA". This may be an attack; …`,
  'auth-failed': 'authentication to alice@10.0.0.7:22 failed (tried ssh-agent, key). Check User and IdentityFile in your ssh config, or add your key with ssh-add.',
  'key-encrypted': 'authentication to alice@10.0.0.7:22 failed (tried nothing: no usable key or agent). Skipped: /home/u/.ssh/id_ed25519 is encrypted (no passphrase given). Load the encrypted key into ssh-agent (ssh-add) or run the cockpit interactively to type its passphrase.',
  'wrong-passphrase': 'wrong passphrase for /home/u/.ssh/id_ed25519',
  'ssh-settings': "cannot resolve ssh settings for 'gpu': ssh -G: line 4: Bad configuration option: proxyjumpp",
} as const;

const problem = (kind: keyof typeof MESSAGES) => connectProblem('gpu', new ConnectFailure(kind, MESSAGES[kind]));

describe('connectProblem', () => {
  const saved = process.env.AWRL_TEST_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.AWRL_TEST_API_KEY;
    else process.env.AWRL_TEST_API_KEY = saved;
  });

  it('covers every kind the transport names, and retries exactly the retryable ones', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...CONNECT_FAILURE_KINDS].sort());
    const retried = CONNECT_FAILURE_KINDS.filter((k) => problem(k).retry);
    expect(retried).toEqual(['unreachable', 'timeout', 'closed', 'handshake-failed']);
    // The others: `r` works once the person has fixed it outside the cockpit; never for a revoked key.
    expect(CONNECT_FAILURE_KINDS.filter((k) => !problem(k).retry && !problem(k).retryOnceFixed)).toEqual(['host-key-revoked']);
    expect(problem('host-key-unknown').retryOnceFixed).toBe('once it is in known_hosts');
    expect(problem('key-encrypted').retryOnceFixed).toBe('once the key is in ssh-agent');
    expect(problem('unreachable').retryOnceFixed).toBeUndefined();
    // An error the transport did not name: treated as not reaching the host (retrying may help).
    expect(connectProblem('gpu', new Error('socket hang up'))).toMatchObject({ kind: 'unknown', retry: true, what: 'cannot connect to gpu' });
  });

  it('says what happened with the facts a person needs', () => {
    expect(problem('unreachable').what).toBe('cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED)');
    expect(problem('unreachable').todo).toMatch(/VPN, and any ProxyJump/);
    expect(problem('timeout').what).toBe('gpu at 10.0.0.7:22 did not answer the SSH handshake in time');
    expect(problem('closed').what).toBe('gpu at 10.0.0.7:22 closed the connection during the handshake');
    expect(problem('host-key-unknown').what).toBe(`host key of 10.0.0.7:22 is not known: ${FP}`);
    expect(problem('host-key-unknown').todo).toBe("check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh");
    expect(problem('host-key-mismatch').what).toBe(`host key of 10.0.0.7:22 does NOT match known_hosts (/home/u/.ssh/known_hosts:3): the server offered ${FP}`);
    expect(problem('host-key-mismatch').todo).toContain("ssh-keygen -R '10.0.0.7' -f /home/u/.ssh/known_hosts");
    expect(problem('host-key-revoked').what).toBe(`host key of 10.0.0.7:22 is marked @revoked in known_hosts: ${FP}`);
    expect(problem('auth-failed').what).toBe('alice@10.0.0.7:22 refused the login (no key or agent identity was accepted)');
    expect(problem('key-encrypted').what).toBe('the key /home/u/.ssh/id_ed25519 is encrypted and no passphrase was given (alice@10.0.0.7:22)');
    expect(problem('key-encrypted').todo).toBe('a passphrase is needed: load the key into ssh-agent (ssh-add /home/u/.ssh/id_ed25519), or type it when awrl-tui starts');
    expect(problem('wrong-passphrase').what).toBe('wrong passphrase for /home/u/.ssh/id_ed25519');
    expect(problem('ssh-settings').what).toBe('the ssh settings for gpu cannot be used');
    // The cockpit asks about unknown keys itself: the headless flag is no advice here.
    for (const k of CONNECT_FAILURE_KINDS) expect(problem(k).todo).not.toContain('--accept-new-host-key');
  });

  it('the one-line text keeps the reason where the advice needs it', () => {
    expect(connectProblemText(problem('ssh-settings'))).toBe(
      `gpu: the ssh settings for gpu cannot be used (${MESSAGES['ssh-settings']}); fix the target or the ssh config`,
    );
    expect(connectProblemText(problem('unreachable'))).toBe(
      'gpu: cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED); check that the host is up, the host name and port, your VPN, and any ProxyJump in the ssh config',
    );
    expect(connectProblemText(connectProblem('gpu', new Error('socket hang up')))).toBe('gpu: cannot connect to gpu (socket hang up); retrying may help');
  });

  it('rows: what to do wrapped whole, `r` and when it works, details where the advice points to them', () => {
    const rows = (k: keyof typeof MESSAGES, w = 60) => connectProblemRows(problem(k), w).map(lineText);
    const down = rows('unreachable');
    expect(down.every((l) => l.length <= 60)).toBe(true);
    expect(down.join(' ').replace(/\s+/g, ' ')).toContain(`what to do: ${problem('unreachable').todo}`);
    expect(down.at(-1)).toBe('    r connects again');
    expect(rows('auth-failed').at(-1)).toBe('    r connects again once that is done');
    expect(rows('host-key-revoked').join('\n')).not.toContain('connects again');
    expect(rows('handshake-failed', 200).at(-1)).toBe(`    details: ${MESSAGES['handshake-failed']}`);
  });

  it('never shows a secret, whatever the message holds', () => {
    process.env.AWRL_TEST_API_KEY = 'sk-live-0123456789';
    const p = connectProblem('gpu', new ConnectFailure('ssh-settings', "cannot resolve ssh settings for 'sk-live-0123456789@gpu'"));
    const all = [p.what, p.todo, p.detail, connectProblemText(p), ...connectProblemRows(p, 80).map(lineText)].join('\n');
    expect(all).not.toContain('sk-live-0123456789');
    expect(p.detail).toContain('<redacted>');
  });
});
