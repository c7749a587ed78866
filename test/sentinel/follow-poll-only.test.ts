// The sentinel follows its run's log by the poll alone (LocalTransport `followWatch: false`): a
// burst of the trainer's writes costs one look, not one per write, and every byte still arrives.
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/local.js';
import type { FollowEvent } from '../../src/remote/transport.js';
import { waitFor } from '../harness/wait.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** 40 writes 5 ms apart followed with a 2 s poll: how many deliveries, and the bytes they carried. */
async function burst(followWatch: boolean): Promise<{ deliveries: number; bytes: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-poll-only-'));
  dirs.push(dir);
  const log = join(dir, 'stdout.log');
  writeFileSync(log, 'start\n');
  const t = new LocalTransport({ followPollMs: 2000, followWatch });
  const got: Buffer[] = [];
  const h = t.follow(log, 0, (e: FollowEvent) => {
    if (e.type === 'data') got.push(e.bytes);
  });
  await waitFor(() => got.length === 1, { what: 'the first bytes' });
  const sent = ['start\n'];
  for (let i = 0; i < 40; i++) {
    const line = `line ${i}\n`;
    appendFileSync(log, line);
    sent.push(line);
    await new Promise((r) => setTimeout(r, 5));
  }
  await waitFor(() => Buffer.concat(got).toString() === sent.join(''), { timeoutMs: 10_000, what: 'every line' });
  h.close();
  await t.close();
  return { deliveries: got.length - 1, bytes: Buffer.concat(got).toString() };
}

describe("the sentinel's follower without a watch", () => {
  it('delivers a burst of writes in as many looks as the poll makes, every byte of it', async () => {
    const polled = await burst(false);
    // 40 writes over ~0.3 s against a 2 s poll: one look, two if one fell inside the burst.
    expect(polled.deliveries).toBeLessThanOrEqual(2);
    expect(polled.bytes.split('\n').length).toBe(42);
    // With the watch (the default), the writes wake looks of their own: what the sentinel saves.
    const woken = await burst(true);
    expect(woken.deliveries).toBeGreaterThan(polled.deliveries);
  });
});
