// targets.yaml's backlog_codec reaches the follower: a profile that asks for gzip gets a long
// backlog as gzip members over a real sshd (the target has lz4 and zstd too: .ci/run installs them).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transport } from '../../src/remote/index.js';
import { connect } from '../../src/runs/cli-target.js';
import { loadTargets, resolveTarget, type Target } from '../../src/runs/targets.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { followWhole } from '../harness/follow-whole.js';
import { SHARED } from '../harness/fixtures.js';

const RUN_A = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

describe.each(['gzip', 'zstd', 'lz4'] as const)('a profile with backlog_codec: %s', (codec) => {
  let dir: string;
  let sshd: SshdHandle;
  let t: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-codec-'));
    sshd = await startSshd();
    const yaml = `targets:\n  head:\n    host: ${sshd.alias}\n    workdir: ${dir}\n    backlog_codec: ${codec}\n`;
    const target = resolveTarget(
      { target: 'head', sshConfigFile: sshd.sshConfigFile },
      loadTargets(yaml, 'targets.yaml'),
    );
    t = await connect(target as Target);
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gets a long backlog in that codec, every byte once', async () => {
    const p = join(dir, 'long.log');
    const log = Buffer.concat(Array.from({ length: 6 }, () => RUN_A)); // ≈ 2.8 MB: over the 1 MiB threshold
    writeFileSync(p, log);
    const { h, events } = await followWhole(t, p, log.length);
    const bytes = Buffer.concat(events.flatMap((e) => (e.type === 'data' ? [e.bytes] : [])));
    expect(bytes.equals(log)).toBe(true);
    const c = h.compression!;
    expect(c.fileBytes).toBe(log.length);
    expect(c.zstdFileBytes).toBe(codec === 'zstd' ? log.length : 0);
    expect(c.lz4FileBytes).toBe(codec === 'lz4' ? log.length : 0);
  });
});
