// `follow` attaching to a run that hung hours ago, over a real sshd: the whole log arrives at once,
// "now". FollowAlerts.countSilence measures the log's silence on the target (its mtime against the
// target's own now) as reading starts and counts it once reading stands at the size measured (the
// bytes read seen through the transport, as `follow` sees them), so the stall is reported right away
// (no wall-clock tick is ever called here), with the silence in its detail, whatever our clock
// says (it runs two hours ahead of the target's). A log written just now gives no alert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { followRun, type RunFollower } from '../../src/runs/index.js';
import { FollowAlerts, measureLogSilence, type LogSilence } from '../../src/runs/follow-alerts.js';
import { countBytesRead } from '../../src/cli/follow-bytes.js';
import { isHangAlert } from '../../src/health/index.js';
import type { Alert } from '../../src/metrics/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

const RUN_A = readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
// run-a up to its 2 h hang in step 7's rollout wait (the NCCL crash that ends it cut off).
const HUNG = RUN_A.subarray(0, RUN_A.lastIndexOf(0x0a, RUN_A.indexOf('RLTrainer ERROR')) + 1);
const H = 3600_000;
const AHEAD = 2 * H; // our clock vs the target's

describe('follow: attaching to a run that is already hung', { timeout: 60_000 }, () => {
  let sshd: SshdHandle;
  let t: Transport;
  let dir: string;
  const followers: RunFollower[] = [];
  const stops: Array<() => void> = [];

  beforeAll(async () => {
    sshd = await startSshd();
    t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    dir = mkdtempSync(join(tmpdir(), 'awrl-hung-attach-'));
  });
  afterAll(async () => {
    for (const s of stops) s();
    for (const f of followers) f.close();
    await t?.close();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Follows `log` from its first byte as `follow` does; returns what fired, as it fires. */
  async function attach(log: string): Promise<{ fa: FollowAlerts; fired: Alert[]; counted: LogSilence[] }> {
    const fa = new FollowAlerts({ clock: () => Date.now() + AHEAD });
    const fired: Alert[] = [];
    const counted: LogSilence[] = [];
    const silence = fa.countSilence({ transport: t, logPath: log, onFired: (a) => fired.push(...a), onCounted: (m) => counted.push(m) });
    stops.push(() => silence.stop());
    const read = countBytesRead(t);
    read.onRead((offset) => silence.readTo(offset));
    followers.push(followRun(read.transport, log, { onEvent: (e) => fired.push(...fa.push(e)) }));
    return { fa, fired, counted };
  }

  it('measures the silence on the target: mtime 3 h ago reads as 3 h, whatever our clock', async () => {
    const log = join(dir, 'measured.log');
    writeFileSync(log, HUNG);
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(log, mtime, mtime);
    const m = (await measureLogSilence(t, log, () => Date.now() + AHEAD))!;
    expect(m.size).toBe(HUNG.length);
    expect(Math.abs(m.silenceMs - 3 * H)).toBeLessThan(60_000);
    expect(await measureLogSilence(t, join(dir, 'missing.log'))).toBeNull();
  });

  it('a log silent for 3 h: the stall is reported once the backlog is read, saying so; no tick needed', async () => {
    const log = join(dir, 'hung.log');
    writeFileSync(log, HUNG);
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(log, mtime, mtime);
    const { fa, fired } = await attach(log);
    const hang = await waitFor(() => fired.find(isHangAlert), { timeoutMs: 20_000, what: 'the stall alert' });
    expect(hang.id).toBe('health/stall/rollout_wait');
    expect(fired.filter(isHangAlert)).toHaveLength(1);
    const live = fa.active.find(isHangAlert)!;
    expect(live.detail).toMatch(/the log has been silent for 3 h$/);
  });

  it('a log written just now (the same records, read as they are written): no alert', async () => {
    const log = join(dir, 'fresh.log');
    writeFileSync(log, HUNG);
    const { fa, fired, counted } = await attach(log);
    // Counted once the backlog is read: a few seconds of silence at most, far from a stall.
    const m = await waitFor(() => counted[0], { timeoutMs: 20_000, what: 'the silence counted' });
    expect(m.size).toBe(HUNG.length);
    expect(m.silenceMs).toBeLessThan(60_000);
    expect(fa.tick().filter(isHangAlert)).toEqual([]);
    expect(fa.active.filter(isHangAlert)).toEqual([]);
    expect(fired.filter(isHangAlert)).toEqual([]);
  });
});
