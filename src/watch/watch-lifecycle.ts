// The lifecycle of watching one run, as named states (pure: RunWatch drives it, tests table it).
//
//   attaching ──▶ backfilling ──▶ following ◀──▶ resumed
//        └──────────────────────────▲  │ ▲
//                                      ▼ │ (the connection, the queue)
//                          unobserved / queued
//   following ──(the run ended)──▶ settling ──▶ ended ──(a resume)──▶ resumed ──(bytes)──▶ following
//
// `unobserved` (the connection is down) and `queued` (a Slurm job pending or requeued: nothing
// writes the log) are what the reading phase looks like when the log cannot grow into view: the
// trainer's silence is not measured then (`logClockRuns`), so no stall alert comes from them.
// src/runs' Slurm node-failure detection can put a run in `queued` through its state (`pending`).
// A target that sends nothing at all for too long (`answering: false`: a dead path, a suspended
// VPN, before keepalive gives up) is `unobserved` too: nothing is known about the trainer then.
// A new attempt (after an end or the queue) is `restarting` until its first record: the time
// between attempts is downtime, neither the trainer's silence nor a step.
import type { RunState } from '../runs/run-record.js';
import { isTerminal } from '../runs/run-state.js';

export type ReadingPhase = 'attaching' | 'backfilling' | 'following' | 'settling' | 'ended' | 'resumed';
export type WatchPhase = ReadingPhase | 'unobserved' | 'queued';

export interface WatchLifecycle {
  reading: ReadingPhase;
  /** The transport is ready (commands and the follower can run). */
  connected: boolean;
  /** The run's state as last polled (null: not yet known). */
  runState: RunState | null;
  /** The target sent a byte or an answer recently enough (host-silence.ts): false, nothing is known. */
  answering: boolean;
  /** A new attempt runs, or the log was truncated or replaced, and no record has been read since. */
  restarting: boolean;
}

export type WatchAction =
  | { type: 'backfill' }
  | { type: 'follow' }
  | { type: 'bytes' }
  | { type: 'connection'; ready: boolean }
  | { type: 'run-state'; state: RunState }
  | { type: 'settle' }
  | { type: 'settled' }
  | { type: 'resume' }
  | { type: 'answering'; answering: boolean }
  /** The log was truncated or replaced: the trainer's next words may go elsewhere (a rotated
   *  file): nothing is judged until the new file holds a record. */
  | { type: 'log-reset' }
  /** A trainer record was read (the new attempt's first one ends `restarting`). */
  | { type: 'record' };

export const initialLifecycle = (connected: boolean): WatchLifecycle => ({
  reading: 'attaching',
  connected,
  runState: null,
  answering: true,
  restarting: false,
});

export function reduceWatch(l: WatchLifecycle, a: WatchAction): WatchLifecycle {
  switch (a.type) {
    case 'backfill':
      return l.reading === 'attaching' ? { ...l, reading: 'backfilling' } : l;
    case 'follow':
      return l.reading === 'attaching' || l.reading === 'backfilling' ? { ...l, reading: 'following' } : l;
    case 'bytes':
      return l.reading === 'resumed' ? { ...l, reading: 'following' } : l;
    case 'connection':
      return l.connected === a.ready ? l : { ...l, connected: a.ready };
    case 'run-state': {
      if (l.runState === a.state) return l;
      // Out of the queue or an end into a running attempt: a new one starts, its records are to come.
      const was = l.runState;
      const restart = a.state === 'running' && was !== null && (was === 'pending' || isTerminal(was));
      return { ...l, runState: a.state, restarting: l.restarting || restart };
    }
    case 'settle':
      return l.reading === 'ended' ? l : { ...l, reading: 'settling' };
    case 'settled':
      return l.reading === 'settling' ? { ...l, reading: 'ended' } : l;
    case 'resume':
      return l.reading === 'ended' || l.reading === 'settling' ? { ...l, reading: 'resumed', restarting: true } : l;
    case 'answering':
      return l.answering === a.answering ? l : { ...l, answering: a.answering };
    case 'log-reset':
      return l.restarting ? l : { ...l, restarting: true };
    case 'record':
      return l.restarting ? { ...l, restarting: false } : l;
  }
}

/** The one name for where watching stands (what a header shows). */
export function watchPhase(l: WatchLifecycle): WatchPhase {
  if (l.reading === 'ended') return 'ended';
  if (!l.connected || !l.answering) return 'unobserved';
  if (l.runState === 'pending' && l.reading !== 'settling') return 'queued';
  return l.reading;
}

/** Whether time passing counts as the trainer's silence: only while its log is being read and
 *  could grow (connected and answering, the job not waiting in a queue, not ended, not between
 *  attempts). */
export function logClockRuns(l: WatchLifecycle): boolean {
  const waiting = l.runState !== null && (l.runState === 'pending' || isTerminal(l.runState));
  return l.connected && l.answering && !waiting && !l.restarting;
}
