// Watching one run: the one place that decides what happened to it. Backfill then follow (byte
// offsets, one parser), the connection (its loss is not the trainer's silence), silence measured on
// the log itself, the run's state polled, the Slurm job's end, follow problems, the run's end
// (its log's tail read BEFORE its end state is told). It feeds the metrics store explicitly and the
// alert rules read it; alerts are evaluated on the watch's own clock (a tick), never by whoever asks
// for a view. Renderers (src/ui/session's RunFeed, src/cli's follow lines) subscribe to its
// outputs (watch-output.ts) and only draw or print them: they agree by construction.
// The lifecycle is watch-lifecycle.ts's reducer.
import type { ConnectionState, FollowProblem, Transport } from '../remote/transport.js';
import { RunAlerts, isHangAlert, type HealthEvent } from '../health/index.js';
import { MetricsStore, RULE_SERIES_KEYS, type Alert } from '../metrics/index.js';
import type { LogLine, TrainerLogReader, WandbEvent } from '../trainer-log/index.js';
import type { Target } from '../runs/targets.js';
import type { RunState } from '../runs/run-record.js';
import type { RunSummary } from '../runs/list.js';
import { followRun, type RunFollower } from '../runs/follow-run.js';
import { watchRunState, type RunStateWatcher } from '../runs/watch-state.js';
import { isActive, isTerminal } from '../runs/run-state.js';
import { RayBringUpLines, type RayBringUp } from './ray-bringup-log.js';
import { IdleNodeWatch, type NodeGpuRound } from './idle-nodes.js';
import { NodeFailureWatch } from './node-facts.js';
import { SlurmEndWatch } from './slurm-job-end.js';
import { LogSilenceWatch, measureLogSilence, type LogSilence } from './follow-alerts.js';
import { HostSilence, NO_DATA_MARGIN_MS, lastAnswerAt } from './host-silence.js';
import {
  initialLifecycle,
  logClockRuns,
  reduceWatch,
  watchPhase,
  type WatchAction,
  type WatchLifecycle,
  type WatchPhase,
} from './watch-lifecycle.js';
import type { OutsideAlert } from './outside-alerts.js';
import { AlertChanges, type LogReadEnd, type WatchOutcome, type WatchOutput } from './watch-output.js';
import { drainLog, failureLines } from './watch-drain.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import type { ExpectedWandb } from '../runs/wandb-expected.js';

export type { RunWatchFacts } from '../runs/run-facts.js';

/** Reading a long log's history through a target-side filter before following (the cockpit). */
export interface WatchBackfill {
  thresholdBytes: number;
  /** Hands the history's records on in log order as they are read (`onEvents`), never all at once. */
  run(
    transport: Transport,
    logPath: string,
    size: number,
    sink: {
      onEvents(events: HealthEvent[]): void;
      onProgress(p: { readBytes: number; totalBytes: number }): void;
      /** Aborted when the watch is closed: the filter on the target stops. */
      signal: AbortSignal;
    },
  ): Promise<{
    offset: number;
    /** The reader holding any record still open at `offset`: following goes on with it. */
    reader: TrainerLogReader;
    records: number;
    sentBytes: number;
    coveredBytes: number;
    /** Bytes of the history that came from a local cache (0: none). */
    cachedBytes?: number;
  }>;
}

