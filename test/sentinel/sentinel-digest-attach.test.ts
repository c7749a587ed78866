// `sentinel start` on an ended run over a real sshd: no sentinel is left running, the run's log is
// digested once by the sentinel's runtime on the target (the digest next to it, 0600), and said so;
// a cockpit attaching afterwards (RunFeed over ssh) restores the watch snapshot written beside it
// instead of reading any history, and its dashboard (every series, the last step, the alert history,
// the figures, alerts, eval table, the event log's record lines) is the one a full read gives; a
// snapshot that does not parse or is another config's is not used (said), the digest read instead.
// `follow` (human lines) through the snapshot prints the alerts standing at it, then a full read's
// lines, end and exit code, on the ended run and attached to a live one (alerts fired and cleared
// after it); through the digest (the snapshot refused, said) every line a full read prints; the
// bytes each path sends; `follow --json` reads the whole log whatever the run keeps.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { parseRunRecord } from '../../src/runs/run-record.js';
import { readRunFacts } from '../../src/runs/run-facts-eval.js';
import {
  DIGEST_HEADER_BYTES,
  digestPathFor,
  formatDigestHeader,
  parseDigestHeader,
  snapshotPathFor,
  SNAPSHOT_KIND,
} from '../../src/session/run-digest.js';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Target } from '../../src/runs/targets.js';
import { waitFor } from '../harness/wait.js';
import { localTarget } from '../harness/local-run.js';
import { runIdOf, sentinelPidsUnder, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const { cli, killAll } = sentinelTestCli(`tok-${process.pid}-Dg7`, 600);

/** follow's lines of records and alerts (not its `watch` notes and `state` lines). */
const events = (out: string) => out.split('\n').filter((l) => l && !/^(watch|state) {2,}/.test(l));
const isAlert = (l: string) => /^alert[ :]/.test(l);

/** The alert lines of `lines` not cleared (or ended with the run) later in them: those standing. */
function standing(lines: string[]): string[] {
  return lines.filter(
    (l, i) =>
      l.startsWith('alert: ') &&
      !lines
        .slice(i + 1)
        .some((c) => /^alert (cleared|ended with the run): /.test(c) && l.includes(`] ${c.split(': ')[1]}`)),
  );
}

/** The MiB sent of `follow`'s history note. */
const sentMiB = (out: string) =>
  Number(/^watch {4}history: [\d.]+ MiB of log backfilled with ([\d.]+) MiB sent/m.exec(out)?.[1]);

describe('sentinel start on an ended run, follow through the snapshot', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  let ssh: Transport;

  beforeAll(async () => {
    env = await startSentinelEnv('awrl-sentinel-digest-');
    ssh = await openTransport(env.sshd.alias, { sshConfigFile: env.sshd.sshConfigFile });
  });
  afterAll(async () => {
    killAll();
    await ssh?.close();
    await env?.stop();
  });

  /** The cockpit's feed of the run over ssh, until its last step and its history's note are in. */
  async function dashboard(runId: string, log: string, useDigest: boolean) {
    const target: Target = {
      ...localTarget(env.workdir),
      name: env.sshd.alias,
      host: env.sshd.alias,
      sshConfigFile: env.sshd.sshConfigFile,
    };
    // The run's config facts, as the cockpit reads them (the snapshot's rules judged with the same).
    const record = parseRunRecord(readFileSync(join(env.runDir(runId), 'run.json'), 'utf8'))!;
    const facts = await readRunFacts(ssh, record);
    const feed = new RunFeed({
      facts,
      transport: ssh,
      target,
      summary: {
        id: runId,
        target: target.name,
        state: 'finished',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      logPath: log,
      backfillThresholdBytes: 1024,
      backfillCache: null,
      useDigest,
      statePollMs: 60_000,
      onChange: () => undefined,
    });
    feed.start();
    try {
      await waitFor(
        () => feed.getView().log.some((l) => l.text.startsWith('history:') && l.text.includes('backfilled')),
        {
          timeoutMs: 30_000,
          what: 'the history read',
        },
      );
      await waitFor(() => feed.trainerLinesOffset === statSync(log).size, { timeoutMs: 30_000, what: 'the log read' });
      // The log's last record is told once the reader knows it is whole (a line after it, or the
      // quiet that ends it): on a loaded machine that is after the offset is reached.
      await waitFor(() => feed.getView().log.some((l) => l.text.startsWith('Training completes!')), {
        timeoutMs: 30_000,
        what: "the log's last record",
      });
      const store = feed.store;
      const view = feed.getView();
      return {
        fromDigest: feed.fromDigest,
        keys: store.keys().sort(),
        series: Object.fromEntries(store.keys().map((k) => [k, store.series(k)])),
        last: store.lastStepEvent,
        alertHistory: view.alertHistory?.map((a) => [a.alert.id, a.alert.title]),
        // The dashboard's figures, alerts, eval table and event log lines of the records (not the notes).
        figures: view.figures,
        alerts: view.alerts,
        evals: view.evals,
        recordLines: view.log.filter((l) => l.time !== null).map((l) => [l.level, l.text]),
        notes: view.log.filter((l) => l.time === null).map((l) => l.text),
      };
    } finally {
      feed.close();
    }
  }

  it('digests the log once and stops; an attach restores its watch snapshot (refused: reads the digest) and shows a full read’s dashboard', async () => {
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant AWRL_SIM_FAULT=nan-grad@3-4,nan-grad@7-8'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=digest-ended',
      '--no-sentinel',
    ]);
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    await waitFor(
      async () => {
        const r = await cli(['runs', runId, ...env.target(), '--json']);
        return (JSON.parse(r.stdout) as Array<{ state: string }>)[0]?.state === 'finished';
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'the run to finish' },
    );
    const log = join(env.runDir(runId), 'stdout.log');
    const size = statSync(log).size;

    const s = await cli(['sentinel', 'start', runId, ...env.target(), '--json']);
    expect(s.code, s.stderr).toBe(0);
    const said = JSON.parse(s.stdout) as { ended: string; digest: string; offset: number; updated: boolean };
    expect(said).toMatchObject({ ended: 'finished', digest: digestPathFor(log), offset: size, updated: true });
    const human = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(human.stdout).toContain(`${runId} has already ended (finished): no sentinel to watch it; its digest`);
    expect(sentinelPidsUnder(env.workdir)).toEqual([]);
    const header = parseDigestHeader(readFileSync(digestPathFor(log)).subarray(0, DIGEST_HEADER_BYTES));
    expect(header?.offset).toBe(size);
    expect(statSync(digestPathFor(log)).mode & 0o777).toBe(0o600);
    const viaDigest = await dashboard(runId, log, true);
    const full = await dashboard(runId, log, false);
    // The watch's state at the same offset beside it (0600): the attach restores it and reads no history.
    const snapPath = snapshotPathFor(log);
    const snapHeader = parseDigestHeader(readFileSync(snapPath).subarray(0, DIGEST_HEADER_BYTES), SNAPSHOT_KIND);
    expect(snapHeader?.offset).toBe(size);
    expect(statSync(snapPath).mode & 0o777).toBe(0o600);
    expect(viaDigest.fromDigest).toEqual({ offset: size, gzBytes: snapHeader!.gzBytes });
    expect(viaDigest.notes.some((n) => n.startsWith('snapshot: the state at'))).toBe(true);
    expect(full.fromDigest).toBeNull();
    expect(viaDigest.last?.globalStep).toBeGreaterThan(0);
    expect(viaDigest.keys.length).toBeGreaterThan(5);
    const same = (d: typeof full) => ({ ...d, fromDigest: null, notes: null });
    expect(same(viaDigest)).toEqual(same(full));

    // A snapshot of another version: not used, said in one line, the digest read instead.
    const good = readFileSync(snapPath);
    const bad = Buffer.from(good);
    bad.write('awrl-snapshot 9 ', 0, 'latin1');
    writeFileSync(snapPath, bad);
    const viaOld = await dashboard(runId, log, true);
    expect(viaOld.notes).toContain("the run's watch snapshot was not used (it is of another version than 2)");
    expect(viaOld.fromDigest).toEqual({ offset: size, gzBytes: header!.gzBytes });
    expect(same(viaOld)).toEqual(same(full));
    // One of this version that this watch cannot take (another config's rules): the same, said why.
    // (Its JSON, a newline, its typed arrays' bytes: watch-snapshot.ts.)
    const state = gunzipSync(good.subarray(DIGEST_HEADER_BYTES));
    const nl = state.indexOf(0x0a);
    const doc = JSON.parse(state.toString('utf8', 0, nl)) as { facts: string };
    const other = JSON.stringify({ ...doc, facts: '{"maxHeadOffpolicyness":99}' });
    const body = gzipSync(Buffer.concat([Buffer.from(`${other}\n`), state.subarray(nl + 1)]));
    const h = { ...snapHeader!, gzBytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    writeFileSync(snapPath, Buffer.concat([formatDigestHeader(h, SNAPSHOT_KIND), body]));
    const viaOther = await dashboard(runId, log, true);
    expect(viaOther.notes).toContain(
      "the run's watch snapshot was not used (it was made with other config facts): reading its history",
    );
    expect(same(viaOther)).toEqual(same(full));
    // Another log's (its identity at the offset is not this log's), and one whose bytes do not parse.
    writeFileSync(
      snapPath,
      Buffer.concat([
        formatDigestHeader({ ...snapHeader!, identity: '1 2 3' }, SNAPSHOT_KIND),
        good.subarray(DIGEST_HEADER_BYTES),
      ]),
    );
    const viaAnother = await dashboard(runId, log, true);
    expect(viaAnother.notes).toContain(
      "the run's watch snapshot was not used (it is not this log’s: rotated, replaced or truncated)",
    );
    expect(same(viaAnother)).toEqual(same(full));
    const junk = Buffer.from('not a snapshot');
    const j = { ...snapHeader!, gzBytes: junk.length, sha256: createHash('sha256').update(junk).digest('hex') };
    writeFileSync(snapPath, Buffer.concat([formatDigestHeader(j, SNAPSHOT_KIND), junk]));
    const viaJunk = await dashboard(runId, log, true);
    expect(viaJunk.notes.some((n) => /^the run's watch snapshot was not used \(it does not parse/.test(n))).toBe(true);
    expect(same(viaJunk)).toEqual(same(full));
    // No secret of the run's in it (the test CLI's token).
    expect(gunzipSync(good.subarray(DIGEST_HEADER_BYTES)).toString('utf8')).not.toContain(`tok-${process.pid}`);
    writeFileSync(snapPath, good);

    // `follow` (human lines) through the snapshot: the state restored, no line for the history
    // before it but the alerts standing there; after it, its lines, the run's end and exit code are
    // a full read's (follow-digest.ts). Through the digest (the snapshot refused): every line.
    const viaSnap = await cli(['follow', runId, ...env.target()]);
    expect(viaSnap.code, viaSnap.stderr).toBe(0);
    expect(viaSnap.stdout).toMatch(/^watch {4}snapshot: the run's state at step \d+\/\d+ from its sentinel/m);
    writeFileSync(snapPath, bad);
    const viaDig = await cli(['follow', runId, ...env.target()]);
    expect(viaDig.code, viaDig.stderr).toBe(0);
    expect(viaDig.stdout).toContain("watch    the run's watch snapshot was not used (it is of another version than 2)");
    expect(viaDig.stdout).not.toMatch(/^watch {4}snapshot:/m);
    // One whose bytes do not parse (their sum right): refused by the watch, said, the digest read.
    writeFileSync(snapPath, Buffer.concat([formatDigestHeader(j, SNAPSHOT_KIND), junk]));
    const followJunk = await cli(['follow', runId, ...env.target()]);
    expect(followJunk.stdout).toMatch(/^watch {4}the run's watch snapshot was not used \(it does not parse/m);
    renameSync(digestPathFor(log), `${digestPathFor(log)}.off`);
    renameSync(snapPath, `${snapPath}.off`);
    const whole = await cli(['follow', runId, ...env.target()]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).not.toMatch(/^watch {4}history:/m);
    const all = events(whole.stdout);
    expect(all.filter((l) => l.startsWith('step ')).length).toBeGreaterThan(5);
    expect(events(viaDig.stdout)).toEqual(all);
    expect(events(followJunk.stdout)).toEqual(all);
    expect(followJunk.code).toBe(whole.code);
    // Through the snapshot: the alerts standing at its offset (the log's end), then what a full read
    // prints after its last record's line (the alerts ended with the run, if any).
    const lastRecord = all.findLastIndex((l) => !isAlert(l));
    const snapLines = events(viaSnap.stdout);
    expect(standing(all.slice(0, lastRecord + 1)).length).toBeGreaterThan(0);
    expect(snapLines).toEqual([...standing(all.slice(0, lastRecord + 1)), ...all.slice(lastRecord + 1)]);
    // Bytes moved: the snapshot and the 64 KiB tail, no history (the digest's path: the digest).
    const snapSent = sentMiB(viaSnap.stdout) * 1048576;
    expect(Math.abs(snapSent - (snapHeader!.gzBytes + 65536))).toBeLessThan(0.006 * 1048576);
    expect(Math.abs(sentMiB(viaDig.stdout) * 1048576 - (header!.gzBytes + 65536))).toBeLessThan(0.006 * 1048576);
    // `follow --json` reads the whole log whatever the run keeps: every step with every stats key.
    renameSync(`${snapPath}.off`, snapPath);
    writeFileSync(snapPath, good);
    renameSync(`${digestPathFor(log)}.off`, digestPathFor(log));
    const json = await cli(['follow', runId, ...env.target(), '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).not.toMatch(/history:|snapshot:/);
    const jsonSteps = json.stdout.split('\n').filter((l) => l.startsWith('{"type":"step"'));
    expect(jsonSteps.length).toBe(all.filter((l) => l.startsWith('step ')).length);
  });

  it('follow attached to a live run through the snapshot prints, after it, a full read’s lines: every alert fired and cleared, the end, the exit code', async () => {
    // ~2 s a step, 8 steps; the faults after the attach (a snapshot of the first steps).
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=300 AWRL_SIM_WARM_START=1 AWRL_SIM_FAULT=nan-grad@6-7'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=digest-live',
      '--no-sentinel',
    ]);
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    const log = join(env.runDir(runId), 'stdout.log');
    // The sentinel started once the run made two steps: its first look writes the snapshot (then
    // at most once a minute), of the first steps; the faults come later.
    await waitFor(() => readFileSync(log, 'latin1').includes('Train step 2/8 done'), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'the run’s second step',
    });
    const s = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(s.code, s.stderr).toBe(0);
    await waitFor(
      () => {
        const h = parseDigestHeader(readFileSync(snapshotPathFor(log)).subarray(0, DIGEST_HEADER_BYTES), SNAPSHOT_KIND);
        return h !== null && h.offset > readFileSync(log, 'latin1').indexOf('Train step 2/8 done');
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the sentinel’s snapshot' },
    );
    const live = await cli(['follow', runId, ...env.target()]);
    expect(live.code, live.stderr).toBe(0);
    const at = /^watch {4}snapshot: the run's state at step (\d+)\/8 from its sentinel/m.exec(live.stdout);
    expect(at).not.toBeNull();
    // The sentinel stops by itself once the run's end is delivered; then the whole log, read again.
    await waitFor(() => sentinelPidsUnder(env.workdir).length === 0, {
      timeoutMs: 30_000,
      what: 'the sentinel to stop',
    });
    // Its last update ran alone (a period's beside it wrote the same temp files, and the snapshot was gone).
    expect(readFileSync(join(env.runDir(runId), 'sentinel.log'), 'utf8')).not.toMatch(/not (written|updated)/);
    renameSync(digestPathFor(log), `${digestPathFor(log)}.off`);
    renameSync(snapshotPathFor(log), `${snapshotPathFor(log)}.off`);
    const whole = await cli(['follow', runId, ...env.target()]);
    expect(whole.code).toBe(live.code);
    // The time-driven rules (a stall) judge the wall clock while the run is live, which a read of
    // the ended log does not see: not compared (a 2 s step makes them unlikely anyway).
    const timed = (x: string) => /^alert[^:]*: (\[\w+\] )?(Stalled|No new step)/.test(x);
    const all = events(whole.stdout).filter((x) => !timed(x));
    const got = events(live.stdout).filter((x) => !timed(x));
    // The alerts standing at the snapshot (none, unless the attach came late), then a tail of the
    // full read's lines from the first step after it (timed from the snapshot's last step, as a
    // full read times it).
    const stood = got.slice(
      0,
      got.findIndex((x) => !isAlert(x)),
    );
    const after = got.slice(stood.length);
    expect(after[0]).toMatch(new RegExp(`^step ${Number(at![1]) + 1}/8 .*step time \\d`));
    expect(after.length).toBeLessThan(all.length);
    expect(after).toEqual(all.slice(all.length - after.length));
    expect(stood).toEqual(standing(all.slice(0, all.length - after.length)));
    // Alerts fired and cleared after the cut.
    expect(after.filter((x) => x.startsWith('alert: ')).length).toBeGreaterThan(0);
    expect(after.filter((x) => x.startsWith('alert cleared: ')).length).toBeGreaterThan(0);
  });
});
