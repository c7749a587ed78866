// A run's sentinel (src/sentinel) as the run dir shows it: `sentinel.json`, rewritten by the
// sentinel at every heartbeat (one line, like run.json, so the list script reads it with a builtin),
// and whether its process is alive. Pure: the state is derived here from what the list script saw.
import { z } from 'zod';
import { diskSchema, diskText, type DiskState } from './sentinel-disk.js';

/** The sentinel's files in the run dir. */
export const SENTINEL_FILES = {
  /** Its heartbeat and status (0600 like its log; only redacted notification URLs in it). */
  beat: 'sentinel.json',
  /** Its own log (0600). */
  log: 'sentinel.log',
  /** flock'ed by the sentinel while it runs: two never watch one run. */
  lock: 'sentinel.lock',
} as const;

/** The heartbeat period when none is asked for. */
export const SENTINEL_PERIOD_MS = 15_000;

const failureSchema = z.object({
  at: z.string(),
  /** The channel, redacted. */
  channel: z.string(),
  /** The notification's event (alert, alert-cleared, run-end…). */
  event: z.string().default('?'),
  error: z.string(),
});

const beatSchema = z.object({
  v: z.literal(1),
  runId: z.string(),
  pid: z.number().int().positive(),
  startedAt: z.string(),
  /** The head's clock (the sentinel runs there), ISO 8601 UTC. */
  heartbeatAt: z.string(),
  periodMs: z.number().int().positive(),
  /** Its notification channels, their secret parts replaced by `***`. */
  notify: z.array(z.string()),
  state: z.enum(['running', 'stopped']),
  stoppedAt: z.string().optional(),
  /** Why it stopped (the run's end delivered, `sentinel stop`, a signal). */
  why: z.string().optional(),
  /** It stopped because the run ended, after sending (or trying to send) the run's end. */
  runEnded: z.boolean().optional(),
  /** Notifications sent so far, and the latest permanent delivery failures (at most a few). */
  sent: z.number().int().nonnegative().default(0),
  failures: z.array(failureSchema).default([]),
  /** Its writes in the run dir fail (a full disk, a quota): absent while they succeed. */
  disk: diskSchema.optional(),
});
export type SentinelBeat = z.infer<typeof beatSchema>;
export type SentinelFailure = z.infer<typeof failureSchema>;

export function parseSentinelBeat(text: string): SentinelBeat | null {
  try {
    const r = beatSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export type SentinelState = 'running' | 'stopped' | 'silent' | 'none';

/** What `runs` and the cockpit say about a run's sentinel. */
export interface SentinelView {
  state: SentinelState;
  pid: number | null;
  heartbeatAt: string | null;
  notify: string[];
  /** Seconds since its last heartbeat on the head's clock (null: unknown). */
  ageS: number | null;
  /** Why it stopped, or why it is silent. */
  why?: string;
  /** It stopped after the run's end was sent, and the run has not run again since: nobody else
   *  needs to send it. */
  runEnded?: boolean;
  sent?: number;
  failures?: SentinelFailure[];
  /** Its writes in the run dir fail (sentinel-disk.ts); absent: they succeed, or it is not running. */
  disk?: DiskState;
}

export const NO_SENTINEL: SentinelView = { state: 'none', pid: null, heartbeatAt: null, notify: [], ageS: null };

/**
 * The sentinel's state: `running` while its process lives and beats (a beat at most two periods
 * old); `silent` when it stopped beating or its process is gone without saying it stopped, while
 * its run is active; `stopped` once it said so (or died after its run ended).
 * `alive`: its process exists with its command line (null: not checked).
 */
export function sentinelView(
  beat: SentinelBeat | null,
  alive: boolean | null,
  headNowIso: string | null,
  runActive: boolean,
): SentinelView {
  if (!beat) return NO_SENTINEL;
  const now = headNowIso ? Date.parse(headNowIso) : NaN;
  const at = Date.parse(beat.heartbeatAt);
  const ageMs = Number.isFinite(now) && Number.isFinite(at) ? Math.max(0, now - at) : null;
  const base = {
    pid: beat.pid,
    heartbeatAt: beat.heartbeatAt,
    notify: beat.notify,
    ageS: ageMs === null ? null : Math.round(ageMs / 1000),
    sent: beat.sent,
    failures: beat.failures,
  };
  if (beat.state === 'stopped')
    return {
      ...base,
      state: 'stopped',
      ...(beat.why ? { why: beat.why } : {}),
      ...(beat.runEnded && !runActive ? { runEnded: true } : {}),
    };
  const fresh = ageMs !== null && ageMs <= 2 * beat.periodMs;
  // The disk as the sentinel last found it (a stopped one's is no news of now; a silent one's may
  // be why it is silent: its heartbeat could not be written at all).
  const disk = beat.disk ? { disk: beat.disk } : {};
  if (alive !== false && fresh) return { ...base, state: 'running', ...disk };
  const why =
    alive === false
      ? 'its process is gone without a stop (killed, or the host rebooted)'
      : `no heartbeat for ${ageMs === null ? 'an unknown time' : `${Math.round(ageMs / 1000)} s`}`;
  if (runActive) return { ...base, state: 'silent', why, ...disk };
  return alive === false ? { ...base, state: 'stopped', why } : { ...base, state: 'running' };
}

/** `sentinel ok, 12 s ago` (`· disk full since 10:02:11Z (ENOSPC)`) / `sentinel silent since 10:02:11Z (…)` / `sentinel stopped: the run ended (stopped)` / `no sentinel`. */
export function sentinelText(v: SentinelView): string {
  if (v.state === 'none') return 'no sentinel';
  if (v.state === 'running')
    return `sentinel ok, ${v.ageS === null ? 'beat time unknown' : `${v.ageS} s ago`}${v.disk ? ` · ${diskText(v.disk)}` : ''}`;
  if (v.state === 'silent')
    return `sentinel silent since ${v.heartbeatAt ?? '?'} (${v.why ?? 'no heartbeat'}${v.disk ? `; its last beat: ${diskText(v.disk)}` : ''})`;
  return `sentinel stopped${v.why ? `: ${v.why}` : ''}`;
}
