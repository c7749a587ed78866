// The watch's core: the output stream, the lifecycle (watch-lifecycle.ts's reducer), the record
// pipeline (the rules look before a record, the store takes it, the rules look after it, what
// fired is told), the rules' clock (a tick), and the run's state as known. The log is read by
// watch-reading.ts; everything else a watch does is a part (watch-part.ts) from the factory's list
// (watch-parts.ts), called through its hooks in that order.
import type { FollowProblem } from '../remote/transport.js';
import { RunAlerts, isHangAlert, type HealthEvent } from '../health/index.js';
import { MetricsStore, RULE_SERIES_KEYS, type Alert } from '../metrics/index.js';
import type { RunState } from '../runs/run-record.js';
import type { RunSummary } from '../runs/list.js';
import { isTerminal } from '../runs/run-state.js';
import { lastAnswerAt } from './host-silence.js';
import {
  initialLifecycle,
  logClockRuns,
  reduceWatch,
  watchPhase,
  type WatchAction,
  type WatchLifecycle,
} from './watch-lifecycle.js';
import { AlertChanges, type WatchOutcome, type WatchOutput } from './watch-output.js';
import type { RunWatchOptions } from './watch-options.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import type { ExpectedWandb } from '../runs/wandb-expected.js';
import type { WatchPart } from './watch-part.js';
import type { TrainerLogReader, WandbEvent } from '../trainer-log/index.js';
import { restoreWatchState, type WatchSnapshot, type WatchState } from './watch-snapshot.js';

export class WatchCore {
  readonly store: MetricsStore;
  readonly alerts: RunAlerts;
  readonly clock: () => number;
  /** The parts, in the factory's order (set once, before the watch starts). */
  parts: readonly WatchPart[] = [];
  /** Bytes of the log read so far (the reading moves it). */
  readOffset = 0;
  /** Whether the log's history (what it held when the watch opened) is still being read. */
  replaying: () => boolean = () => false;
  /** Told a state change after the parts and the rules (the reading: settle or follow again). */
  onState: (s: RunSummary) => void = () => undefined;
  private readonly changes = new AlertChanges();
  private readonly listeners = new Set<(o: WatchOutput) => void>();
  private lifecycle: WatchLifecycle;
  private current: RunSummary | null = null;
  private told: RunState | null = null;
  private standing: FollowProblem | null = null;
  private isClosed = false;
  private over = false;
  /** The state poll answered (a state, or an error): until then the clock-driven rules wait, so
   *  what a replay of an ended run says never depends on which answer came first. */
  private stateAnswered = false;
  /** Where the clock-driven rules last looked (our clock): they never look back. */
  private evaluatedAt = -Infinity;
  /** A hang fired and a part is asking something before it is told. */
  private asking = false;
  private answered: () => void = () => undefined;
  /** Resolves at the state poll's first answer (a state, or an error), or when the watch closes. */
  readonly stateAnswer = new Promise<void>((resolve) => (this.answered = resolve));
  /** The wandb run the config makes (its page, before wandb's banner says it), from the facts. */
  private expectedWandb: ExpectedWandb | null = null;
  /** The config facts once known (a snapshot is restored only if made with the same). */
  private facts: RunWatchFacts = {};
  /** Resolves once the config facts are set (see RunWatchOptions.facts). */
  readonly factsKnown: Promise<void> = Promise.resolve();

