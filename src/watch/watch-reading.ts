// Reading the run's log for the watch: attach (the log's silence measured first, the history
// backfilled or the whole log followed), follow by byte offset with one parser, and at the run's
// end read its tail before its state is told, then stop or pause (and follow again on a resume).
// Every record goes through the core's pipeline (WatchCore.ingest); the parts hear of bytes,
// lines and resets through their hooks.
import type { LogLine, TrainerLogReader } from '../trainer-log/index.js';
import type { RunSummary } from '../runs/list.js';
import { followRun, type RunFollower } from '../runs/follow-run.js';
import { isTerminal } from '../runs/run-state.js';
import { measureLogSilence, type LogSilence, type LogTailWanted } from './follow-alerts.js';
import type { LogReadEnd } from './watch-output.js';
import { drainLog, failureLines } from './watch-drain.js';
import { backfillHistory } from './watch-backfill.js';
import type { WatchCore } from './watch-core.js';
import type { FollowWake } from '../remote/transport.js';

/** `follow`'s status line on how the log's changes reach it from the target. */
export function followWakeText(w: FollowWake, target: string): string {
  const read = w.resident ? 'read by one resident process there' : 'each read by a few processes there (no perl)';
  if (w.pushed) return `log changes pushed from ${target} (inotifywait), ${read}`;
  return (
    `log polled on ${target} every ${w.pollMs} ms once quiet (no inotifywait there: install inotify-tools ` +
    `for changes pushed at once), ${read}`
  );
}

export class LogReading {
  private follower: RunFollower | null = null;
  /** Where a paused follower stopped, with its reader (its open records stay open). */
  private paused: { offset: number; reader: TrainerLogReader } | null = null;
  /** The log as measured before it was first read: counted once reading stands exactly at its size. */
  private firstSilence: LogSilence | null = null;
  /** What the follower delivered while the log's silence was being measured (attachWhole). */
  private held: (() => void)[] | null = null;
  private settling = false;
  private lastReadEnd: LogReadEnd | null = null;
  private readonly stopBackfill = new AbortController();
  private wakeSaid: string | null = null;

  constructor(private readonly core: WatchCore) {}

  /** How far the log was read when the run ended (null: it has not, or not yet settled). */
  get readEnd(): LogReadEnd | null {
    return this.lastReadEnd;
  }

  /** Reading stands before the end the log had when the watch opened (see RunWatch.readingBacklog). */
  get readingBacklog(): boolean {
    return this.firstSilence !== null && this.core.readOffset < this.firstSilence.size;
  }

  close(): void {
    this.stopBackfill.abort();
    this.follower?.close();
  }

  async attach(): Promise<void> {
    const { transport, logPath, backfill } = this.core.o;
    // Known before the first record is taken, so the first evaluation already counts how long the
    // log was silent: a run that hung at 02:00, opened at 09:00, shows its hang once its backlog is read.
    const measure = (tail?: LogTailWanted) =>
      measureLogSilence(transport, logPath, this.core.clock, tail).catch(() => null);
    if (!backfill) return this.attachWhole(measure);
    // The raw tail the backfill shows first comes in the measure's answer: no round trip of its own.
    const wanted = backfill.tailBytes ? { bytes: backfill.tailBytes, above: backfill.thresholdBytes } : undefined;
    const [first] = await Promise.all([measure(wanted), this.core.factsKnown]);
    // Kept until reading reaches its size, without the tail's bytes (the backfill alone takes them).
    this.firstSilence = first && { size: first.size, silenceMs: first.silenceMs, measuredWall: first.measuredWall };
    if (this.core.closed) return;
    this.core.announceWandb();
    const start = await backfillHistory(this.core, backfill, first, this.stopBackfill.signal);
    if (!start || this.core.closed) return;
    this.follow(start.from, start.reader);
    this.following(start.from, []);
  }

