// Every kind of connection failure gets the cockpit's own words: what happened (with the facts a
// person needs: host:port, fingerprint, known_hosts line, key file), what to do, whether `r` can
// help. The facts are the failure's own (set where it failed, src/remote/ssh-connect.ts), never
// read back out of its message: the same advice comes out whatever the message says, and a failure
// without facts is named by its target, its message kept as the detail.
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECT_FAILURE_KINDS, ConnectFailure, type ConnectFacts } from '../../src/remote/connect-failure.js';
import { connectProblem, connectProblemText } from '../../src/session/connect-advice.js';
import { connectProblemRows } from '../../src/ui/screens/connect-problem.js';
import { lineText } from '../../src/ui/lines.js';

const FP = 'SHA256:53fo99WVP5KlZuy5ZhuacjCUmz21ouRcRMjN0guUFWg';
const KH = '/home/u/.ssh/known_hosts';
const KEY = '/home/u/.ssh/id_ed25519';
// As ssh-connect.ts writes them.
const MESSAGES = {
  unreachable:
    'cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED): connect ECONNREFUSED 10.0.0.7:2222. Is the host up and the port right?',
  timeout:
    'cannot reach gpu at 10.0.0.7:22 (ETIMEDOUT): Timed out while waiting for handshake. Is the host up and the port right?',
  closed: 'connection to gpu at 10.0.0.7:22 closed during the handshake',
  'handshake-failed':
    'cannot reach gpu at 10.0.0.7:22: Handshake failed: no matching host key format. Is the host up and the port right?',
  'host-key-unknown': `host key of gpu (10.0.0.7:22) is unknown: ${FP}. Check this fingerprint with the host's administrator, then connect again with --accept-new-host-key (or add the key to ${KH}).`,
  'host-key-mismatch': `host key of gpu (10.0.0.7:22) does NOT match the recorded one: the server offered ${FP}, ${KH}:3 says "10.0.0.7 ssh-ed25519 AAAA". This may be an attack; if the host was really re-keyed, remove that line (ssh-keygen -R '10.0.0.7' -f ${KH}) and connect again.`,
  'host-key-revoked': `host key of gpu (10.0.0.7:22) is REVOKED: the server offered ${FP}, ${KH}:1 says "@revoked * ssh-ed25519 AAAA". This may be an attack; …`,
  'auth-failed':
    'authentication to alice@10.0.0.7:22 failed (tried ssh-agent, key). Check User and IdentityFile in your ssh config, or add your key with ssh-add.',
  'key-encrypted': `authentication to alice@10.0.0.7:22 failed (tried nothing: no usable key or agent). Skipped: ${KEY} is encrypted (no passphrase given). Load the encrypted key into ssh-agent (ssh-add) or run the cockpit interactively to type its passphrase.`,
  'wrong-passphrase': `wrong passphrase for ${KEY}`,
  'login-needs-person':
    'gpu asks for a second login step (keyboard-interactive: "Verification code:") and no one can answer it here (no terminal): …',
  'ssh-settings': "cannot resolve ssh settings for 'gpu': ssh -G: line 4: Bad configuration option: proxyjumpp",
} as const;
type Kind = keyof typeof MESSAGES;

const link = (port: number): ConnectFacts => ({ alias: 'gpu', user: 'alice', host: '10.0.0.7', port });
// What each failure site knows (ssh-connect.ts, ssh-config.ts).
const FACTS: Record<Kind, ConnectFacts> = {
  unreachable: { ...link(2222), errno: 'ECONNREFUSED' },
  timeout: { ...link(22), errno: 'ETIMEDOUT' },
  closed: link(22),
  'handshake-failed': link(22),
  'host-key-unknown': { ...link(22), fingerprint: FP, knownHostsFile: KH },
  'host-key-mismatch': { ...link(22), fingerprint: FP, knownHostsFile: KH, knownHostsLine: 3 },
  'host-key-revoked': { ...link(22), fingerprint: FP, knownHostsFile: KH, knownHostsLine: 1 },
  'auth-failed': link(22),
  'key-encrypted': { ...link(22), keyFile: KEY },
  'wrong-passphrase': { ...link(22), keyFile: KEY },
  'login-needs-person': { ...link(22), loginPrompt: 'Verification code:' },
  'ssh-settings': { alias: 'gpu' },
};