  constructor(
    readonly o: RunWatchOptions,
    /** Closes what the core does not own (the reading, the parts), once. */
    private readonly closeRest: () => void,
  ) {
    this.clock = o.clock ?? Date.now;
    this.store = new MetricsStore({
      ...(o.storeCapacity !== undefined ? { capacity: o.storeCapacity } : {}),
      ...(o.storeSeries === 'rules' ? { seriesKeys: RULE_SERIES_KEYS } : {}),
    });
    this.alerts = new RunAlerts(this.store);
    const f = o.facts ?? {};
    const known = (g: RunWatchFacts) => {
      this.facts = g;
      this.alerts.setConfigFacts(g);
      this.expectedWandb = g.wandb ?? null;
    };
    if (f instanceof Promise) this.factsKnown = f.then(known, () => undefined);
    else known(f);
    // The runs list said the run ended: that is the state's first answer. The rules know it before
    // the first record (a hang in its log, the silence since its end, is judged as an ended run's),
    // whenever the state poll answers (`alerts RUN`'s verdict never depends on that order).
    if (o.endedAtOpen) {
      this.alerts.setEnded(true);
      this.stateAnswered = true;
    }
    this.lifecycle = initialLifecycle(o.transport.state.state === 'ready');
    if (!this.lifecycle.connected) this.alerts.unobserved(this.clock());
  }