  /** No history to filter first: the follower starts while the log's silence is measured (a round
   *  trip less before the first record), and what it delivers meanwhile is held until then. The
   *  follower's command goes first: it takes the longest to start (a dozen forks on the target). */
  private async attachWhole(measure: () => Promise<LogSilence | null>): Promise<void> {
    this.held = [];
    this.follow(0, undefined);
    [this.firstSilence] = await Promise.all([measure(), this.core.factsKnown]);
    this.core.announceWandb();
    const held = this.held;
    this.held = null;
    if (!this.core.closed) this.following(0, held);
  }

  /** Following has started at `from`; `held`: what the follower delivered before this point. */
  private following(from: number, held: (() => void)[]): void {
    this.core.dispatch({ type: 'follow' });
    this.countFirstSilence(from);
    for (const told of held) if (!this.core.closed) told();
    const s = this.core.summary;
    if (this.core.o.endedAtOpen || (s && isTerminal(s.state))) void this.settle();
  }

  /** `fn`, or while deliveries are held (attachWhole), `fn` kept to run in order later. */
  private later<A extends unknown[]>(fn: (...a: A) => void): (...a: A) => void {
    return (...a) => {
      if (this.held) this.held.push(() => fn(...a));
      else fn(...a);
    };
  }

  private follow(fromOffset: number, reader: TrainerLogReader | undefined): void {
    const core = this.core;
    core.readOffset = fromOffset;
    let fresh: LogLine[] | null = null;
    this.follower = followRun(core.o.transport, core.o.logPath, {
      fromOffset,
      ...(reader ? { reader } : {}),
      onEvent: this.later((e) => core.ingest(e, false)),
      onSave: this.later((e) => core.ingest(e, false)),
      // Lines for the parts that read them (a log pane, a Slurm run's Ray bring-up).
      ...(core.parts.some((p) => p.wantsLines) ? { onLines: this.later((l: LogLine[]) => void (fresh = l)) } : {}),
      onReset: this.later((reason) => {
        this.firstSilence = null;
        core.readOffset = 0;
        for (const p of core.parts) p.onReset?.();
        if (reason !== 'appeared') core.dispatch({ type: 'log-reset' });
        core.emit({ type: 'reset', reason });
      }),
      onProblem: this.later((p) => core.setProblem(p)),
      onFresh: this.firstThen(() => {
        // A problem a paused follower left standing is over once its successor reads.
        if (core.problem) core.setProblem(null);
        core.dispatch({ type: 'bytes' });
        this.sayWake();
      }),
      onConsumed: this.later((offset) => {
        core.readOffset = offset;
        // Told after the delivery's records, with the offset already past them: a renderer that
        // waits for "read so far" sees it with the lines.
        for (const p of core.parts) p.onLines?.(fresh);
        fresh = null;
        // Once the silence is counted, the rules look at the clock: what a frame then shows is
        // what the watch saw, not what a view computed.
        if (!this.countFirstSilence(offset)) core.tick();
      }),
    });
  }

  /** onFresh as `later` keeps it; the parts hear of fresh bytes at once (a held-back state poll). */
  /** How the target's follower learns of changes, said once (and again only when it changes: a
   *  reconnect to a head that differs): a polled log is read up to a poll late. */
  private sayWake(): void {
    const w = this.follower?.wake;
    if (!w) return;
    const text = followWakeText(w, this.core.o.target.name);
    if (text === this.wakeSaid) return;
    this.wakeSaid = text;
    this.core.emit({ type: 'note', level: 'info', text });
  }

  private firstThen(fn: () => void): () => void {
    const kept = this.later(fn);
    return () => {
      for (const p of this.core.parts) p.onFresh?.();
      kept();
    };
  }