export interface RunWatchOptions {
  transport: Transport;
  target: Target;
  runId: string;
  logPath: string;
  /** The run's config facts, or their promise (the config is read and evaluated while the follower
   *  starts): no record is taken before they are known. */
  facts?: RunWatchFacts | Promise<RunWatchFacts>;
  backfill?: WatchBackfill;
  /** After the run ended and its log was read: `stop` ends the watch (an `end` output); `pause`
   *  stops following, polls the state every `endedStatePollMs`, and follows again on a resume. */
  whenEnded: 'stop' | 'pause';
  /** Also the log pane's cleaned lines, as `lines` outputs (the cockpit). Default false. */
  lines?: boolean;
  /** Whether the run is known to have ended when the watch opens (the runs list said so). */
  endedAtOpen?: boolean;
  statePollMs?: number;
  endedStatePollMs?: number;
  /** The time-driven rules (stalls, the resume guard) are evaluated this often (default 5 s). */
  tickMs?: number;
  jobEndPollMs?: number;
  /** How long the log's tail may make no progress while connected once the run ended (15 s). */
  drainTimeoutMs?: number;
  storeCapacity?: number;
  /** 'rules': the store keeps as series only what the alert rules read (a printer of records and
   *  alerts: `follow`, `--launch --follow`); default 'all', for panels that chart every key. */
  storeSeries?: 'all' | 'rules';
  /** How long a node's GPUs may stay idle while the others work before it is named (2 min). */
  idleNodeMs?: number;
  /** How much longer than the state poll's interval the target may send nothing before "no data
   *  from HOST" (default NO_DATA_MARGIN_MS). */
  noDataMarginMs?: number;
  /** Alerts known outside the watch (the run's sentinel gone silent), told as its own. */
  outsideAlerts?: readonly OutsideAlert[];
  clock?: () => number;
}
/** The run's state is polled this often while it runs (watch-state.ts's default)… */
const STATE_POLL_MS = 2000;
/** …and this many times less often once its log has been quiet this long. */
const QUIET_LOG_MS = 30_000;
const QUIET_STATE_FACTOR = 5;
/** A whole log's follower starts first: the state's first look waits for its first bytes, or this
 *  long. Started together, the two scripts' forks shared the target's cores and the first bytes
 *  came ~70 ms later (a 2-core head, test/bench/stream.bench.mjs). */
const FIRST_STATE_WAIT_MS = 500;

export class RunWatch {
  readonly store: MetricsStore;
  readonly alerts: RunAlerts;
  private readonly changes = new AlertChanges();
  private readonly listeners = new Set<(o: WatchOutput) => void>();
  private readonly clock: () => number;
  private life: WatchLifecycle;
  private follower: RunFollower | null = null;
  /** Where a paused follower stopped, with its reader (its open records stay open). */
  private paused: { offset: number; reader: TrainerLogReader } | null = null;
  private readOffset = 0;
  private current: RunSummary | null = null;
  private readonly ray = new RayBringUpLines();
  /** The attempt's Ray bring-up while it is the run's phase: from its first line to the trainer's
   *  first record (null: not in bring-up). */
  private bringUp: RayBringUp | null = null;
  /** Records read from the delivery whose lines are not told yet. */
  private deliveryRecords = 0;
  private readonly idleNodes: IdleNodeWatch;
  /** The idle-node alert standing now (null: none). */
  private idleAlert: Alert | null = null;
  /** A Slurm run's nodes, asked of Slurm while the run is active (node-facts.ts). */
  private readonly nodeFailures: NodeFailureWatch | null;
  /** The latest node-failure alert of the run's job (null: none). */
  private nodeFailure: Alert | null = null;
  /** A hang fired and Slurm is being asked about the nodes before it is told. */
  private askingNodes = false;
  private told: RunState | null = null;
  private watcher: RunStateWatcher | null = null;
  private jobEnd: SlurmEndWatch | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private offState: (() => void) | null = null;
  private lostAt: number | null = null;
  private standing: FollowProblem | null = null;
  /** When fresh bytes of the log were last read (real time: it paces polls; the start before any). */
  private freshAt = 0;
  /** The log as measured before it was first read: counted once reading stands exactly at its size. */
  private firstSilence: LogSilence | null = null;
  /** What the follower delivered while the log's silence was being measured (attachWhole). */
  private held: (() => void)[] | null = null;
  private readonly silenceWatch: LogSilenceWatch;
  private settling = false;
  private lastReadEnd: LogReadEnd | null = null;
  private closed = false;
  private over = false;
  private readonly stopBackfill = new AbortController();
  /** Resolves once the config facts are set (see RunWatchOptions.facts). */
  private factsKnown: Promise<void> = Promise.resolve();
  /** Starts the state poll held back for the follower's first bytes (null: started). */
  private startPoll: (() => void) | null = null;
  /** The state poll's interval now (the target answers at least this often while it is up). */
  private pollEvery: () => number = () => STATE_POLL_MS;
  /** The state poll answered (a state, or an error): until then the clock-driven rules wait, so
   *  what a replay of an ended run says never depends on which answer came first. */
  private stateAnswered = false;
  /** Where the clock-driven rules last looked (our clock): they never look back. */
  private evaluatedAt = -Infinity;
  private readonly hostSilence: HostSilence;
  /** The wandb run the config makes (its page, before wandb's banner says it), from the facts. */
  private expectedWandb: ExpectedWandb | null = null;
  private readonly offOutside: Array<() => void> = [];

