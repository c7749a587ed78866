// What one RunWatch tells its renderers (the cockpit's session, `follow`'s lines), in the order it
// happened. Renderers only draw or print these: every decision (what fired, when the connection
// was lost, when the run ended) was taken once, in the watch.
import type { FollowProblem } from '../remote/transport.js';
import type { LogLine } from '../trainer-log/index.js';
import type { HealthEvent } from '../health/index.js';
import type { Alert } from '../metrics/index.js';
import type { RunState } from '../runs/run-record.js';
import type { RunSummary } from '../runs/list.js';
import type { WatchPhase } from './watch-lifecycle.js';
import type { RayBringUp } from './ray-bringup-log.js';

/** How far the log was read when the run ended. */
export type LogReadEnd = 'read' | 'unreadable' | 'incomplete' | 'missing';

export type WatchOutput =
  /** A record of the log (trainer events and checkpoint saves, in log order); `backfilled`: read
   *  through the target-side filter at attach, not followed. */
  | { type: 'record'; record: HealthEvent; backfilled: boolean }
  /** The log's own lines, cleaned, tables collapsed (the reader's), told after the records of the
   *  same bytes: for a log pane (`RunWatchOptions.lines`). */
  | { type: 'lines'; lines: LogLine[] }
  /** The batch script's Ray bring-up, as its log tells it (`starting Ray: 3/4 nodes joined, …`);
   *  null: it is over (the trainer's first record after it was read). */
  | { type: 'ray'; update: RayBringUp | null }
  /** The log was truncated or replaced: what follows starts at the new file's first byte. */
  | { type: 'reset'; reason: string }
  | { type: 'alert'; alert: Alert }
  /** `endedWithRun`: it stopped standing because the run ended (a hang the run died in), not
   *  because the trainer got past it: no renderer may call that "cleared". */
  | { type: 'alert-cleared'; alert: Alert; endedWithRun: boolean }
  /** The connection was lost (`since`: when, our clock) or came back (`since`: when it was lost);
   *  or, connected, the target sent nothing since `since` for `silentMs` (`silent`: nothing is known
   *  about the run meanwhile) and then answered again (`answering`). */
  | { type: 'connection'; state: 'lost' | 'restored'; since: number; reason?: string }
  | { type: 'connection'; state: 'silent' | 'answering'; since: number; silentMs: number }
  /** The run's state changed (a terminal one only once its log's tail was read: after its errors). */
  | { type: 'state'; summary: RunSummary; previous: RunState | null }
  /** The log cannot be followed although the connection works (null: it is read again). */
  | { type: 'problem'; problem: FollowProblem | null }
  | { type: 'phase'; phase: WatchPhase }
  /** How far the history of a long log has been read at attach (`readBytes` of `totalBytes`);
   *  nulls: reading it is over (done or given up). */
  | { type: 'history'; readBytes: number | null; totalBytes: number | null }
  /** A line about the watching itself (backfill figures, a state poll's warning). */
  | { type: 'note'; level: 'info' | 'warning'; text: string }
  /** The run ended and its log was read as far as it could be. `lastLines`: the log's last lines when
   *  it failed (why, when no trainer record says it); `unreadBytes`: what a standing problem left. */
  | {
      type: 'settled';
      readEnd: LogReadEnd;
      lastLines: string[];
      unreadBytes: number | null;
      problem: FollowProblem | null;
    }
  /** Watching is over (`whenEnded: 'stop'`): the run ended, or the connection is gone for good. */
  | { type: 'end'; outcome: WatchOutcome };

export type WatchOutcome =
  { kind: 'ended'; state: RunState; detail: string } | { kind: 'disconnected'; reason: string };

/** Fired and cleared alerts from the rules' successive answers: an alert is told when it fires
 *  (not standing before) and when it stops standing. A hang found at the record that ends it
 *  fires and clears with that one record (both are told, fired first). */
export class AlertChanges {
  private standing = new Map<string, Alert>();

  /** `fired`: what fired since the last call; `active`: what stands now; `endedWithRun`: whether an
   *  alert that no longer stands ended with the run (RunAlerts knows). */
  take(fired: readonly Alert[], active: readonly Alert[], endedWithRun: (a: Alert) => boolean): WatchOutput[] {
    const now = new Map(active.map((a) => [a.id, a]));
    const was = new Map(this.standing);
    for (const a of fired) was.set(a.id, a);
    this.standing = now;
    const cleared = [...was.values()].filter((a) => !now.has(a.id));
    const out: WatchOutput[] = [];
    const clear = (a: Alert): WatchOutput => ({ type: 'alert-cleared', alert: a, endedWithRun: endedWithRun(a) });
    for (const a of cleared) if (!fired.includes(a)) out.push(clear(a));
    for (const a of fired) out.push({ type: 'alert', alert: a });
    for (const a of cleared) if (fired.includes(a)) out.push(clear(a));
    return out;
  }
}
