// What of a watch's outputs reaches the person, and when. PURE: the caller passes each output, the
// time, and whether the watch is reading the log's history; `tick` is called on a timer.
// - An alert is sent when it fires and when it clears (same alertId). Identical errors (same title)
//   standing together are one alert, counted. An alert that fires again within `repeatWindowMs` of
//   clearing is counted, not sent; if it still stands once that window is over, it is sent then.
// - Alerts that fire and clear while the watch reads the log's history are the past: only what
//   still stands once the history is read is sent.
// - The run's end once its log was read (`settled`), if the run was seen running (or `announceEnd`:
//   a launch that fails at once); an alert standing when the run ends is sent as ended with it.
// - `blind` when the run could not be read (connection lost, log unreadable) for `blindAfterMs`, or
//   the watch gave up; `sight` when it reads again.
import type { Alert } from '../metrics/index.js';
import type { WatchOutput } from '../watch/watch-output.js';
import { isTerminal } from '../runs/run-state.js';
import type { RunState } from '../runs/run-record.js';
import type { NotifyEvent } from './notify-event.js';

export interface NotifyPolicyOptions {
  runId: string;
  target: string;
  /** Send the run's end even if it was never seen running (a launch followed from its start). */
  announceEnd?: boolean;
  blindAfterMs?: number;
  repeatWindowMs?: number;
}

export const BLIND_AFTER_MS = 5 * 60_000;
export const REPEAT_WINDOW_MS = 10 * 60_000;

interface KeyState {
  /** The alerts of this key standing now (identical errors: several ids). */
  standing: Map<string, Alert>;
  /** The person was told this episode fired (and not yet that it cleared). */
  announced: boolean;
  /** Fires since the key was last announced, that one included. */
  fires: number;
  /** When it last stopped standing (null: it stands, or never cleared). */
  clearedAt: number | null;
  /** A refire within the window, not sent: when the window it was counted in ends. */
  heldUntil: number | null;
}

/** Alerts told apart by what the person reads: an error's id is its place in a ring, its title is what it is. */
export function notifyKey(a: Alert): string {
  return a.id.startsWith('error:') ? `error|${a.title}` : a.id;
}

export class NotifyPolicy {
  private readonly keys = new Map<string, KeyState>();
  /** Alerts standing while the history was read, by id: sent once it is read. */
  private readonly history = new Map<string, Alert>();
  private lastState: RunState | null = null;
  private seenLive = false;
  private endSent = false;
  private connectionLostAt: number | null = null;
  private problemAt: number | null = null;
  private blindSent = false;
  private blindReason = '';
  private readonly blindAfterMs: number;
  private readonly repeatWindowMs: number;

  constructor(private readonly o: NotifyPolicyOptions) {
    this.blindAfterMs = o.blindAfterMs ?? BLIND_AFTER_MS;
    this.repeatWindowMs = o.repeatWindowMs ?? REPEAT_WINDOW_MS;
  }

  /** Whether an error alert stands now (the terminal's progress shows red). */
  get errorStanding(): boolean {
    for (const s of this.keys.values()) for (const a of s.standing.values()) if (a.severity === 'error') return true;
    return false;
  }

  /** Alerts are held while the history is read (`historyRead` sends what still stands). */
  get holdsHistory(): boolean {
    return this.history.size > 0;
  }

  /** The history is read: the alerts still standing from it are sent now. */
  historyRead(now: number, out: NotifyEvent[] = []): NotifyEvent[] {
    const standing = [...this.history.values()];
    this.history.clear();
    for (const a of standing) this.fire(a, now, out);
    return out;
  }

  take(w: WatchOutput, now: number, readingHistory: boolean): NotifyEvent[] {
    const out: NotifyEvent[] = [];
    if (!readingHistory && this.history.size > 0) this.historyRead(now, out);
    switch (w.type) {
      case 'alert':
        if (w.alert.severity === 'info') break;
        if (readingHistory) this.history.set(w.alert.id, w.alert);
        else this.fire(w.alert, now, out);
        break;
      case 'alert-cleared':
        if (!this.history.delete(w.alert.id)) this.clear(w.alert, w.endedWithRun, now, out);
        break;
      case 'state':
        this.lastState = w.summary.state;
        if (!isTerminal(w.summary.state)) {
          this.seenLive = true;
          this.endSent = false;
        }
        break;
      case 'settled':
        if (this.lastState && isTerminal(this.lastState) && (this.seenLive || this.o.announceEnd) && !this.endSent) {
          this.endSent = true;
          out.push(
            this.event(now, 'run-end', `run ${this.lastState}`, '', { state: this.lastState, lastLines: w.lastLines }),
          );
        }
        break;
      case 'connection':
        if (w.state === 'lost') {
          this.connectionLostAt ??= w.since;
          this.blindReason = w.reason ? `connection lost: ${w.reason}` : 'connection lost';
        } else this.connectionLostAt = null;
        this.sightAgain(now, out);
        break;
      case 'problem':
        if (w.problem) {
          this.problemAt ??= now;
          if (this.connectionLostAt === null) this.blindReason = `its log cannot be read: ${w.problem.text}`;
        } else this.problemAt = null;
        this.sightAgain(now, out);
        break;
      case 'end':
        if (w.outcome.kind === 'disconnected' && !this.blindSent) {
          this.blindSent = true;
          out.push(this.event(now, 'blind', 'no longer watched', `the watch gave up: ${w.outcome.reason}`));
        }
        break;
      default:
        break;
    }
    return out;
  }