  get life(): WatchLifecycle {
    return this.lifecycle;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The run's state as last polled (null: not yet). */
  get summary(): RunSummary | null {
    return this.current;
  }

  get problem(): FollowProblem | null {
    return this.standing;
  }

  on(listener: (o: WatchOutput) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(out: WatchOutput): void {
    for (const l of [...this.listeners]) l(out);
    for (const p of this.parts) p.onOutput?.(out);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.answered();
    this.closeRest();
  }

  finish(outcome: WatchOutcome): void {
    if (this.over) return;
    this.over = true;
    this.emit({ type: 'end', outcome });
    this.close();
  }

  /** The parts' own alerts standing now (a failed node, a node idle while the others work). */
  partAlerts(): Alert[] {
    return this.parts.flatMap((p) => p.standing?.() ?? []);
  }

  /** `fired`: what fired since the last look; the alerts standing now are compared with before. */
  tell(fired: readonly Alert[]): void {
    const standing = [...this.alerts.active, ...this.partAlerts()];
    for (const out of this.changes.take(fired, standing, (a) => this.alerts.endedWithRun(a))) this.emit(out);
  }

  /** `unobservedFrom`: when the log stopped being readable, if before now (a lost connection). */
  dispatch(a: WatchAction, unobservedFrom?: number): void {
    const before = this.lifecycle;
    this.lifecycle = reduceWatch(before, a);
    if (this.lifecycle === before) return;
    const runs = logClockRuns(this.lifecycle);
    if (runs !== logClockRuns(before)) {
      if (runs) this.alerts.observed(this.clock());
      else this.alerts.unobserved(unobservedFrom ?? this.clock());
    }
    const phase = watchPhase(this.lifecycle);
    if (phase !== watchPhase(before)) this.emit({ type: 'phase', phase });
  }

  /** The wandb run page the config makes, as a `wandb` record marked `from: 'config'`, before any
   *  record is taken (the banner's, later in the log, replaces it in the store, the header and the
   *  notifications). Only a page known whole: an unset entity, an offline run, or a suffix not
   *  written yet leave it to the banner. */
  announceWandb(): void {
    const w = this.expectedWandb;
    if (this.isClosed || w === null || w.url === null || this.store.wandb !== null) return;
    const e: WandbEvent = { type: 'wandb', url: w.url, time: null, from: 'config' };
    this.store.ingest(e);
    this.emit({ type: 'record', record: e, backfilled: false });
  }

  /** The state a snapshot holds (watch-snapshot.ts), `reader` the one reading on from here and
   *  `view` a renderer's own. */
  snapshotState(reader: TrainerLogReader, view: unknown): WatchState {
    return { parser: reader.parserState, store: this.store, alerts: this.alerts, changes: this.changes, view };
  }

  /** A snapshot's state taken before the history after it is read (its records arrive at
   *  `arrivedWall`, as a backfill's do); a GraphError when it is not this watch's. The alerts
   *  standing in it are told as a history's are (the notifications hold them until it is read). */
  restore(s: WatchSnapshot, reader: TrainerLogReader, arrivedWall: number): void {
    restoreWatchState(
      { store: this.store, alerts: this.alerts, changes: this.changes, reader },
      s,
      this.facts,
      arrivedWall,
    );
    for (const alert of this.alerts.active) this.emit({ type: 'alert', alert });
  }

  /** One record: the rules look before it, the store takes it, the rules look after it. */
  ingest(e: HealthEvent, backfilled: boolean, arrivedWall = this.clock()): void {
    // A new attempt's first record: the gap before it is the downtime between attempts, not a hang.
    const fired = this.lifecycle.restarting && e.type !== 'save' ? [] : this.alerts.arriving(e);
    if (e.type !== 'save') this.store.ingest(e);
    fired.push(...this.alerts.read(e, arrivedWall));
    if (e.type !== 'save') this.dispatch({ type: 'record' });
    this.emit({ type: 'record', record: e, backfilled });
    this.tell(fired);
    for (const p of this.parts) p.onRecord?.(e, backfilled);
  }

  /** The time-driven rules at our clock now; what fired or cleared is told. */
  tick(): void {
    // An ended run's history is judged at its records; the clock looks once it was read (a look
    // between two of its records would end a hang that the next one still shows).
    if (this.isClosed || !this.stateAnswered || (this.runEnded() && this.replaying())) return;
    const fired: Alert[] = [];
    this.alerts.evaluate(this.knownUntil(), fired);
    const asks = this.asking || !fired.some(isHangAlert) ? [] : this.parts.map((p) => p.beforeHang?.() ?? null);
    const asked = asks.filter((a): a is Promise<unknown> => a !== null);
    if (asked.length === 0) return this.tell(fired);
    // A Slurm run that hangs may have lost a node: Slurm is asked first (a failure found stops the
    // rules' clock, and the hang it explains is never told), then what still stands is told.
    this.asking = true;
    void Promise.all(asked).finally(() => {
      this.asking = false;
      if (this.isClosed) return;
      const now: Alert[] = [];
      this.alerts.evaluate(this.knownUntil(), now);
      const active = new Set(this.alerts.active.map((a) => a.id));
      this.tell([...fired.filter((a) => active.has(a.id) && !now.some((b) => b.id === a.id)), ...now]);
    });
  }

  /** The run's state says it ended (or the runs list did, before the first poll). */
  private runEnded(): boolean {
    return this.current ? isTerminal(this.current.state) : !!this.o.endedAtOpen;
  }

  /** Our clock as far as the target is known to have answered: the rules judge no time after its
   *  last byte or answer (a silent path is declared only seconds later), and never look back. */
  private knownUntil(): number {
    const now = this.clock();
    this.evaluatedAt = Math.max(this.evaluatedAt, Math.min(now, lastAnswerAt(this.o.transport, now) ?? now));
    return this.evaluatedAt;
  }

  /** The log cannot be followed although the connection works (null: it is read again). */
  setProblem(p: FollowProblem | null): void {
    if (p) {
      if (this.standing?.text === p.text) return;
      this.standing = p;
      this.emit({ type: 'problem', problem: p });
    } else if (this.standing) {
      this.standing = null;
      this.emit({ type: 'problem', problem: null });
    }
  }

  /** The state poll's answer: the lifecycle, the rules (an ended run has no hang to report), the
   *  parts, then the reading (a terminal state is told once the log's tail was read). */
  runState(s: RunSummary): void {
    if (this.isClosed) return;
    this.current = s;
    this.dispatch({ type: 'run-state', state: s.state });
    this.alerts.setEnded(isTerminal(s.state));
    for (const p of this.parts) p.onRunState?.(s);
    this.stateKnown();
    this.onState(s);
  }

  /** The state poll's first answer: the clock-driven rules may look (an ended run: no hang). */
  stateKnown(): void {
    this.answered();
    if (this.stateAnswered) return;
    this.stateAnswered = true;
    this.tick();
  }

  /** The run's state told to the renderers (a terminal one only once its log's tail was read). */
  tellState(s: RunSummary): void {
    const previous = this.told;
    this.told = s.state;
    this.emit({ type: 'state', summary: s, previous });
  }

  /** Whether `s` was the last state told. */
  toldState(s: RunState): boolean {
    return this.told === s;
  }
}
