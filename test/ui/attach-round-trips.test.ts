// Attaching through the run's watch snapshot over a real sshd: the raw tail (the log pane's lines)
// comes in the answer of the log's silence measure, so the full dashboard takes two round trips
// after the connection (the measure beside the snapshot's look and the state poll, then the filter
// with the snapshot) and no read of the log of its own (counted by a wrapper of the transport's
// commands). The pane shows the lines an attach over the local transport shows (it reads the tail
// itself), also when the log grows between the measure and the filter. The cockpit reads the run's
// config facts beside that first round trip (a runFacts that answers only once the measure started
// would never answer if the feed waited for it). readTail given the log's last bytes reads only what
// lies before them (a range that ends before the file's end: no failure from tail's SIGPIPE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { READ_SCRIPT, STAT_SCRIPT } from '../../src/remote/remote-scripts.js';
import { RunFeed, type RunFacts } from '../../src/session/run-feed.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/index.js';
import { readTail } from '../../src/session/backfill.js';
import { DigestWriter } from '../../src/session/digest-writer.js';
import { SnapshotWriter } from '../../src/session/snapshot-writer.js';
import { digestPathFor, snapshotPathFor } from '../../src/session/run-digest.js';
import { localTarget } from '../harness/local-run.js';
import { lineEndNear } from '../harness/snapshot-context.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/stdout.log', import.meta.url).pathname;
const LOG = readFileSync(RUN_A);
/** Where the snapshot is cut: the log's size when the attach measures it. */
const CUT = lineEndNear(LOG, 0.9);

/** A command the transport ran: its name (the script's $0, or which file script), when it started and answered. */
interface Command {
  name: string;
  argv: string[];
  start: number;
  end: number | null;
}

const nameOf = (argv: string[]): string =>
  argv[2] === READ_SCRIPT ? 'read' : argv[2] === STAT_SCRIPT ? 'stat' : (argv[3] ?? argv[0] ?? '?');

/** Every command `t` runs, counted (ssh2's exec, readFile and stat all go through execStream);
 *  `afterSilence` runs once the silence's measure answered, before the watch sees the answer. */
function counted(t: Transport, afterSilence?: () => void): Command[] {
  const commands: Command[] = [];
  let tick = 0;
  const execStream = t.execStream.bind(t);
  t.execStream = (argv, o) => {
    const c: Command = { name: nameOf(argv), argv, start: ++tick, end: null };
    commands.push(c);
    const s = execStream(argv, o);
    void s.done.then(
      () => void (c.end = ++tick),
      () => void (c.end = ++tick),
    );
    return s;
  };
  const exec = t.exec.bind(t);
  t.exec = async (argv, o) => {
    const r = await exec(argv, o);
    if (argv[3] === 'awrl-silence') afterSilence?.();
    return r;
  };
  return commands;
}

