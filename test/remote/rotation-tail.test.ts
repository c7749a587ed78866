// Rotation while followed (logrotate without copytruncate, or a user's `mv stdout.log old.log`):
// the last lines written to the old file just before the rename must still be delivered, before
// the `replaced` reset, by every transport. The remote follower drains its open descriptor; the
// local one must do the same rather than re-open by name.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

describe.each(['local', 'ssh'])('rotation tail, transport %s', (kind) => {
  let sshd: SshdHandle | undefined;
  let t: Transport;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `awrl-rot-${kind}-`));
    // A slow poll leaves a wide window between the last look and the rename.
    if (kind === 'ssh') {
      sshd = await startSshd();
      t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followPollMs: 300 });
    } else t = await openTransport('local', { followPollMs: 300 });
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lines written just before the rename arrive before the replaced reset', async () => {
    const p = join(dir, 'stdout.log');
    writeFileSync(p, 'first\n');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    const text = (): string => events.map((e) => (e.type === 'data' ? e.bytes.toString() : `<${e.reason}>`)).join('');
    await waitFor(() => text() === 'first\n', { what: 'the first line' });
    // One synchronous block: the follower cannot look in between.
    appendFileSync(p, 'last words of the old file\n');
    renameSync(p, `${p}.1`);
    writeFileSync(p, 'new file\n');
    await waitFor(() => text().endsWith('new file\n'), { timeoutMs: 20_000, what: 'the new file' });
    h.close();
    expect(text()).toBe('first\nlast words of the old file\n<replaced>new file\n');
  });
});
