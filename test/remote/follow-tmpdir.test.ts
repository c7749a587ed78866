// A head node whose TMPDIR is unusable (full, read-only, or set to a directory that does not exist
// in a batch environment): the remote follower needs a scratch directory for its exact-length
// frames, and used to exit at once, retried every second without a byte or a word. It must fall
// back to another writable place and deliver.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

describe('follow with an unusable TMPDIR on the target', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-follow-tmpdir-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('still delivers the file', async () => {
    const sshd = await startSshd({ extraConfig: ['SetEnv SHLVL=1 TMPDIR=/nonexistent/awrl-tmp'] });
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followPollMs: 30 });
    try {
      const env = await t.exec(['bash', '-c', 'printf %s "$TMPDIR"']);
      expect(env.stdout.toString()).toBe('/nonexistent/awrl-tmp');
      const p = join(dir, 'x.log');
      writeFileSync(p, 'hello\n');
      const events: FollowEvent[] = [];
      const h = t.follow(p, 0, (e) => events.push(e));
      await waitFor(() => events.some((e) => e.type === 'data'), { timeoutMs: 15_000, what: 'the first bytes' });
      h.close();
      expect(Buffer.concat(events.map((e) => (e.type === 'data' ? e.bytes : Buffer.alloc(0)))).toString()).toBe(
        'hello\n',
      );
    } finally {
      await t.close();
      await sshd.stop();
    }
  });
});
