// `follow` counts the log's silence exactly, as the cockpit does: it measures the log (size, and its
// mtime as an age on the target's clock) as it starts reading, and counts that silence when reading
// stands exactly at that size; a later measurement counts only if reading stood exactly at the size
// it saw. Before, it could not see how far it had read and counted any measurement
// taken after 500 ms without a record: a pause inside a backlog (a slow link) was taken for the
// log's end, so a run silent for 3 h was "hung" at a step it had long passed.
// A real file, measured through the local transport; records fed as a follower would feed them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { FollowAlerts, type LogSilence, type SilenceCounter } from '../../src/runs/follow-alerts.js';
import { TrainerLogParser } from '../../src/trainer-log/index.js';
import { isHangAlert } from '../../src/health/index.js';
import type { Alert } from '../../src/metrics/index.js';
import { waitFor } from '../harness/wait.js';

const RUN_A = readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
// run-a up to its 2 h hang in step 7's rollout wait (the NCCL crash that ends it cut off).
const HUNG = RUN_A.subarray(0, RUN_A.lastIndexOf(0x0a, RUN_A.indexOf('RLTrainer ERROR')) + 1);
// A pause in delivery after step 3 (the start of step 4's record line).
const MID = HUNG.lastIndexOf(0x0a, HUNG.indexOf('Train step 4/160')) + 1;
const H = 3600_000;
const AHEAD = 2 * H; // our clock vs the target's: never enters

describe('follow counts the log\'s silence exactly', { timeout: 30_000 }, () => {
  let t: Transport;
  let dir: string;
  const counters: SilenceCounter[] = [];

  beforeAll(async () => {
    t = await openTransport('local');
    dir = mkdtempSync(join(tmpdir(), 'awrl-silence-exact-'));
  });
  afterAll(async () => {
    for (const c of counters) c.stop();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function hungLog(name: string): string {
    const log = join(dir, name);
    writeFileSync(log, HUNG);
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(log, mtime, mtime);
    return log;
  }

  /** FollowAlerts counting silence on `log`; `feed(bytes, offset)` delivers as a follower would. */
  function attach(log: string, quietMs: number) {
    const fa = new FollowAlerts({ clock: () => Date.now() + AHEAD });
    const fired: Alert[] = [];
    const counted: LogSilence[] = [];
    const measured: { m: LogSilence; counted: boolean }[] = [];
    const counter = fa.countSilence({
      transport: t,
      logPath: log,
      quietMs,
      minIntervalMs: quietMs,
      onFired: (a) => fired.push(...a),
      onCounted: (m) => counted.push(m),
      onMeasured: (m, c) => measured.push({ m, counted: c }),
    });
    counters.push(counter);
    const parser = new TrainerLogParser();
    const feed = (bytes: Buffer, offset: number) => {
      for (const e of parser.push(bytes)) fired.push(...fa.push(e));
      counter.readTo(offset);
    };
    return { fa, fired, counted, measured, feed, counter };
  }

  it('a pause inside the backlog is not its end: nothing counted mid-log; the 3 h are counted once reading reaches the size measured', async () => {
    const { fa, fired, counted, measured, feed, counter } = attach(hungLog('paused.log'), 50);
    await counter.firstMeasured;
    feed(HUNG.subarray(0, MID), MID);
    // The watch measures during the pause: the log is bigger than what was read, so it is not counted.
    const first = await waitFor(() => measured[0], { what: 'a measurement during the pause' });
    expect(first.m.size).toBe(HUNG.length);
    expect(first.counted).toBe(false);
    expect(counted).toEqual([]);
    expect(fa.tick().filter(isHangAlert)).toEqual([]);
    expect(fired.filter(isHangAlert)).toEqual([]);
    feed(HUNG.subarray(MID), HUNG.length);
    // Counted at once (no quiet to wait for): the size measured as reading started.
    expect(counted.map((m) => m.size)).toEqual([HUNG.length]);
    const hangs = fired.filter(isHangAlert);
    expect(hangs.map((a) => [a.id, a.step])).toEqual([['health/stall/rollout_wait', 7]]); // waiting for step 7: the log's true end
    expect(fa.active.find(isHangAlert)!.detail).toMatch(/the log has been silent for 3 h$/);
  });

  it('read before the first measurement is in: counted when it comes, with no quiet measurement at all', async () => {
    const { fired, counted, measured, feed, counter } = attach(hungLog('whole.log'), 60_000);
    feed(HUNG, HUNG.length);
    await counter.firstMeasured;
    expect(counted).toHaveLength(1);
    expect(Math.abs(counted[0].silenceMs - 3 * H)).toBeLessThan(60_000);
    expect(measured.filter((x) => !x.counted)).toEqual([]);
    expect(fired.filter(isHangAlert).map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
  });

  it('a log that grew after it was measured is live: the old silence is not counted; the next one, taken where reading stands, is (just written: no alert)', async () => {
    const log = hungLog('grown.log');
    const { fa, fired, counted, measured, feed, counter } = attach(log, 50);
    await counter.firstMeasured;
    const more = Buffer.from(`${'x'.repeat(40)}\n`);
    appendFileSync(log, more);
    feed(Buffer.concat([HUNG, more]), HUNG.length + more.length);
    expect(counted).toEqual([]);
    const m = await waitFor(() => counted[0], { what: 'the silence measured where reading stands' });
    expect(m.size).toBe(HUNG.length + more.length);
    expect(m.silenceMs).toBeLessThan(60_000);
    expect(measured.every((x) => x.counted === (x.m.size === HUNG.length + more.length))).toBe(true);
    expect(fa.tick().filter(isHangAlert)).toEqual([]);
    expect(fired.filter(isHangAlert)).toEqual([]);
  });

  it('a reset (the log truncated or replaced) drops the size measured before it', async () => {
    const { counted, feed, counter } = attach(hungLog('reset.log'), 60_000);
    await counter.firstMeasured;
    feed(HUNG.subarray(0, MID), MID);
    feed(Buffer.alloc(0), 0); // the follower's reset: reading starts again at the new file's byte 0
    feed(HUNG, HUNG.length);
    expect(counted).toEqual([]);
  });
});