  constructor(private readonly o: RunWatchOptions) {
    this.clock = o.clock ?? Date.now;
    this.store = new MetricsStore({
      ...(o.storeCapacity !== undefined ? { capacity: o.storeCapacity } : {}),
      ...(o.storeSeries === 'rules' ? { seriesKeys: RULE_SERIES_KEYS } : {}),
    });
    this.alerts = new RunAlerts(this.store);
    const f = o.facts ?? {};
    const known = (g: RunWatchFacts) => {
      this.alerts.setConfigFacts(g);
      this.expectedWandb = g.wandb ?? null;
    };
    if (f instanceof Promise) this.factsKnown = f.then(known, () => undefined);
    else known(f);
    this.idleNodes = new IdleNodeWatch(o.idleNodeMs);
    this.nodeFailures =
      o.target.backend === 'slurm' ? new NodeFailureWatch(o.transport, o.target, (a) => this.onNodeFailure(a)) : null;
    this.life = initialLifecycle(o.transport.state.state === 'ready');
    if (!this.life.connected) this.alerts.unobserved(this.clock());
    this.silenceWatch = new LogSilenceWatch({
      transport: o.transport,
      logPath: o.logPath,
      clock: this.clock,
      // Every record read so far was in the log when it was measured: it was written by then.
      measured: (m) => {
        // Not after a reset or restart, before the file holds a record: the records read so far
        // were never in the file measured.
        if (
          !this.closed &&
          !this.life.restarting &&
          this.readOffset === m.size &&
          this.alerts.logWrittenAt(m.measuredWall - m.silenceMs)
        )
          this.tick();
      },
    });
    this.hostSilence = new HostSilence({
      transport: o.transport,
      clock: this.clock,
      silentAfterMs: () => this.pollEvery() + (o.noDataMarginMs ?? NO_DATA_MARGIN_MS),
      onSilent: (since) => this.onHostSilence(since),
      onAnswering: (since) => this.onHostSilence(null, since),
    });
  }