  /** Reading reached the size measured at attach: the latest record counts as arriving when the log
   *  was last written. Past that size the log grew: it is live, nothing to count. */
  private countFirstSilence(offset: number): boolean {
    const m = this.firstSilence;
    if (!m || offset < m.size) return false;
    this.firstSilence = null;
    if (offset !== m.size || !this.core.alerts.logWrittenAt(m.measuredWall - m.silenceMs)) return false;
    this.core.tick();
    return true;
  }

  /** The run's state changed (after the core and the parts took it). */
  onRunState(s: RunSummary): void {
    const reading = this.core.life.reading;
    if (isTerminal(s.state)) {
      // Told once its log's tail was read: the errors that led to the end come before it.
      if (reading === 'ended' && !this.core.toldState(s.state)) this.core.tellState(s);
      else if (reading !== 'ended') void this.settle();
      return;
    }
    this.core.tellState(s);
    if (reading === 'ended' || reading === 'settling') this.wake();
  }

  /** The run ended: read what is left of its log, close the records still open, then tell the
   *  state, and stop (or pause) following. */
  private async settle(): Promise<void> {
    const core = this.core;
    // While deliveries are held, following has not started: it settles once they are told.
    if (this.settling || core.closed || !this.follower || this.held) return;
    this.settling = true;
    core.dispatch({ type: 'settle' });
    try {
      const { transport, logPath } = core.o;
      const { readEnd, size } = await drainLog({
        transport,
        logPath,
        offset: () => core.readOffset,
        problem: () => core.problem,
        timeoutMs: core.o.drainTimeoutMs ?? 15_000,
        stop: () => core.closed || core.life.reading !== 'settling',
      });
      // Opened on an ended run (endedAtOpen): its end is told as its state says, once that is known.
      if (core.o.whenEnded === 'stop' && !core.summary) await core.stateAnswer;
      if (core.closed || core.life.reading !== 'settling') return;
      const f = this.follower;
      // The run's exit status settles the trainer's end record, written on every exit.
      const exit = endedHow(core.summary);
      if (core.o.whenEnded === 'stop') {
        // The reader's end: its last record (a line without its newline too) goes out.
        await f?.finish(1, exit);
        this.follower = null;
      } else if (f) {
        for (const e of f.reader.flushIdle(exit)) core.ingest(e, false);
        this.paused = { offset: f.offset, reader: f.reader };
        f.close();
        this.follower = null;
      }
      const s = core.summary;
      if (s && !core.toldState(s.state)) core.tellState(s);
      const lastLines = s?.state === 'failed' && size !== null ? await failureLines(transport, logPath, size) : [];
      if (core.closed) return;
      this.lastReadEnd = readEnd;
      const unreadBytes = core.problem && size !== null ? Math.max(0, size - core.readOffset) : null;
      core.emit({ type: 'settled', readEnd, lastLines, unreadBytes, problem: core.problem });
      core.dispatch({ type: 'settled' });
      if (core.o.whenEnded === 'stop') {
        const st = transport.state;
        if (readEnd !== 'read' && readEnd !== 'missing' && st.state === 'failed')
          core.finish({ kind: 'disconnected', reason: st.reason });
        else core.finish({ kind: 'ended', state: s?.state ?? 'failed', detail: s?.detail ?? '' });
      }
    } finally {
      this.settling = false;
    }
  }

  /** The ended run runs again (a resume, a Slurm requeue): follow its log from where it stopped. */
  private wake(): void {
    if (this.core.closed) return;
    this.core.dispatch({ type: 'resume' });
    this.lastReadEnd = null;
    if (!this.follower) {
      const p = this.paused;
      this.paused = null;
      this.follow(p?.offset ?? this.core.readOffset, p?.reader);
    }
    for (const p of this.core.parts) p.onResume?.();
  }
}

/** A finished run completed; any other ended state did not; a state not known to be an end: unknown. */
function endedHow(s: RunSummary | null): { completed: boolean } | undefined {
  if (!s || !isTerminal(s.state)) return undefined;
  return { completed: s.state === 'finished' };
}