  /** Time passes: blind after long enough unable to read; a held refire that outlived its window. */
  tick(now: number, readingHistory = false): NotifyEvent[] {
    const out: NotifyEvent[] = [];
    if (!readingHistory && this.history.size > 0) this.historyRead(now, out);
    const since = this.unreadableSince();
    if (since !== null && !this.blindSent && now - since >= this.blindAfterMs) {
      this.blindSent = true;
      const minutes = Math.round((now - since) / 60_000);
      out.push(
        this.event(now, 'blind', 'cannot see the run', `unable to read it for ${minutes} min (${this.blindReason})`),
      );
    }
    for (const [, s] of this.keys) {
      if (s.heldUntil === null || now < s.heldUntil || s.standing.size === 0) continue;
      s.heldUntil = null;
      s.announced = true;
      out.push(this.alertEvent('alert', [...s.standing.values()].at(-1)!, s.fires, now));
    }
    return out;
  }

  private unreadableSince(): number | null {
    const t = [this.connectionLostAt, this.problemAt].filter((x): x is number => x !== null);
    return t.length ? Math.min(...t) : null;
  }

  private sightAgain(now: number, out: NotifyEvent[]): void {
    if (this.unreadableSince() !== null || !this.blindSent) return;
    this.blindSent = false;
    out.push(this.event(now, 'sight', 'watched again', 'the run can be read again'));
  }

  private fire(a: Alert, now: number, out: NotifyEvent[]): void {
    const k = notifyKey(a);
    let s = this.keys.get(k);
    if (!s) {
      s = { standing: new Map(), announced: false, fires: 0, clearedAt: null, heldUntil: null };
      this.keys.set(k, s);
    }
    const alreadyStanding = s.standing.size > 0;
    s.standing.set(a.id, a);
    if (alreadyStanding) {
      s.fires++;
      return;
    }
    if (s.clearedAt !== null && now - s.clearedAt < this.repeatWindowMs) {
      s.fires++;
      s.heldUntil = s.clearedAt + this.repeatWindowMs;
      return;
    }
    s.fires = 1;
    s.announced = true;
    s.heldUntil = null;
    out.push(this.alertEvent('alert', a, s.fires, now));
  }

  private clear(a: Alert, endedWithRun: boolean, now: number, out: NotifyEvent[]): void {
    const s = this.keys.get(notifyKey(a));
    if (!s || !s.standing.delete(a.id) || s.standing.size > 0) return;
    s.clearedAt = now;
    s.heldUntil = null;
    // A held refire's clear is not sent (the person was told it cleared), unless the run ended under it.
    if (!s.announced && !endedWithRun) return;
    s.announced = false;
    out.push(this.alertEvent('alert-cleared', a, s.fires, now, endedWithRun));
  }

  private alertEvent(
    kind: 'alert' | 'alert-cleared',
    a: Alert,
    fires: number,
    now: number,
    endedWithRun = false,
  ): NotifyEvent {
    // Never "cleared" when the run ended under it: that would claim the trainer got past it.
    const title = kind === 'alert' ? a.title : `${endedWithRun ? 'ended with the run' : 'cleared'}: ${a.title}`;
    return {
      ...this.event(now, kind, title, kind === 'alert' ? a.detail : ''),
      alertId: a.id,
      severity: a.severity,
      ...(kind === 'alert' && a.advice ? { advice: a.advice } : {}),
      ...(a.step !== undefined ? { step: a.step } : {}),
      ...(a.time !== undefined ? { alertTime: a.time } : {}),
      ...(fires > 1 ? { count: fires } : {}),
      ...(endedWithRun ? { endedWithRun: true } : {}),
    };
  }

  private event(
    now: number,
    event: NotifyEvent['event'],
    title: string,
    message: string,
    extra: Partial<NotifyEvent> = {},
  ): NotifyEvent {
    return {
      event,
      runId: this.o.runId,
      target: this.o.target,
      time: new Date(now).toISOString(),
      title,
      message,
      ...extra,
    };
  }
}
