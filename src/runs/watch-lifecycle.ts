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
import type { RunState } from './run-record.js';

export type ReadingPhase = 'attaching' | 'backfilling' | 'following' | 'settling' | 'ended' | 'resumed';
export type WatchPhase = ReadingPhase | 'unobserved' | 'queued';

export interface WatchLifecycle {
  reading: ReadingPhase;
  /** The transport is ready (commands and the follower can run). */
  connected: boolean;
  /** The run's state as last polled (null: not yet known). */
  runState: RunState | null;
}

export type WatchAction =
  | { type: 'backfill' }
  | { type: 'follow' }
  | { type: 'bytes' }
  | { type: 'connection'; ready: boolean }
  | { type: 'run-state'; state: RunState }
  | { type: 'settle' }
  | { type: 'settled' }
  | { type: 'resume' };

export const initialLifecycle = (connected: boolean): WatchLifecycle => ({
  reading: 'attaching',
  connected,
  runState: null,
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
    case 'run-state':
      return l.runState === a.state ? l : { ...l, runState: a.state };
    case 'settle':
      return l.reading === 'ended' ? l : { ...l, reading: 'settling' };
    case 'settled':
      return l.reading === 'settling' ? { ...l, reading: 'ended' } : l;
    case 'resume':
      return l.reading === 'ended' || l.reading === 'settling' ? { ...l, reading: 'resumed' } : l;
  }
}

/** The one name for where watching stands (what a header shows). */
export function watchPhase(l: WatchLifecycle): WatchPhase {
  if (l.reading === 'ended') return 'ended';
  if (!l.connected) return 'unobserved';
  if (l.runState === 'pending' && l.reading !== 'settling') return 'queued';
  return l.reading;
}

/** Whether time passing counts as the trainer's silence: only while its log is being read and
 *  could grow (connected, the job not waiting in a queue). */
export function logClockRuns(l: WatchLifecycle): boolean {
  return l.connected && l.runState !== 'pending';
}
