// The sshd harness itself: the OpenSSH client logs in with the generated files, and stop() leaves
// no process behind (including an open session).
import { describe, it, expect } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startSshd, descendants } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

describe('sshd harness', () => {
  it('serves the alias with strict host key checking and stops cleanly', async () => {
    const s = await startSshd();
    try {
      const out = execFileSync('ssh', ['-F', s.sshConfigFile, '-o', 'BatchMode=yes', s.alias, 'echo', 'hi'], {
        encoding: 'utf8',
      });
      expect(out).toBe('hi\n');
      expect(s.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
      // An open session must not survive stop().
      const client = spawn('ssh', ['-F', s.sshConfigFile, '-o', 'BatchMode=yes', s.alias, 'sleep', '300'], {
        stdio: 'ignore',
      });
      await waitFor(() => descendants(s.pid).length >= 2, { what: 'the session to start' });
      const tree = descendants(s.pid);
      await s.stop();
      expect([s.pid, ...tree].filter(pidAlive)).toEqual([]);
      expect(existsSync(s.dir)).toBe(false);
      await waitFor(() => client.exitCode !== null || client.signalCode !== null, { what: 'the ssh client to notice' });
    } finally {
      if (pidAlive(s.pid)) await s.stop();
    }
  });
});
