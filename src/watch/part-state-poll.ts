// The watch's part that polls the run's state (watch-state.ts): every 2 s while the run runs, every
// 10 s once its log has been quiet for 30 s (each poll is a shell on the target: the cockpit's main
// idle cost), at once back to 2 s when bytes come; every 60 s once a paused watch's run ended.
// Without a backfill, the first poll waits for the follower's first bytes (or half a second).
import { watchRunState, type RunStateWatcher } from '../runs/watch-state.js';
import type { WatchCore } from './watch-core.js';
import type { WatchOutput } from './watch-output.js';
import type { WatchPart } from './watch-part.js';

/** The run's state is polled this often while it runs (watch-state.ts's default)… */
export const STATE_POLL_MS = 2000;
/** …and this many times less often once its log has been quiet this long. */
const QUIET_LOG_MS = 30_000;
const QUIET_STATE_FACTOR = 5;
/** A whole log's follower starts first: the state's first look waits for its first bytes, or this
 *  long. Started together, the two scripts' forks shared the target's cores and the first bytes
 *  came ~70 ms later (a 2-core head, test/bench/stream.bench.mjs). */
const FIRST_STATE_WAIT_MS = 500;

export class StatePoll implements WatchPart {
  private watcher: RunStateWatcher | null = null;
  /** Starts the state poll held back for the follower's first bytes (null: started). */
  private startPoll: (() => void) | null = null;
  /** When fresh bytes of the log were last read (real time: it paces polls; the start before any). */
  private freshAt = 0;
  private every: () => number = () => STATE_POLL_MS;
  private stopNudge: (() => void) | null = null;

  constructor(private readonly core: WatchCore) {}

  /** The poll's interval now (the target answers at least this often while it is up). */
  intervalMs(): number {
    return this.every();
  }

  start(): void {
    this.freshAt = Date.now();
    this.stopNudge = this.core.o.stateNudge?.(() => this.watcher?.now()) ?? null;
    if (this.core.o.backfill) this.poll(this.core.o.statePollMs);
    else this.pollAfterFirstBytes();
  }

  onFresh(): void {
    this.startPoll?.();
    this.freshAt = Date.now();
  }

  onOutput(out: WatchOutput): void {
    // A paused watch's run ended and its log was read: a resume is looked for every minute.
    if (out.type === 'settled' && this.core.o.whenEnded === 'pause')
      this.poll(this.core.o.endedStatePollMs ?? 60_000, 1);
  }

  onResume(): void {
    this.poll(this.core.o.statePollMs);
  }

  close(): void {
    this.stopNudge?.();
    this.stopNudge = null;
    this.startPoll = null;
    this.watcher?.stop();
  }

  private pollAfterFirstBytes(): void {
    const timer = setTimeout(() => this.startPoll?.(), FIRST_STATE_WAIT_MS);
    timer.unref();
    this.startPoll = () => {
      clearTimeout(timer);
      this.startPoll = null;
      if (!this.core.closed) this.poll(this.core.o.statePollMs);
    };
  }

  /** A running run whose log has been quiet for QUIET_LOG_MS is polled `whenQuiet` times less
   *  often until its log moves again: its end is told a few seconds later, its silence is
   *  measured on the log as ever. */
  private poll(intervalMs: number | undefined, whenQuiet = QUIET_STATE_FACTOR): void {
    this.startPoll = null; // a poll started otherwise (a reconnect) is the one
    this.watcher?.stop();
    const { transport, target, runId } = this.core.o;
    const base = intervalMs ?? STATE_POLL_MS;
    this.every = () => (Date.now() - this.freshAt >= QUIET_LOG_MS ? base * whenQuiet : base);
    this.watcher = watchRunState(transport, target, runId, {
      intervalMs: this.every,
      onChange: (s) => this.core.runState(s),
      onError: (m) => {
        this.core.emit({ type: 'note', level: 'warning', text: m });
        this.core.stateKnown();
      },
    });
  }
}
