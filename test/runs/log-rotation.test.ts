// Log rotation under a followed run, over a real sshd: `mv stdout.log stdout.log.1` and a new empty
// file in its place, while the trainer goes on writing to the renamed one. The watch says what
// happened (a `reset` output: `follow` prints it, with --json as a `log-reset` event), and the new,
// empty file's silence is not judged: the rules' clock stands until it holds a record, so no stall
// is raised for steps written where nobody reads.
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { RunWatch } from '../../src/watch/run-watch.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { logResetJsonLine, logResetLine } from '../../src/cli/follow-watch-lines.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { localTarget } from '../harness/local-run.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);
const cut = (n: number) => {
  let at = 0;
  for (let i = 0; i <= n; i++) at = LOG.indexOf('Train step', at) + 1;
  return LOG.subarray(0, LOG.lastIndexOf(0x0a, at) + 1);
};

describe('a log rotated under the watch', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-rotate-'));
  let sshd: SshdHandle | undefined;
  let t: Transport | undefined;
  let watch: RunWatch | undefined;
  afterAll(async () => {
    watch?.close();
    await t?.close();
    await sshd?.stop();
    rmSync(workdir, { recursive: true, force: true });
  });

  it('says the log was replaced and judges no silence of the new file until it holds a record', async () => {
    sshd = await startSshd();
    t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followPollMs: 50 });
    const runId = 'rotate-20261201-000000-0001';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const logPath = join(runDir, 'stdout.log');
    const before = cut(3);
    writeFileSync(logPath, before);
    const outs: WatchOutput[] = [];
    watch = createRunWatch({
      transport: t,
      target: localTarget(workdir),
      runId,
      logPath,
      whenEnded: 'pause',
      statePollMs: 300,
      tickMs: 200,
    });
    watch.on((o) => outs.push(o));
    watch.start();
    const w = watch;
    await waitFor(() => w.offset === before.length && w.alerts.logNow(Date.now()) !== null, {
      timeoutMs: 30_000,
      what: 'the log read and the clock running',
    });
    // Rotation: the trainer's file renamed, an empty one in its place; the trainer writes on to the old.
    renameSync(logPath, `${logPath}.1`);
    writeFileSync(logPath, '');
    appendFileSync(`${logPath}.1`, cut(5).subarray(before.length));
    const reset = await waitFor(() => outs.find((o) => o.type === 'reset'), { timeoutMs: 15_000, what: 'the reset' });
    expect(reset).toMatchObject({ type: 'reset', reason: 'replaced' });
    // The clock stands: the empty new file's silence is not the trainer's.
    const clockAt = w.alerts.logNow(Date.now());
    await waitFor(() => false, { timeoutMs: 1500, intervalMs: 100 }).catch(() => undefined);
    expect(w.alerts.logNow(Date.now())).toBe(clockAt);
    // What `follow` prints for it, and its --json event.
    expect(logResetLine('replaced', logPath)).toContain(
      `${logPath} was replaced by a new file (renamed or rotated): reading the new file from its first byte. A trainer that still writes to the old (renamed) file is not seen here`,
    );
    expect(JSON.parse(logResetJsonLine('replaced', logPath))).toEqual({
      type: 'log-reset',
      reason: 'replaced',
      path: logPath,
    });
    // The new file's first record: the clock runs again from it.
    appendFileSync(logPath, LOG.subarray(0, LOG.indexOf('\n', LOG.indexOf('Train step')) + 1));
    await waitFor(() => w.alerts.logNow(Date.now()) !== clockAt, { timeoutMs: 15_000, what: 'the clock again' });
    expect(outs.filter((o) => o.type === 'alert' && o.alert.id.includes('stall'))).toEqual([]);
  }, 60_000);
});
