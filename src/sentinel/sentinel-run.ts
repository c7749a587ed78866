// The sentinel itself: `awrl-tui sentinel-run RUN_ID RUN_DIR`, started detached on the target by
// sentinel-scripts.ts (its own session, its own 0600 log, the run dir's flock held), next to the run.
// It is the project's one watch (RunWatch over the local transport, `whenEnded: 'stop'`: the run's
// whole attempt chain, as `follow` sees it), its notifications sent from here, and a heartbeat
// (sentinel.json) every period. It stops by itself once the run's end is delivered. Whatever
// happens to it never touches the run: it only reads the run dir and writes its own files there.
// With a digest (injected by its command: src/session's DigestWriter), it keeps the run's digest up
// to date every period and once more at its end: an attach reads it instead of the whole log.
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { LocalTransport } from '../remote/local.js';
import { createRunWatch } from '../watch/create-run-watch.js';
import { parseRunRecord, runLogPath } from '../runs/run-record.js';
import { readRunFacts } from '../runs/run-facts-eval.js';
import { SENTINEL_FILES, SENTINEL_PERIOD_MS, type SentinelBeat } from '../runs/sentinel-status.js';
import type { WatchOutput } from '../watch/watch-output.js';
import type { Transport } from '../remote/transport.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import { parseSentinelInput, type SentinelInput } from './sentinel-input.js';
import { makeSender, type SentinelSender } from './sender.js';
import { jobEndNudge } from './job-end-nudge.js';
import { DiskReport, Heartbeat, type BeatFields } from './heartbeat.js';
import type { DiskWriter, WriteResult } from './disk-watch.js';

/** How long the run's end may take to be delivered before the sentinel stops anyway. */
const END_DELIVERY_MS = 120_000;
/** Nobody looks at a sentinel's screen: it looks at the log every 500 ms (no fs.watch waking it at
 *  each of the trainer's writes: a notification is at most 0.5 s later), and asks a Slurm run's
 *  state every 10 s (each look is a list script: its largest cost at 2 s; a Slurm run's end without a
 *  log line is sent up to 10 s later). A direct run's state is asked at once when what it is derived
 *  from moves (job-end-nudge.ts, looked at in-process every 500 ms; test/sentinel/state-inputs.test.ts),
 *  and polled only every 5 minutes besides. Measured: test/bench/sentinel.bench.mjs. */
const SENTINEL_FOLLOW_POLL_MS = 500;
const SENTINEL_STATE_POLL_MS = 10_000;
const DIRECT_STATE_POLL_MS = 300_000;
/** How often it looks that its run's directory is still there (one stat). */
const RUN_DIR_LOOK_MS = 5_000;

/** The run's digest next to it (src/session/digest-writer.ts): brought up to the log's end. */
export interface SentinelDigest {
  /** `force`: however little the log gained (its end); else the writer may wait for more. */
  update(o?: { force?: boolean }): Promise<{
    offset: number;
    gzBytes: number;
    filtered: number;
    rebuilt: string | null;
    snapshot?: { bytes: number } | { error: string };
  } | null>;
}
/** A watch snapshot's write, done or not (`code`, `path`: a write the filesystem refused). */
export type SnapshotWrite = { bytes: number } | { error: string; code?: string; path?: string };
/** `facts`: the run's config facts (a watch snapshot beside the digest is judged with them);
 *  `onSnapshot`: each write of the snapshot beside the digest (the disk's state is judged from it);
 *  `periodMs`: the sentinel's period (a period's update may wait some periods before a rewrite). */
export type MakeDigest = (
  transport: Transport,
  logPath: string,
  facts: Promise<RunWatchFacts>,
  onSnapshot: (r: SnapshotWrite) => void,
  periodMs?: number,
) => SentinelDigest;

export async function runSentinel(
  runId: string,
  runDir: string,
  stdin: string,
  makeDigest?: MakeDigest,
): Promise<number> {
  const input = parseSentinelInput(stdin);
  // Its stdout and stderr are sentinel.log in the run dir: on a full disk a line cannot be written,
  // and a stream's error nobody listens for ends the process (exit 1). The lines are lost; it watches on.
  for (const s of [process.stdout, process.stderr]) s.on('error', () => undefined);
  const record = parseRunRecord(readFileSync(`${runDir}/run.json`, 'utf8'));
  if (!record || record.runId !== runId) {
    log(`no run ${runId} in ${runDir} (run.json missing or not readable)`);
    return 2;
  }
  const transport = new LocalTransport({ followPollMs: SENTINEL_FOLLOW_POLL_MS, followWatch: false });
  const disk = new DiskReport(hostname(), log);
  const facts = readRunFacts(transport, record).catch((e: Error) => {
    log(`the run's config facts are unknown: ${e.message}`);
    return {};
  });
  const watch = createRunWatch({
    transport,
    target: input.target,
    runId,
    logPath: runLogPath(record),
    whenEnded: 'stop',
    storeSeries: 'rules',
    ...(input.target.backend === 'slurm'
      ? { statePollMs: SENTINEL_STATE_POLL_MS }
      : { statePollMs: DIRECT_STATE_POLL_MS, stateNudge: jobEndNudge(runDir) }),
    facts,
    // A full disk under the run: its own alert, sent by the sentinel (disk-watch.ts).
    outsideAlerts: [disk.alert],
  });
  const sender = makeSender(input, watch, log);
  const digest = makeDigest
    ? new DigestKeeper(
        makeDigest(
          transport,
          runLogPath(record),
          facts,
          (r) => {
            if ('error' in r) log(`watch snapshot not written: ${r.error}`);
            writeResult(disk, 'snapshot', r);
          },
          input.periodMs,
        ),
        disk,
        runLogPath(record),
      )
    : null;
  const heartbeat = new Heartbeat(`${runDir}/${SENTINEL_FILES.beat}`, disk, log);
  const sentinel = new Sentinel(runId, input, sender, digest, heartbeat);
  let runEnded = false;
  const ended = new Promise<string>((resolve) => {
    watch.on((o) => {
      sentinel.told(o);
      if (o.type === 'end') {
        runEnded = o.outcome.kind === 'ended';
        resolve(o.outcome.kind === 'ended' ? `the run ended (${o.outcome.state})` : o.outcome.reason);
      }
    });
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve(`stopped by ${sig}`));
    // A run whose directory was removed (by hand, a cleanup) is watched by nobody's wish: its state
    // can no longer be asked, so its end would never come and the sentinel would run for ever.
    const gone = setInterval(() => {
      if (!existsSync(`${runDir}/run.json`)) resolve(`the run's directory ${runDir} was removed`);
    }, RUN_DIR_LOOK_MS);
    gone.unref();
    process.on('SIGHUP', () => undefined); // detached: a hang-up is no reason to stop watching
  });
  sentinel.beat();
  log(`watching ${runId} (pid ${process.pid}, heartbeat every ${input.periodMs} ms, ${sender.channels} channels)`);
  watch.start();
  const why = await ended;
  watch.close();
  log(`${why}; delivering what is left`);
  await Promise.all([sender.flush(END_DELIVERY_MS), digest?.last()]);
  sentinel.stop(why, runEnded);
  log(`stopped: ${why}`);
  await transport.close();
  return 0;
}

