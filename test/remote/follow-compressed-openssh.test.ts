// The follower's byte-offset guarantees through the user's own OpenSSH (a ControlMaster the test
// starts): a backlog sent as compressed members and a live tail appended after it arrive exactly
// once, contiguous from 0, equal to the file; the same as the ssh2 transport (follow-compressed).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startControlMaster, type ControlMaster } from '../harness/control-master.js';
import { waitFor } from '../harness/wait.js';
import { expectExactlyOnce, received } from '../harness/exactly-once.js';
import { SHARED } from '../harness/fixtures.js';

const RUN_A = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

describe.each(['lz4', 'gzip'] as const)('compressed catch-up through the OpenSSH transport (%s)', (codec) => {
  let dir: string;
  let sshd: SshdHandle;
  let master: ControlMaster;
  let t: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-zfollow-openssh-'));
    sshd = await startSshd();
    master = await startControlMaster(sshd);
    t = await openTransport(sshd.alias, {
      sshConfigFile: master.sshConfigFile,
      followPollMs: 30,
      followCompressMinBytes: 1 << 20,
      followCompressChunkBytes: 1 << 20,
      followCompressJobs: 2,
      followCompressCodec: codec,
    });
  });
  afterAll(async () => {
    await t?.close();
    await master?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backlog of compressed members and a live tail: every byte exactly once, in order', async () => {
    expect(t.constructor.name).toBe('OpensshTransport');
    const p = join(dir, 'long.log');
    const backlog = Buffer.concat(Array.from({ length: 8 }, () => RUN_A)); // ≈ 3.8 MB: several members
    writeFileSync(p, backlog);
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    await waitFor(() => received(events) === backlog.length, { timeoutMs: 60_000 });
    const tail = Buffer.from(randomBytes(48 * 1024).toString('base64'));
    appendFileSync(p, tail);
    const whole = Buffer.concat([backlog, tail]);
    await waitFor(() => received(events) === whole.length, { timeoutMs: 30_000 });
    h.close();
    // Some of it came compressed: the backlog went as members, not plain frames.
    expect(h.compression?.fileBytes ?? 0).toBeGreaterThan(0);
    expectExactlyOnce(events, whole);
  });
});
