// Watches one run's state by polling the target (process session / squeue) through the transport.
// Reports each change once; probe failures during a reconnect are not state changes.
import type { Transport } from '../remote/transport.js';
import type { Target } from './targets.js';
import type { RunState } from './run-record.js';
import { listRuns, type RunSummary } from './list.js';
import { canTransition } from './run-state.js';

export interface RunStateWatcher {
  readonly current: RunSummary | null;
  /** Looks again at once (asked during a look: once it is over, since what moved may have moved
   *  after the look read it): something said the state may have moved. */
  now(): void;
  stop(): void;
}

export interface WatchOptions {
  /** Between polls (default 2 s); a function is asked before each wait. */
  intervalMs?: number | (() => number);
  onChange(summary: RunSummary, previous: RunState | null): void;
  /** A run that disappeared (run dir removed) or a probe error, for display. */
  onError?(message: string): void;
}

export function watchRunState(
  transport: Transport,
  target: Target,
  runId: string,
  opts: WatchOptions,
): RunStateWatcher {
  const every = opts.intervalMs ?? 2000;
  const interval = (): number => (typeof every === 'function' ? every() : every);
  let current: RunSummary | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let looking = false;
  let again = false;
  const tick = async () => {
    if (stopped) return;
    timer = null;
    looking = true;
    if (transport.state.state === 'ready') {
      try {
        const [s] = await listRuns(transport, target, { only: runId, tailBytes: 0 });
        if (stopped) return;
        if (!s) opts.onError?.(`run ${runId} is not on ${target.name} any more`);
        else if (!current || s.state !== current.state) {
          const prev = current?.state ?? null;
          if (prev && !canTransition(prev, s.state)) opts.onError?.(`run ${runId} jumped from ${prev} to ${s.state}`);
          current = s;
          opts.onChange(s, prev);
        } else current = s;
      } catch (err) {
        // A dropped connection surfaces through transport.onState; keep polling.
        if (transport.state.state === 'ready') opts.onError?.(err instanceof Error ? err.message : String(err));
      }
    }
    looking = false;
    if (!stopped) timer = setTimeout(() => void tick(), again ? 0 : interval());
    again = false;
  };
  void tick();
  return {
    get current() {
      return current;
    },
    now() {
      if (looking) again = true;
      if (stopped || looking || !timer) return;
      clearTimeout(timer);
      void tick();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