describe('attach through the snapshot: the raw tail in the silence measure’s round trip', { timeout: 60_000 }, () => {
  let dir: string;
  let sshd: SshdHandle;
  let ssh: Transport;
  let local: Transport;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-attach-rt-'));
    sshd = await startSshd();
    local = await openTransport('local');
  });
  afterAll(async () => {
    await ssh?.close();
    await local?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run's log cut at CUT with the sentinel's digest and snapshot there. */
  async function runLog(name: string, facts: RunFacts = {}): Promise<string> {
    mkdirSync(join(dir, name), { recursive: true });
    const log = join(dir, name, 'stdout.log');
    writeFileSync(log, LOG.subarray(0, CUT));
    const snapshot = new SnapshotWriter(local, log, snapshotPathFor(log), Promise.resolve(facts), {
      minGapMs: 0,
      slowMs: Infinity,
      spacing: 0,
    });
    await new DigestWriter(local, log, digestPathFor(log), undefined, snapshot).update({ force: true });
    return log;
  }

  /** The cockpit's feed over `t` until the history is read and the log read to its size now. */
  async function attach(t: Transport, log: string, full: () => number = () => statSync(log).size) {
    const feed = new RunFeed({
      transport: t,
      target: { ...localTarget(dir), name: 't', host: t.target },
      summary: { id: 'r', target: 't', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
      logPath: log,
      backfillThresholdBytes: 1024,
      backfillCache: null,
      statePollMs: 60_000,
      onChange: () => undefined,
    });
    let dashboardAt: number | null = null;
    feed.start();
    try {
      await waitFor(
        () => {
          const v = feed.getView();
          return !v.history && v.log.some((l) => l.text.startsWith('history:'));
        },
        { timeoutMs: 30_000, what: 'the history read' },
      );
      dashboardAt = Date.now();
      await waitFor(() => feed.trainerLinesOffset === full(), { timeoutMs: 30_000, what: 'the log read' });
      const view = feed.getView();
      return {
        dashboardAt,
        fromDigest: feed.fromDigest,
        pane: view.trainerLines!.lines.map((l) => l.text),
        midLog: view.trainerLines!.startsMidLog,
        notes: view.log.filter((l) => l.time === null).map((l) => l.text),
      };
    } finally {
      feed.close();
    }
  }

  it('takes two round trips after the connection, no read of its own, and shows the pane a local attach shows', async () => {
    const log = await runLog('quiet');
    ssh = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    const commands = counted(ssh);
    const viaSsh = await attach(ssh, log);
    const viaLocal = await attach(local, log);
    expect(viaSsh.fromDigest?.offset).toBe(CUT);
    expect(viaSsh.notes.some((n) => n.startsWith('snapshot: the state at'))).toBe(true);
    // The log's bytes crossed twice: the measure's answer (with the pane's 256 KiB and the byte
    // before) and the filter's (the snapshot); no read of the tail, no stat of the log.
    const names = commands.map((c) => c.name);
    expect(names.filter((n) => n === 'read')).toEqual([]);
    expect(names.filter((n) => n === 'awrl-silence')).toEqual(['awrl-silence']);
    expect(names.filter((n) => n === 'awrl-backfill')).toEqual(['awrl-backfill']);
    const silence = commands.find((c) => c.name === 'awrl-silence')!;
    expect(silence.argv.slice(-2)).toEqual([String(256 * 1024 + 1), '1024']);
    // Serial: the filter starts on the measure's answer; every other command was started beside the
    // measure (the snapshot's look, the state poll), none between it and the filter.
    const filter = commands.find((c) => c.name === 'awrl-backfill')!;
    expect(filter.start).toBeGreaterThan(silence.end!);
    const others = commands.filter((c) => c !== silence && c !== filter && c.start < filter.start);
    expect(others.map((c) => c.name).sort()).toEqual(['awrl-list', 'stat']);
    for (const c of others) expect(c.start).toBeLessThan(silence.end!);
    // The pane: the log's last lines, as an attach that reads the tail itself shows them.
    expect(viaSsh.pane.length).toBeGreaterThan(20);
    expect(viaSsh.midLog).toBe(true);
    expect(viaSsh.pane).toEqual(viaLocal.pane);
    expect(viaSsh.midLog).toBe(viaLocal.midLog);
  });

  it('the log grown between the measure and the filter: the filter stops at the size measured, the rest is followed', async () => {
    const log = await runLog('growing');
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    try {
      let grown = false;
      const commands = counted(t, () => {
        if (grown) return;
        grown = true;
        appendFileSync(log, LOG.subarray(CUT));
      });
      const viaSsh = await attach(t, log, () => LOG.length);
      expect(grown).toBe(true);
      expect(readFileSync(log).equals(LOG)).toBe(true);
      expect(viaSsh.fromDigest?.offset).toBe(CUT);
      expect(commands.filter((c) => c.name === 'read')).toEqual([]);
      // The filter was given the cut at the size measured (its $1), not the grown log's.
      const filter = commands.find((c) => c.name === 'awrl-backfill')!;
      expect(filter.argv[4]).toBe(String(CUT));
      // The local attach to the whole log reads its last 256 KiB; the ssh one showed the tail up to
      // CUT and followed on: the local pane (past its first line, maybe cut) ends the ssh one's.
      const viaLocal = await attach(local, log);
      const tail = viaLocal.pane.slice(1);
      expect(tail.length).toBeGreaterThan(20);
      expect(viaSsh.pane.slice(-tail.length)).toEqual(tail);
    } finally {
      await t.close();
    }
  });

  it('the cockpit reads the run’s config facts beside the attach’s first round trip, not before it', async () => {
    const runId = 'facts-20261206-030000-0001';
    const runDir = join(dir, '.awrl/runs', runId);
    const facts = { consumerBatchSize: 32, maxHeadOffpolicyness: 7 };
    const log = await runLog(`.awrl/runs/${runId}`, facts);
    const startedAt = new Date().toISOString();
    const record: RunRecord = {
      ...{ version: 1, runId, experiment: 'facts', trial: 'trial0', target: 't', workdir: dir, runDir },
      ...{ backend: 'direct', argv: ['python3', 'webgym/train.py'], secretNames: [], createdAt: startedAt },
      ...{ attempts: [{ n: 1, reason: 'launch', startedAt, pid: 999_999 }], chainJobIds: [], autoResume: 0, nodes: 1 },
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'exit.code'), '0\n');
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    const commands = counted(t);
    // The facts come only once the log's silence is being measured: read before the feed starts,
    // they would never come.
    const measuring = () => commands.some((c) => c.name === 'awrl-silence');
    const session = createLiveSession({
      targets: [{ target: { ...localTarget(dir), name: 't', host: sshd.alias }, transport: t }],
      openRunId: runId,
      gpuPoller: null,
      runFacts: () => waitFor(measuring, { timeoutMs: 20_000, what: 'the silence measured' }).then(() => facts),
      runsPollMs: 60_000,
      statePollMs: 60_000,
    });
    try {
      // The log (under the cockpit's 2 MiB backfill threshold) read: its records shown.
      await waitFor(() => (session.getState().run?.figures.step ?? 0) >= 10, {
        timeoutMs: 30_000,
        what: 'the steps read',
      });
      // The facts known by then (the budget shown), read beside the measure: one config read, no earlier.
      expect(session.getState().run!.offpolicyBudget).toBe(7);
      expect(statSync(log).size).toBe(CUT);
    } finally {
      await session.close();
      await t.close();
    }
  });

  it('readTail given the log’s last bytes reads only what lies before them, the same bytes', async () => {
    const log = await runLog('tail');
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    try {
      const commands = counted(t);
      const end = CUT;
      const from = end - 300_000;
      const whole = await readTail(t, log, from, end);
      expect(whole.bytes.equals(LOG.subarray(from, end))).toBe(true);
      expect(whole.insideLine).toBe(LOG[from - 1] !== 0x0a);
      const reads = () => commands.filter((c) => c.name === 'read').length;
      expect(reads()).toBe(1);
      // The same bytes and line start (Buffers compared as such: toEqual walks them byte by byte).
      const same = (r: typeof whole) => r.bytes.equals(whole.bytes) && r.midLog && r.insideLine === whole.insideLine;
      // Part of it read already: the rest before it is read, and the two joined.
      const part = { from: end - 100_000, bytes: LOG.subarray(end - 100_000, end) };
      expect(same(await readTail(t, log, from, end, part))).toBe(true);
      expect(reads()).toBe(2);
      // All of it (and the byte before): nothing read.
      const all = { from: from - 1, bytes: LOG.subarray(from - 1, end) };
      expect(same(await readTail(t, log, from, end, all))).toBe(true);
      expect(reads()).toBe(2);
      // Bytes that do not end at `end` (another size): not used.
      const short = { from: from - 1, bytes: LOG.subarray(from - 1, end - 1) };
      expect(same(await readTail(t, log, from, end, short))).toBe(true);
      expect(reads()).toBe(3);
    } finally {
      await t.close();
    }
  });
});