class Sentinel {
  private readonly startedAt = new Date().toISOString();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly runId: string,
    private readonly input: SentinelInput,
    private readonly sender: SentinelSender,
    private readonly digest: DigestKeeper | null,
    private readonly heartbeat: Heartbeat,
  ) {
    this.timer = setInterval(() => this.beat(), input.periodMs ?? SENTINEL_PERIOD_MS);
  }

  told(o: WatchOutput): void {
    if (o.type === 'alert') log(`alert fired: ${o.alert.id}: ${o.alert.title}`);
    else if (o.type === 'alert-cleared')
      log(`alert ${o.endedWithRun ? 'ended with the run' : 'cleared'}: ${o.alert.id}`);
    else if (o.type === 'state') log(`run state: ${o.summary.state} (${o.summary.detail})`);
    else if (o.type === 'note' && o.level === 'warning') log(`watch: ${o.text}`);
  }

  beat(): void {
    this.write({ state: 'running' });
    this.digest?.update();
  }

  stop(why: string, runEnded: boolean): void {
    clearInterval(this.timer);
    this.write({ state: 'stopped', stoppedAt: new Date().toISOString(), why, ...(runEnded ? { runEnded } : {}) });
  }

  /** sentinel.json (heartbeat.ts: whole, or in place on a full disk; never throws). */
  private write(s: Pick<SentinelBeat, 'state' | 'stoppedAt' | 'why' | 'runEnded'>): void {
    const beat: BeatFields = {
      v: 1,
      runId: this.runId,
      pid: process.pid,
      startedAt: this.startedAt,
      heartbeatAt: new Date().toISOString(),
      periodMs: this.input.periodMs,
      notify: this.sender.redacted,
      ...s,
      sent: this.sender.sent,
      failures: this.sender.failures.slice(-5),
    };
    this.heartbeat.write(beat);
  }
}

/** One digest update at a time (a period's update waits for none: it is skipped while one runs). */
export class DigestKeeper {
  private running: Promise<void> | null = null;
  private ending = false;

  constructor(
    private readonly digest: SentinelDigest,
    private readonly disk: DiskReport,
    private readonly logPath: string,
  ) {}

  update(): void {
    if (this.ending) return;
    this.running ??= this.once().finally(() => (this.running = null));
  }

  /** The last update, once the running one (if any) is over: the digest reaches the log's end. No
   *  period's update from here on: the heartbeat goes on until the end is delivered, and one run
   *  beside this one wrote the same temp files (the snapshot renamed away, then removed). */
  async last(): Promise<void> {
    this.ending = true;
    await this.running;
    await this.once(true);
  }

  private async once(force = false): Promise<void> {
    try {
      const u = await this.digest.update({ force });
      if (u) this.disk.record('digest', { ok: true });
      if (u?.rebuilt)
        log(`digest written from the log's start (${u.rebuilt}): ${u.offset} bytes, ${u.gzBytes} gzipped`);
    } catch (e) {
      // A full disk, a log gone: the digest stays as it was (an attach then filters the rest).
      log(`digest not updated: ${(e as Error).message}`);
      const err = e as NodeJS.ErrnoException;
      // Its own files only: the log it reads failing is no news of the disk.
      if (err.code && err.path && err.path !== this.logPath)
        writeResult(this.disk, 'digest', { error: err.message, code: err.code, path: err.path });
    }
  }
}

/** A write of the digest or the snapshot told to the disk report: done, or refused by the filesystem
 *  (an error with no errno code, e.g. a log that changed under the filter, is no news of the disk). */
function writeResult(disk: DiskReport, w: DiskWriter, r: SnapshotWrite): void {
  if (!('error' in r)) return disk.record(w, { ok: true });
  if (!r.code || !r.path) return;
  const failed: WriteResult = { ok: false, path: r.path, code: r.code, message: r.error, at: new Date().toISOString() };
  disk.record(w, failed);
}

/** One line of the sentinel's own log (its stderr is sentinel.log, 0600). Never a URL's secret. */
export function log(text: string): void {
  process.stderr.write(`${new Date().toISOString()} ${text}\n`);
}
