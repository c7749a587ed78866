// Rotation while followed (logrotate without copytruncate, or a user's `mv stdout.log old.log`):
// the last lines written to the old file just before the rename must still be delivered, before
// the `replaced` reset, by every transport. The remote follower drains its open descriptor; the
// local one must do the same rather than re-open by name.
import { describe, it, expect } from 'vitest';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FollowEvent } from '../../src/remote/index.js';
import { waitFor } from '../harness/wait.js';
import { useFollowTransport } from '../harness/follow-transport.js';

describe.each(['local', 'ssh', 'openssh'] as const)('rotation tail, transport %s', (kind) => {
  const f = useFollowTransport(kind, 'awrl-rot-');

  it('lines written just before the rename arrive before the replaced reset', async () => {
    const p = join(f.dir, 'stdout.log');
    writeFileSync(p, 'first\n');
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    const text = (): string =>
      events.map((e) => (e.type === 'data' ? e.bytes.toString() : e.type === 'reset' ? `<${e.reason}>` : '')).join('');
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
