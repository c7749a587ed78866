// The one shape every part of a watch has (watch-parts.ts lists them): a part reacts to what the
// core tells it (a record, a delivery's lines, the log reset, the run's state, a GPU round, bytes)
// and may hold alerts of its own, or hold a hang back while it asks something. The core
// (watch-core.ts) calls these hooks in the factory's order and knows no part by name.
import type { Alert } from '../metrics/index.js';
import type { HealthEvent } from '../health/index.js';
import type { LogLine } from '../trainer-log/index.js';
import type { RunSummary } from '../runs/list.js';
import type { NodeGpuRound } from './idle-nodes.js';
import type { WatchOutput } from './watch-output.js';

export interface WatchPart {
  /** The follower must hand on the log's lines (a delivery's `onLines`) for this part. */
  readonly wantsLines?: boolean;
  /** The watch started (after its follower was asked for, so that command goes first). */
  start?(): void;
  /** The follower read fresh bytes (told at once, even while deliveries are held at attach). */
  onFresh?(): void;
  /** A record was taken: the rules looked and what fired was told. */
  onRecord?(e: HealthEvent, backfilled: boolean): void;
  /** A delivery was consumed; its cleaned lines (null: it brought none), told after its records. */
  onLines?(lines: LogLine[] | null): void;
  /** The log was truncated or replaced (before the `reset` output is told). */
  onReset?(): void;
  /** The state poll answered (every change), after the rules were told whether the run ended. */
  onRunState?(s: RunSummary): void;
  /** The ended run runs again: its log is followed again (after the follower was asked for). */
  onResume?(): void;
  /** One GPU round of the run's nodes (whoever polls them). */
  onGpuRound?(round: readonly NodeGpuRound[]): void;
  /** Every output, after the watch's listeners had it. */
  onOutput?(out: WatchOutput): void;
  /** The part's own alerts standing now, told beside the rules'. */
  standing?(): readonly Alert[];
  /** A hang fired: the part may ask something first (a dead node explains it); the core tells what
   *  still stands once every answer came. null: nothing to ask. */
  beforeHang?(): Promise<unknown> | null;
  close?(): void;
}