const problem = (kind: Kind, message: string = MESSAGES[kind]) =>
  connectProblem('gpu', new ConnectFailure(kind, message, FACTS[kind]));

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
    expect(CONNECT_FAILURE_KINDS.filter((k) => !problem(k).retry && !problem(k).retryOnceFixed)).toEqual([
      'host-key-revoked',
    ]);
    expect(problem('host-key-unknown').retryOnceFixed).toBe('once it is in known_hosts');
    expect(problem('key-encrypted').retryOnceFixed).toBe('once the key is in ssh-agent');
    expect(problem('unreachable').retryOnceFixed).toBeUndefined();
    // An error the transport did not name: treated as not reaching the host (retrying may help).
    expect(connectProblem('gpu', new Error('socket hang up'))).toMatchObject({
      kind: 'unknown',
      retry: true,
      what: 'cannot connect to gpu',
    });
  });

  it('says what happened with the facts a person needs', () => {
    expect(problem('unreachable').what).toBe('cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED)');
    expect(problem('unreachable').todo).toMatch(/VPN, and any ProxyJump/);
    expect(problem('timeout').what).toBe('gpu at 10.0.0.7:22 did not answer the SSH handshake in time');
    expect(problem('closed').what).toBe('gpu at 10.0.0.7:22 closed the connection during the handshake');
    expect(problem('host-key-unknown').what).toBe(`host key of 10.0.0.7:22 is not known: ${FP}`);
    expect(problem('host-key-unknown').todo).toBe(
      "check the fingerprint with the host's administrator; to trust it, answer yes when awrl-tui starts, or accept it once with ssh",
    );
    expect(problem('host-key-mismatch').what).toBe(
      `host key of 10.0.0.7:22 does NOT match known_hosts (${KH}:3): the server offered ${FP}`,
    );
    expect(problem('host-key-mismatch').todo).toContain(`ssh-keygen -R '10.0.0.7' -f ${KH}`);
    expect(problem('host-key-revoked').what).toBe(
      `host key of 10.0.0.7:22 is marked @revoked in known_hosts (${KH}:1): ${FP}`,
    );
    expect(problem('auth-failed').what).toBe(
      'alice@10.0.0.7:22 refused the login (no key or agent identity was accepted)',
    );
    expect(problem('key-encrypted').what).toBe(
      `the key ${KEY} is encrypted and no passphrase was given (alice@10.0.0.7:22)`,
    );
    expect(problem('key-encrypted').todo).toBe(
      `a passphrase is needed: load the key into ssh-agent (ssh-add ${KEY}), or type it when awrl-tui starts`,
    );
    expect(problem('wrong-passphrase').what).toBe(`wrong passphrase for ${KEY}`);
    expect(problem('ssh-settings').what).toBe('the ssh settings for gpu cannot be used');
    // The cockpit asks about unknown keys itself: the headless flag is no advice here.
    for (const k of CONNECT_FAILURE_KINDS) expect(problem(k).todo).not.toContain('--accept-new-host-key');
  });

  it('the advice comes from the facts: a reworded message changes nothing but the detail', () => {
    for (const k of CONNECT_FAILURE_KINDS) {
      const reworded = problem(k, `the ${k} failure, said in other words (no host, no port, no key)`);
      const { detail: _a, ...asWritten } = problem(k);
      const { detail: _b, ...other } = reworded;
      expect(other, k).toEqual(asWritten);
    }
  });

  it('a port off 22 and a HostKeyAlias name the key as known_hosts records it; a jump host is named', () => {
    const off = connectProblem(
      'gpu',
      new ConnectFailure('host-key-mismatch', 'x', {
        ...link(2222),
        fingerprint: FP,
        knownHostsFile: KH,
        knownHostsLine: 7,
      }),
    );
    expect(off.what).toBe(`host key of 10.0.0.7:2222 does NOT match known_hosts (${KH}:7): the server offered ${FP}`);
    expect(off.todo).toContain(`ssh-keygen -R '[10.0.0.7]:2222' -f ${KH}`);
    const aliased = connectProblem(
      'gpu',
      new ConnectFailure('host-key-unknown', 'x', { ...link(2222), hostKeyAlias: 'gpu-head', fingerprint: FP }),
    );
    expect(aliased.what).toBe(`host key of gpu-head:22 is not known: ${FP}`);
    const jumped = connectProblem(
      'gpu',
      new ConnectFailure('unreachable', 'x', { alias: 'gpu', host: '10.0.0.7', port: 22, jumpHost: 'bastion' }),
    );
    expect(jumped.what).toBe('cannot reach gpu at 10.0.0.7:22 through bastion');
    expect(jumped.facts).toEqual({ alias: 'gpu', host: '10.0.0.7', port: 22, jumpHost: 'bastion' });
    // A target written as its address is said once, as written.
    const direct = connectProblem(
      'u@10.0.0.7:2222',
      new ConnectFailure('timeout', 'x', { alias: 'u@10.0.0.7:2222', user: 'u', host: '10.0.0.7', port: 2222 }),
    );
    expect(direct.what).toBe('u@10.0.0.7:2222 did not answer the SSH handshake in time');
  });

  it('a failure without facts (an older error object) is named by its target, its message kept whole', () => {
    for (const k of CONNECT_FAILURE_KINDS) {
      const p = connectProblem('gpu', new ConnectFailure(k, MESSAGES[k]));
      expect(p.facts).toEqual({});
      expect(p.kind).toBe(k);
      // Nothing is parsed back out of the words: the fingerprint, the address, the key file stay in the detail.
      expect(p.what, k).not.toMatch(/SHA256:|10\.0\.0\.7|id_ed25519/);
      expect(p.detail).toBe(MESSAGES[k]);
      expect(connectProblemText(p)).toContain(`(${MESSAGES[k]})`);
    }
    expect(connectProblem('gpu', new ConnectFailure('host-key-unknown', MESSAGES['host-key-unknown'])).what).toBe(
      'host key of gpu is not known',
    );
    expect(connectProblem('gpu', new ConnectFailure('unreachable', MESSAGES.unreachable)).what).toBe(
      'cannot reach gpu',
    );
  });

  it('the one-line text keeps the reason where the advice needs it', () => {
    expect(connectProblemText(problem('ssh-settings'))).toBe(
      `gpu: the ssh settings for gpu cannot be used (${MESSAGES['ssh-settings']}); fix the target or the ssh config`,
    );
    expect(connectProblemText(problem('unreachable'))).toBe(
      'gpu: cannot reach gpu at 10.0.0.7:2222 (ECONNREFUSED); check that the host is up, the host name and port, your VPN, and any ProxyJump in the ssh config',
    );
    expect(connectProblemText(connectProblem('gpu', new Error('socket hang up')))).toBe(
      'gpu: cannot connect to gpu (socket hang up); retrying may help',
    );
  });

  it('rows: what to do wrapped whole, `r` and when it works, details where the advice points to them', () => {
    const rows = (k: Kind, w = 60) => connectProblemRows(problem(k), w).map(lineText);
    const down = rows('unreachable');
    expect(down.every((l) => l.length <= 60)).toBe(true);
    expect(down.join(' ').replace(/\s+/g, ' ')).toContain(`what to do: ${problem('unreachable').todo}`);
    expect(down.at(-1)).toBe('    r connects again');
    expect(rows('auth-failed').at(-1)).toBe('    r connects again once that is done');
    expect(rows('host-key-revoked').join('\n')).not.toContain('connects again');
    expect(rows('handshake-failed', 200).at(-1)).toBe(`    details: ${MESSAGES['handshake-failed']}`);
    // A failure without facts has its specifics only in its words: they are shown.
    const bare = connectProblemRows(
      connectProblem('gpu', new ConnectFailure('unreachable', 'connect ETIMEDOUT 10.9.9.9:22')),
      200,
    ).map(lineText);
    expect(bare.at(-1)).toContain('details: ');
    expect(bare.at(-1)).toContain('10.9.9.9:22');
  });

  it('never shows a secret, whatever the message or the facts hold', () => {
    process.env.AWRL_TEST_API_KEY = 'sk-live-0123456789';
    const p = connectProblem(
      'gpu',
      new ConnectFailure('ssh-settings', "cannot resolve ssh settings for 'sk-live-0123456789@gpu'"),
    );
    const q = connectProblem(
      'gpu',
      new ConnectFailure('unreachable', 'x', { alias: 'sk-live-0123456789-gpu', host: '10.0.0.7', port: 22 }),
    );
    const all = [p, q]
      .flatMap((x) => [
        x.what,
        x.todo,
        x.detail,
        JSON.stringify(x.facts),
        connectProblemText(x),
        ...connectProblemRows(x, 80).map(lineText),
      ])
      .join('\n');
    expect(all).not.toContain('sk-live-0123456789');
    expect(p.detail).toContain('<redacted>');
    expect(q.what).toBe('cannot reach <redacted>-gpu at 10.0.0.7:22');
  });
});
