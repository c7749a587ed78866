// The ssh client's own words (exit 255) told from a command's status, and a failed login through
// `ssh` named by the same kinds as ssh2's failures (OpenSSH 9.2's messages, as it prints them).
import { describe, it, expect } from 'vitest';
import { clientLine, isClientFailure, opensshFailure } from '../../src/remote/openssh-failure.js';

const at = (stderr: string, reconnect = false) => opensshFailure('hpc', stderr, { reconnect, facts: { alias: 'hpc' } });

describe('OpenSSH failures', () => {
  it('a 255 with the client’s words is a lost connection; a command’s own 255 or words are not', () => {
    expect(isClientFailure(255, 'mux_client_request_session: read from master failed: Broken pipe\n')).toBe(true);
    expect(isClientFailure(255, 'kex_exchange_identification: Connection closed by remote host\n')).toBe(true);
    expect(isClientFailure(255, 'Connection to 10.0.0.7 closed by remote host.\n')).toBe(true);
    expect(isClientFailure(255, 'my tool: exit 255 on purpose\n')).toBe(false);
    expect(isClientFailure(1, 'ssh: connect to host h port 22: Connection refused\n')).toBe(false);
    expect(clientLine('warning\nssh: connect to host h port 22: Connection refused\n')).toBe(
      'ssh: connect to host h port 22: Connection refused',
    );
  });

  it('names each failure by kind; a keyboard-interactive refusal needs a person, said for a reconnect', () => {
    expect(at('root@h: Permission denied (keyboard-interactive).\n').kind).toBe('login-needs-person');
    const again = at('root@h: Permission denied (keyboard-interactive).\n', true);
    expect(again.message).toMatch(/^connection needs you to log in again: hpc asks for a second login step/);
    expect(again.message).toContain('ControlMaster');
    expect(at('root@h: Permission denied (publickey).\n').kind).toBe('auth-failed');
    expect(
      at(
        'No ED25519 host key is known for [h]:22 and you have requested strict checking.\nHost key verification failed.\n',
      ).kind,
    ).toBe('host-key-unknown');
    expect(
      at('@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\n').kind,
    ).toBe('host-key-mismatch');
    expect(at('ssh: connect to host h port 22: Connection refused\n').kind).toBe('unreachable');
    expect(at('ssh: connect to host h port 22: Connection timed out\n').kind).toBe('timeout');
    expect(at('kex_exchange_identification: Connection closed by remote host\n').kind).toBe('closed');
    expect(at('/tmp/cfg line 3: Bad configuration option: bogus\n').kind).toBe('ssh-settings');
    expect(at('ssh: connect to host h port 22: Connection refused\n').message).toBe(
      'ssh to hpc failed: ssh: connect to host h port 22: Connection refused',
    );
  });
});
