// Transient status-line messages (the result of an action: "stopped …", "launched …", "launch
// failed: …", a notice) go after STATUS_TTL_MS; a failure only once a key was pressed after it. The session keeps its last message forever (it
// is plain state); the cockpit remembers when it first showed each one and stops showing it once
// it is older. Pure bookkeeping: the caller passes its clock's time, and the App's one clock hook
// (useNow) re-renders when a message's expiry changes what is on screen: no timer per message.
import type { SessionState } from '../session/types.js';

export const STATUS_TTL_MS = 8000;

/** The transient messages the state holds now, as keys (text included: a new text is a new message). */
export function transientKeys(state: Pick<SessionState, 'notice' | 'launch'>): string[] {
  const keys: string[] = [];
  if (state.notice) keys.push(noticeKey(state.notice));
  const l = state.launch;
  if (l.phase === 'launched') keys.push(`launched:${l.runId}:${l.message}`);
  if (l.phase === 'failed') keys.push(`failed:${l.message}`);
  return keys;
}

export function noticeKey(notice: string): string {
  return `notice:${notice}`;
}

/** A failure ("launch failed", "stop failed: …", "run x not found") is not a passing remark: the user
 *  may be away when it happens, so it stays until a key press shows they were there, then goes
 *  like the others. */
const FAILURE = /\b(failed|not found|cannot|unreachable|error)\b/i;
export function isFailureKey(key: string): boolean {
  return key.startsWith('failed:') || (key.startsWith('notice:') && FAILURE.test(key));
}

/** When each transient message was first shown; forgets messages the state no longer holds
 *  (so the map never holds more than the few current ones). */
export class StatusExpiry {
  /** When each message's time started: when first shown, or for a failure when a key was pressed
   *  after it appeared (Infinity until then: it stays). */
  private readonly since = new Map<string, number>();

  constructor(readonly ttlMs = STATUS_TTL_MS) {}

  /** Record the messages present at `now`; returns the set of those still fresh. */
  note(keys: readonly string[], now: number): Set<string> {
    for (const k of this.since.keys()) if (!keys.includes(k)) this.since.delete(k);
    const fresh = new Set<string>();
    for (const k of keys) {
      if (!this.since.has(k)) this.since.set(k, isFailureKey(k) ? Infinity : now);
      if (now - this.since.get(k)! < this.ttlMs) fresh.add(k);
    }
    return fresh;
  }

  /** A key was pressed at `now`: the failures on show were seen, and their time starts. */
  acknowledge(now: number): void {
    for (const [k, at] of this.since) if (at === Infinity) this.since.set(k, now);
  }

  /** Which of `keys` are fresh at `now`, without recording anything (for the clock hook's key). */
  fresh(keys: readonly string[], now: number): string[] {
    return keys.filter((k) => {
      const at = this.since.get(k);
      return at === undefined || now - at < this.ttlMs;
    });
  }
}