  /** Told every output, in order. Returns the unsubscribe. */
  on(listener: (o: WatchOutput) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get phase(): WatchPhase {
    return watchPhase(this.life);
  }

  get connection(): ConnectionState {
    return this.o.transport.state;
  }

  /** Bytes of the log read so far. */
  get offset(): number {
    return this.readOffset;
  }

  get problem(): FollowProblem | null {
    return this.standing;
  }

  /** Reading stands before the end the log had when the watch opened: its history is being read
   *  (backfilled or followed), a burst. False once that end is reached, after a reset, and when
   *  the end could not be measured. */
  get readingBacklog(): boolean {
    return this.firstSilence !== null && this.readOffset < this.firstSilence.size;
  }

  /** Since when the target has sent nothing while connected (null: it answers). */
  get silentSince(): number | null {
    return this.hostSilence.since;
  }

  /** The run's state as last told (null: not polled yet). */
  get summary(): RunSummary | null {
    return this.current;
  }

  /** How far the log was read when the run ended (null: it has not, or not yet settled). */
  get readEnd(): LogReadEnd | null {
    return this.lastReadEnd;
  }

  start(): this {
    this.freshAt = Date.now();
    this.offState = this.o.transport.onState((s) => this.onConnection(s));
    this.ticker = setInterval(() => this.tick(), this.o.tickMs ?? 5_000);
    this.ticker.unref();
    this.hostSilence.start();
    for (const s of this.o.outsideAlerts ?? []) this.offOutside.push(s.listen((a) => this.tell(a ? [a] : [])));
    void this.attach();
    if (this.o.backfill) this.pollState(this.o.statePollMs);
    else this.pollStateAfterFirstBytes();
    return this;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopBackfill.abort();
    if (this.ticker) clearInterval(this.ticker);
    this.startPoll = null;
    this.watcher?.stop();
    this.nodeFailures?.stop();
    this.jobEnd?.close();
    this.offState?.();
    this.follower?.close();
    this.silenceWatch.stop();
    this.hostSilence.stop();
    for (const off of this.offOutside) off();
  }

  /** A record not read through the follower (a replay, a benchmark): handled as a followed one. */
  push(e: HealthEvent): void {
    if (!this.closed) this.ingest(e, false);
  }

  /** The Ray bring-up while the attempt is in it (the cockpit's header shows it); null: not. */
  get rayBringUp(): RayBringUp | null {
    return this.bringUp;
  }

  /** The watch's own alerts beside the rules' (a node idle while the others work, a silent sentinel). */
  get nodeAlerts(): Alert[] {
    const outside = (this.o.outsideAlerts ?? []).map((s) => s.alert);
    return [this.nodeFailure, this.idleAlert, ...outside].filter((a): a is Alert => a !== null);
  }

  /** A node of the run's job failed (Slurm's verdict), or the job runs again without it (info). While
   *  the failure stands, the log's silence is the node's, not the trainer's: the stall rules' clock
   *  stops (no "stalled waiting for the rollout batch" for a dead node), and runs again with the job. */
  private onNodeFailure(a: Alert): void {
    if (this.closed) return;
    const was = this.nodeFailure;
    this.nodeFailure = a;
    const stands = a.severity !== 'info';
    // From the last record's arrival: the silence since then is the dead node's.
    if (stands && (!was || was.severity === 'info')) this.alerts.unobserved(0);
    else if (!stands && was && was.severity !== 'info' && logClockRuns(this.life)) this.alerts.observed(this.clock());
    this.tell(a.id !== was?.id ? [a] : []);
  }

  /** One GPU round of the run's nodes (whoever polls them: the cockpit's panel, `follow`): a node
   *  whose GPUs stay idle while the others work is named (idle-nodes.ts), and told as an alert. */
  gpuRound(round: readonly NodeGpuRound[]): void {
    if (this.closed) return;
    // An ended run's nodes are idle by right; a pending one's previous nodes are not its own.
    const live = this.current === null || this.current.state === 'running';
    const a = this.idleNodes.push(live ? round : [], this.clock());
    const fired = a && a.id !== this.idleAlert?.id ? [a] : [];
    this.idleAlert = a;
    this.tell(fired);
  }

  /** The time-driven rules at our clock now; what fired or cleared is told. */
  tick(): void {
    if (this.closed || !this.stateAnswered) return;
    const fired: Alert[] = [];
    this.alerts.evaluate(this.knownUntil(), fired);
    if (this.nodeFailures && !this.askingNodes && fired.some(isHangAlert)) {
      // A Slurm run that hangs may have lost a node: Slurm is asked first (a failure found stops the
      // rules' clock, and the hang it explains is never told), then what still stands is told.
      this.askingNodes = true;
      void this.nodeFailures.check().finally(() => {
        this.askingNodes = false;
        if (this.closed) return;
        const now: Alert[] = [];
        this.alerts.evaluate(this.knownUntil(), now);
        const active = new Set(this.alerts.active.map((a) => a.id));
        this.tell([...fired.filter((a) => active.has(a.id) && !now.some((b) => b.id === a.id)), ...now]);
      });
      return;
    }
    this.tell(fired);
  }

  /** Our clock as far as the target is known to have answered: the rules judge no time after its
   *  last byte or answer (a silent path is declared only seconds later), and never look back. */
  private knownUntil(): number {
    const now = this.clock();
    this.evaluatedAt = Math.max(this.evaluatedAt, Math.min(now, lastAnswerAt(this.o.transport, now) ?? now));
    return this.evaluatedAt;
  }

  /** The target went silent while connected (`since`), or answers again (null; `was`: since when
   *  it had been silent). Nothing is known meanwhile: the rules' clock stops where it last answered. */
  private onHostSilence(since: number | null, was?: number): void {
    if (this.closed) return;
    const now = this.clock();
    if (since !== null) {
      this.dispatch({ type: 'answering', answering: false }, since);
      this.emit({ type: 'connection', state: 'silent', since, silentMs: now - since });
      this.tick();
      return;
    }
    this.dispatch({ type: 'answering', answering: true });
    this.emit({ type: 'connection', state: 'answering', since: was ?? now, silentMs: now - (was ?? now) });
    // What the trainer did meanwhile comes as bytes; if none, its mtime says whether it was silent.
    this.silenceWatch.record();
  }

  private emit(out: WatchOutput): void {
    for (const l of [...this.listeners]) l(out);
  }

  private tell(fired: readonly Alert[]): void {
    const standing = [...this.alerts.active, ...this.nodeAlerts];
    for (const out of this.changes.take(fired, standing, (a) => this.alerts.endedWithRun(a))) this.emit(out);
  }

  /** `unobservedFrom`: when the log stopped being readable, if before now (a lost connection). */
  private dispatch(a: WatchAction, unobservedFrom?: number): void {
    const before = this.life;
    this.life = reduceWatch(before, a);
    if (this.life === before) return;
    const runs = logClockRuns(this.life);
    if (runs !== logClockRuns(before)) {
      if (runs) this.alerts.observed(this.clock());
      else this.alerts.unobserved(unobservedFrom ?? this.clock());
    }
    const phase = watchPhase(this.life);
    if (phase !== watchPhase(before)) this.emit({ type: 'phase', phase });
  }

  /** The wandb run page the config makes, as a `wandb` record marked `from: 'config'`, before any
   *  record is taken (the banner's, later in the log, replaces it in the store, the header and the
   *  notifications). Only a page known whole: an unset entity, an offline run, or a suffix not
   *  written yet leave it to the banner. */
  private announceWandb(): void {
    const w = this.expectedWandb;
    if (this.closed || w === null || w.url === null || this.store.wandb !== null) return;
    const e: WandbEvent = { type: 'wandb', url: w.url, time: null, from: 'config' };
    this.store.ingest(e);
    this.emit({ type: 'record', record: e, backfilled: false });
  }

  /** One record: the rules look before it, the store takes it, the rules look after it. */
  private ingest(e: HealthEvent, backfilled: boolean, arrivedWall = this.clock()): void {
    // A new attempt's first record: the gap before it is the downtime between attempts, not a hang.
    const fired = this.life.restarting && e.type !== 'save' ? [] : this.alerts.arriving(e);
    if (e.type !== 'save') this.store.ingest(e);
    fired.push(...this.alerts.read(e, arrivedWall));
    if (e.type !== 'save') this.dispatch({ type: 'record' });
    this.emit({ type: 'record', record: e, backfilled });
    this.tell(fired);
    // The trainer's first record after the bring-up's lines: the bring-up is over.
    if (e.type !== 'save') {
      this.deliveryRecords++;
      if (this.bringUp) this.endBringUp();
    }
    if (!backfilled) this.silenceWatch.record();
  }

  private async attach(): Promise<void> {
    const { transport, logPath } = this.o;
    // Known before the first record is taken, so the first evaluation already counts how long the
    // log was silent: a run that hung at 02:00, opened at 09:00, shows its hang once its backlog is read.
    const measure = () => measureLogSilence(transport, logPath, this.clock).catch(() => null);
    if (!this.o.backfill) return this.attachWhole(measure);
    [this.firstSilence] = await Promise.all([measure(), this.factsKnown]);
    if (this.closed) return;
    this.announceWandb();
    let from = 0;
    let reader: TrainerLogReader | undefined;
    const bf = this.o.backfill;
    if (bf) {
      let ingested = 0;
      let cut: number | null = null;
      try {
        const st = await transport.stat(logPath);
        if (st && st.size > bf.thresholdBytes && !this.closed) {
          this.dispatch({ type: 'backfill' });
          const started = this.clock();
          // Every backfilled byte was in the log when it was measured: it arrived when last written.
          const m = this.firstSilence;
          const wall = m ? Math.min(this.clock(), m.measuredWall - m.silenceMs) : this.clock();
          const b = await bf.run(transport, logPath, st.size, {
            onEvents: (events) => {
              if (this.closed) return;
              for (const e of events) this.ingest(e, true, wall);
              ingested += events.length;
            },
            onProgress: (p) => {
              cut = p.totalBytes;
              if (!this.closed) this.emit({ type: 'history', ...p });
            },
            signal: this.stopBackfill.signal,
          });
          if (this.closed) return;
          // The history's last look is at the backfill's end, on the clock: a hang is seen now.
          this.tick();
          const mib = (n: number) => (n / 1048576).toFixed(n < 1048576 ? 2 : 1);
          const cached = b.cachedBytes ? `, ${mib(b.cachedBytes)} MiB of it from the cache` : '';
          this.emit({
            type: 'note',
            level: 'info',
            text: `history: ${mib(b.coveredBytes)} MiB of log backfilled with ${mib(b.sentBytes)} MiB sent${cached} (${b.records} records, ${this.clock() - started} ms)`,
          });
          from = b.offset;
          reader = b.reader;
        }
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        if (this.closed) return;
        if (ingested === 0 || cut === null) {
          // Nothing was read yet: read the whole log instead (slower, never wrong).
          this.emit({ type: 'note', level: 'warning', text: `backfill failed (${why}): reading the whole log` });
          from = 0;
        } else {
          // Part of the history is in: it is not read twice. Following starts at the seam.
          this.emit({
            type: 'note',
            level: 'warning',
            text: `backfill failed (${why}): the history before this point is incomplete`,
          });
          from = cut;
        }
        reader = undefined;
      }
      this.emit({ type: 'history', readBytes: null, totalBytes: null });
    }
    if (this.closed) return;
    this.follow(from, reader);
    this.following(from, []);
  }

  /** No history to filter first: the follower starts while the log's silence is measured (a round
   *  trip less before the first record), and what it delivers meanwhile is held until then. The
   *  follower's command goes first: it takes the longest to start (a dozen forks on the target). */
  private async attachWhole(measure: () => Promise<LogSilence | null>): Promise<void> {
    this.held = [];
    this.follow(0, undefined);
    [this.firstSilence] = await Promise.all([measure(), this.factsKnown]);
    this.announceWandb();
    const held = this.held;
    this.held = null;
    if (!this.closed) this.following(0, held);
  }

  /** Following has started at `from`; `held`: what the follower delivered before this point. */
  private following(from: number, held: (() => void)[]): void {
    this.dispatch({ type: 'follow' });
    this.countFirstSilence(from);
    for (const told of held) if (!this.closed) told();
    if (this.o.endedAtOpen || (this.current && isTerminal(this.current.state))) void this.settle();
  }

  /** `fn`, or while deliveries are held (attachWhole), `fn` kept to run in order later. */
  private later<A extends unknown[]>(fn: (...a: A) => void): (...a: A) => void {
    return (...a) => {
      if (this.held) this.held.push(() => fn(...a));
      else fn(...a);
    };
  }

  /** Fresh lines: the bring-up phase read from them (ray-bringup-log.ts), then the lines if asked. */
  private tellLines(lines: LogLine[]): void {
    const records = this.deliveryRecords;
    if (this.o.target.backend === 'slurm') {
      let last = -1;
      lines.forEach((l, i) => {
        for (const update of this.ray.push(`${l.text}\n`)) {
          this.bringUp = update;
          last = i;
          this.emit({ type: 'ray', update });
        }
      });
      // Records of the same bytes were read before these lines were told: the trainer's lines after
      // the last bring-up line (a whole log read at once) mean they came after it, the phase is over.
      if (this.bringUp && records > 0 && last >= 0 && lines.slice(last + 1).some((l) => !l.text.startsWith('awrl: ')))
        this.endBringUp();
    }
    if (this.o.lines) this.emit({ type: 'lines', lines });
  }

  private endBringUp(): void {
    this.bringUp = null;
    this.emit({ type: 'ray', update: null });
  }

  private follow(fromOffset: number, reader: TrainerLogReader | undefined): void {
    this.readOffset = fromOffset;
    let fresh: LogLine[] | null = null;
    this.follower = followRun(this.o.transport, this.o.logPath, {
      fromOffset,
      ...(reader ? { reader } : {}),
      onEvent: this.later((e) => this.ingest(e, false)),
      onSave: this.later((e) => this.ingest(e, false)),
      // Lines for a renderer's log pane, and for a Slurm run the batch script's Ray bring-up lines.
      ...(this.o.lines || this.o.target.backend === 'slurm'
        ? { onLines: this.later((lines: LogLine[]) => void (fresh = lines)) }
        : {}),
      onReset: this.later((reason) => {
        this.firstSilence = null;
        this.readOffset = 0;
        this.ray.reset();
        if (this.bringUp) this.endBringUp();
        if (reason !== 'appeared') this.dispatch({ type: 'log-reset' });
        this.emit({ type: 'reset', reason });
      }),
      onProblem: this.later((p) => this.onProblem(p)),
      onFresh: this.firstThen(() => {
        this.freshAt = Date.now();
        // A problem a paused follower left standing is over once its successor reads.
        if (this.standing) this.onProblem(null);
        this.dispatch({ type: 'bytes' });
      }),
      onConsumed: this.later((offset) => {
        this.readOffset = offset;
        // Told after the delivery's records, with the offset already past them: a renderer that
        // waits for "read so far" sees it with the lines.
        if (fresh) this.tellLines(fresh);
        fresh = null;
        this.deliveryRecords = 0;
        // Once the silence is counted, the rules look at the clock: what a frame then shows is
        // what the watch saw, not what a view computed.
        if (!this.countFirstSilence(offset)) this.tick();
      }),
    });
  }

  /** Reading reached the size measured at attach: the latest record counts as arriving when the log
   *  was last written. Past that size the log grew: it is live, nothing to count. */
  private countFirstSilence(offset: number): boolean {
    const m = this.firstSilence;
    if (!m || offset < m.size) return false;
    this.firstSilence = null;
    if (offset !== m.size || !this.alerts.logWrittenAt(m.measuredWall - m.silenceMs)) return false;
    this.tick();
    return true;
  }

  private onProblem(p: FollowProblem | null): void {
    if (p) {
      if (this.standing?.text === p.text) return;
      this.standing = p;
      this.emit({ type: 'problem', problem: p });
    } else if (this.standing) {
      this.standing = null;
      this.emit({ type: 'problem', problem: null });
    }
  }

  private onConnection(s: ConnectionState): void {
    if (this.closed) return;
    const ready = s.state === 'ready';
    const was = this.life.connected;
    const now = this.clock();
    // The connection's own story from here: a silence it ends is told as the loss (or is over).
    const silentSince = this.hostSilence.since;
    this.hostSilence.forget();
    if (ready) this.dispatch({ type: 'answering', answering: true });
    this.dispatch({ type: 'connection', ready }, ready ? undefined : (silentSince ?? this.lastAlive(now)));
    if (was && !ready && this.lostAt === null) {
      this.lostAt = now;
      const reason = s.state === 'reconnecting' ? s.lastError : s.state === 'failed' ? s.reason : s.state;
      this.emit({ type: 'connection', state: 'lost', since: now, ...(reason ? { reason } : {}) });
      // The rules look at once: a stall that grew while keepalive had not yet noticed the dead
      // link (its time is unobserved now) is cleared, not left standing until the next tick.
      this.tick();
    } else if (ready && this.lostAt !== null) {
      const since = this.lostAt;
      this.lostAt = null;
      this.emit({ type: 'connection', state: 'restored', since });
      // Nothing may come: measure the log once it is quiet (its mtime says whether it was silent).
      this.silenceWatch.record();
    }
    if ((s.state === 'failed' || s.state === 'closed') && this.o.whenEnded === 'stop') {
      this.finish({ kind: 'disconnected', reason: s.state === 'failed' ? s.reason : 'the connection was closed' });
    }
  }

  /** A dead link is declared lost when keepalive gives up, up to a minute after the target last
   *  answered: the log was unreadable since then, not trainer silence. The transport's last answer
   *  (the state poll's, every few seconds; bytes) when it tells one, on our clock, else now. */
  private lastAlive(now: number): number {
    return lastAnswerAt(this.o.transport, now) ?? now;
  }

  /** A running run whose log has been quiet for QUIET_LOG_MS is polled QUIET_STATE_FACTOR times
   *  less often (each poll is a shell on the target, the cockpit's main idle cost) until its log
   *  moves again: its end is told a few seconds later, its silence is measured on the log as ever. */
  private pollStateAfterFirstBytes(): void {
    const timer = setTimeout(() => this.startPoll?.(), FIRST_STATE_WAIT_MS);
    timer.unref();
    this.startPoll = () => {
      clearTimeout(timer);
      this.startPoll = null;
      if (!this.closed) this.pollState(this.o.statePollMs);
    };
  }

  /** onFresh as `later` keeps it, and the first bytes start a held-back state poll at once. */
  private firstThen(fn: () => void): () => void {
    const kept = this.later(fn);
    return () => {
      this.startPoll?.();
      kept();
    };
  }

  private pollState(intervalMs: number | undefined, whenQuiet = QUIET_STATE_FACTOR): void {
    this.startPoll = null; // a poll started otherwise (a reconnect) is the one
    this.watcher?.stop();
    const base = intervalMs ?? STATE_POLL_MS;
    this.pollEvery = () => (Date.now() - this.freshAt >= QUIET_LOG_MS ? base * whenQuiet : base);
    this.watcher = watchRunState(this.o.transport, this.o.target, this.o.runId, {
      intervalMs: this.pollEvery,
      onChange: (s) => this.onRunState(s),
      onError: (m) => {
        this.emit({ type: 'note', level: 'warning', text: m });
        this.stateKnown();
      },
    });
  }

  private onRunState(s: RunSummary): void {
    if (this.closed) return;
    this.current = s;
    this.dispatch({ type: 'run-state', state: s.state });
    this.nodeFailures?.update(s.record, isActive(s.state));
    if (s.record.backend === 'slurm' && !this.jobEnd) {
      this.jobEnd = new SlurmEndWatch({
        conn: { target: this.o.target, transport: this.o.transport },
        runId: this.o.runId,
        findRun: () => (this.current ? { run: this.current } : null),
        onEnd: (end) => {
          this.alerts.setSlurmEndTime(end);
          this.tick();
        },
        ...(this.o.jobEndPollMs !== undefined ? { intervalMs: this.o.jobEndPollMs } : {}),
      }).start();
    }
    // An ended run has no hang to report: no step is coming; nor a node idle among working ones.
    this.alerts.setEnded(isTerminal(s.state));
    if (s.state !== 'running' && this.idleAlert) this.gpuRound([]);
    this.stateKnown();
    if (isTerminal(s.state)) {
      // Told once its log's tail was read: the errors that led to the end come before it.
      if (this.life.reading === 'ended' && s.state !== this.told) this.tellState(s);
      else if (this.life.reading !== 'ended') void this.settle();
      return;
    }
    this.tellState(s);
    if (this.life.reading === 'ended' || this.life.reading === 'settling') this.wake();
  }

  /** The state poll's first answer: the clock-driven rules may look (an ended run: no hang). */
  private stateKnown(): void {
    if (this.stateAnswered) return;
    this.stateAnswered = true;
    this.tick();
  }

  private tellState(s: RunSummary): void {
    const previous = this.told;
    this.told = s.state;
    this.emit({ type: 'state', summary: s, previous });
  }

  /** The run ended: read what is left of its log, close the records still open, then tell the
   *  state, and stop (or pause) following. */
  private async settle(): Promise<void> {
    // While deliveries are held, following has not started: it settles once they are told.
    if (this.settling || this.closed || !this.follower || this.held) return;
    this.settling = true;
    this.dispatch({ type: 'settle' });
    try {
      const { readEnd, size } = await drainLog({
        transport: this.o.transport,
        logPath: this.o.logPath,
        offset: () => this.readOffset,
        problem: () => this.standing,
        timeoutMs: this.o.drainTimeoutMs ?? 15_000,
        stop: () => this.closed || this.life.reading !== 'settling',
      });
      if (this.closed || this.life.reading !== 'settling') return;
      const f = this.follower;
      // The run's exit status settles the trainer's end record, written on every exit.
      const exit = endedHow(this.current);
      if (this.o.whenEnded === 'stop') {
        // The reader's end: its last record (a line without its newline too) goes out.
        await f?.finish(1, exit);
        this.follower = null;
      } else if (f) {
        for (const e of f.reader.flushIdle(exit)) this.ingest(e, false);
        this.paused = { offset: f.offset, reader: f.reader };
        f.close();
        this.follower = null;
      }
      const s = this.current;
      if (s && s.state !== this.told) this.tellState(s);
      const lastLines =
        s?.state === 'failed' && size !== null ? await failureLines(this.o.transport, this.o.logPath, size) : [];
      if (this.closed) return;
      this.lastReadEnd = readEnd;
      const unreadBytes = this.standing && size !== null ? Math.max(0, size - this.readOffset) : null;
      this.emit({ type: 'settled', readEnd, lastLines, unreadBytes, problem: this.standing });
      this.dispatch({ type: 'settled' });
      if (this.o.whenEnded === 'stop') {
        const st = this.o.transport.state;
        if (readEnd !== 'read' && readEnd !== 'missing' && st.state === 'failed')
          this.finish({ kind: 'disconnected', reason: st.reason });
        else this.finish({ kind: 'ended', state: s?.state ?? 'failed', detail: s?.detail ?? '' });
      } else this.pollState(this.o.endedStatePollMs ?? 60_000, 1);
    } finally {
      this.settling = false;
    }
  }

  /** The ended run runs again (a resume, a Slurm requeue): follow its log from where it stopped. */
  private wake(): void {
    if (this.closed) return;
    this.dispatch({ type: 'resume' });
    this.lastReadEnd = null;
    if (!this.follower) {
      const p = this.paused;
      this.paused = null;
      this.follow(p?.offset ?? this.readOffset, p?.reader);
    }
    this.pollState(this.o.statePollMs);
  }

  private finish(outcome: WatchOutcome): void {
    if (this.over) return;
    this.over = true;
    this.emit({ type: 'end', outcome });
    this.close();
  }
}

/** A finished run completed; any other ended state did not; a state not known to be an end: unknown. */
function endedHow(s: RunSummary | null): { completed: boolean } | undefined {
  if (!s || !isTerminal(s.state)) return undefined;
  return { completed: s.state === 'finished' };
}
