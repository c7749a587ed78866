// Watching one run: the one place that decides what happened to it. Backfill then follow (byte
// offsets, one parser), the connection (its loss is not the trainer's silence), silence measured on
// the log itself, the run's state polled, the Slurm job's end, follow problems, the run's end
// (its log's tail read BEFORE its end state is told). It feeds the metrics store explicitly and the
// alert rules read it; alerts are evaluated on the watch's own clock (a tick), never by whoever asks
// for a view. Renderers (src/ui/session's RunFeed, src/cli's follow lines) subscribe to its
// outputs (watch-output.ts) and only draw or print them: they agree by construction.
//
// This is the watch's face; its core is watch-core.ts (outputs, lifecycle, record pipeline, clock,
// the run's state), the log is read by watch-reading.ts, and the rest are parts (watch-parts.ts).
import type { ConnectionState, FollowProblem } from '../remote/transport.js';
import type { RunAlerts, HealthEvent } from '../health/index.js';
import type { MetricsStore, Alert } from '../metrics/index.js';
import type { RunSummary } from '../runs/list.js';
import type { RayBringUp } from './ray-bringup-log.js';
import type { NodeGpuRound } from './idle-nodes.js';
import { watchPhase, type WatchPhase } from './watch-lifecycle.js';
import type { LogReadEnd, WatchOutput } from './watch-output.js';
import type { RunWatchOptions } from './watch-options.js';
import { WatchCore } from './watch-core.js';
import { LogReading } from './watch-reading.js';
import { watchParts, type WatchParts } from './watch-parts.js';

export type { RunWatchFacts } from '../runs/run-facts.js';
export type { RunWatchOptions, WatchBackfill } from './watch-options.js';

export class RunWatch {
  readonly store: MetricsStore;
  readonly alerts: RunAlerts;
  private readonly core: WatchCore;
  private readonly reading: LogReading;
  private readonly parts: WatchParts;
  private ticker: NodeJS.Timeout | null = null;

  constructor(private readonly o: RunWatchOptions) {
    this.core = new WatchCore(o, () => this.closeRest());
    this.store = this.core.store;
    this.alerts = this.core.alerts;
    this.reading = new LogReading(this.core);
    this.parts = watchParts(this.core);
    this.core.parts = this.parts.all;
    this.core.onState = (s) => this.reading.onRunState(s);
    this.core.replaying = () => this.reading.readingBacklog;
  }

  /** Told every output, in order. Returns the unsubscribe. */
  on(listener: (o: WatchOutput) => void): () => void {
    return this.core.on(listener);
  }

  get phase(): WatchPhase {
    return watchPhase(this.core.life);
  }

  get connection(): ConnectionState {
    return this.o.transport.state;
  }

  /** Bytes of the log read so far. */
  get offset(): number {
    return this.core.readOffset;
  }

  get problem(): FollowProblem | null {
    return this.core.problem;
  }

  /** Reading stands before the end the log had when the watch opened: its history is being read
   *  (backfilled or followed), a burst. False once that end is reached, after a reset, and when
   *  the end could not be measured. */
  get readingBacklog(): boolean {
    return this.reading.readingBacklog;
  }

  /** Since when the target has sent nothing while connected (null: it answers). */
  get silentSince(): number | null {
    return this.parts.silentSince();
  }

  /** The run's state as last told (null: not polled yet). */
  get summary(): RunSummary | null {
    return this.core.summary;
  }

  /** How far the log was read when the run ended (null: it has not, or not yet settled). */
  get readEnd(): LogReadEnd | null {
    return this.reading.readEnd;
  }

  /** The Ray bring-up while the attempt is in it (the cockpit's header shows it); null: not. */
  get rayBringUp(): RayBringUp | null {
    return this.parts.rayBringUp();
  }

  /** The watch's own alerts beside the rules' (a failed node, a node idle while the others work, a
   *  silent sentinel). */
  get nodeAlerts(): Alert[] {
    return this.core.partAlerts();
  }

  start(): this {
    this.ticker = setInterval(() => this.core.tick(), this.o.tickMs ?? 5_000);
    this.ticker.unref();
    // The follower's command goes first (it takes the longest to start), then the parts'.
    void this.reading.attach();
    for (const p of this.parts.all) p.start?.();
    return this;
  }

  close(): void {
    this.core.close();
  }

  /** A record not read through the follower (a replay, a benchmark): handled as a followed one. */
  push(e: HealthEvent): void {
    if (!this.core.closed) this.core.ingest(e, false);
  }

  /** One GPU round of the run's nodes (whoever polls them: the cockpit's panel, `follow`): a node
   *  whose GPUs stay idle while the others work is named (idle-nodes.ts), and told as an alert. */
  gpuRound(round: readonly NodeGpuRound[]): void {
    if (this.core.closed) return;
    for (const p of this.parts.all) p.onGpuRound?.(round);
  }

  /** The time-driven rules at our clock now; what fired or cleared is told. */
  tick(): void {
    this.core.tick();
  }

  private closeRest(): void {
    this.reading.close();
    if (this.ticker) clearInterval(this.ticker);
    for (const p of this.parts.all) p.close?.();
  }
}
