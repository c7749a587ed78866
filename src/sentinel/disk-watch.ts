// PURE. The sentinel's writes in the run dir (its heartbeat, the digest, the watch snapshot) and what
// their failures say about the run's filesystem: a write refused for lack of room (ENOSPC, or the
// user's quota: EDQUOT) means the disk is full, and the run's log and checkpoints are in danger;
// a write refused for another reason (EACCES, EROFS, EIO) is said as what it is, and is an alert only
// once it happens again (one failed write is no verdict). Each writer is judged by its own last write:
// the state clears once every writer that failed has written again (a 4 KiB heartbeat that fits is
// no proof that the digest's megabytes do).
import type { Alert } from '../metrics/index.js';
import { errnoWords, isNoSpace, type DiskState } from '../runs/sentinel-disk.js';

export type DiskWriter = 'heartbeat' | 'digest' | 'snapshot';

export type WriteResult = { ok: true } | { ok: false; path: string; code: string; message: string; at: string };

interface Failure {
  path: string;
  code: string;
  message: string;
  /** The first failure of this run of failures. */
  since: string;
  /** Failures in a row. */
  count: number;
}

export const DISK_FULL_ALERT_ID = 'disk-full';
export const RUN_DIR_UNWRITABLE_ALERT_ID = 'run-dir-unwritable';

/** A failure of another reason than space is an alert once a writer failed this many times in a row. */
const UNWRITABLE_AFTER = 2;

/** The temporary file a writer wrote into names the file it was for (`X.PID.tmp` → `X`). */
export const writtenFile = (path: string): string => path.replace(/\.\d+\.tmp$/, '');

export class DiskWatch {
  private failures = new Map<DiskWriter, Failure>();
  /** The state's kind and since when it stands (a writer that wrote again in between, with a page
   *  another freed, does not start it anew: the disk is full since the first refusal). */
  private episode: { state: DiskState['state']; since: string } | null = null;

  /** Takes a writer's write; returns whether the state changed. */
  record(w: DiskWriter, r: WriteResult): boolean {
    const before = JSON.stringify(this.state());
    this.failures = next(this.failures, w, r);
    const now = stateOf(this.failures, this.episode);
    this.episode = now ? { state: now.state, since: now.since } : null;
    return JSON.stringify(now) !== before;
  }

  /** The state if `w`'s write had this result (the heartbeat says its own write's outcome). */
  stateIf(w: DiskWriter, r: WriteResult): DiskState | undefined {
    return stateOf(next(this.failures, w, r), this.episode);
  }

  state(): DiskState | undefined {
    return stateOf(this.failures, this.episode);
  }

  /** Whether a failure of another reason than space stood long enough to be an alert. */
  persistent(): boolean {
    return [...this.failures.values()].some((f) => !isNoSpace(f.code) && f.count >= UNWRITABLE_AFTER);
  }
}

function next(m: Map<DiskWriter, Failure>, w: DiskWriter, r: WriteResult): Map<DiskWriter, Failure> {
  const out = new Map(m);
  if (r.ok) out.delete(w);
  else {
    const prev = m.get(w);
    const same = prev && isNoSpace(prev.code) === isNoSpace(r.code);
    out.set(w, {
      path: writtenFile(r.path),
      code: r.code,
      message: r.message,
      since: same ? prev.since : r.at,
      count: same ? prev.count + 1 : 1,
    });
  }
  return out;
}

/** No room wins over other failures (it is the one that kills the run); the earliest of a kind;
 *  since the episode's start while it is of the same kind. */
function stateOf(
  m: Map<DiskWriter, Failure>,
  episode: { state: DiskState['state']; since: string } | null,
): DiskState | undefined {
  const all = [...m.values()].sort((a, b) => a.since.localeCompare(b.since));
  const full = all.find((f) => isNoSpace(f.code));
  const f = full ?? all[0];
  if (!f) return undefined;
  const state = full ? 'full' : 'failing';
  return {
    state,
    since: episode?.state === state && episode.since < f.since ? episode.since : f.since,
    path: f.path,
    error: f.code,
    message: withoutPath(f.message),
  };
}

/** Node's `ENOSPC: no space left on device, open '/x'` → `no space left on device` (code and path are said apart). */
function withoutPath(message: string): string {
  return message
    .replace(/^E[A-Z]+: /, '')
    .replace(/ '[^']*'( -> '[^']*')?$/, '')
    .replace(/, [a-z]+$/, '')
    .trim();
}

/**
 * The sentinel's alert for the state (null: none). `host`: where the sentinel runs (the run's head);
 * `persistent`: DiskWatch.persistent() (a failure of another reason is an alert only then).
 */
export function diskAlert(d: DiskState | undefined, host: string, persistent: boolean): Alert | null {
  if (!d) return null;
  if (d.state === 'full') {
    const room = d.error === 'EDQUOT' ? 'is over its disk quota' : 'has no space left';
    return {
      id: DISK_FULL_ALERT_ID,
      severity: 'error',
      title: d.error === 'EDQUOT' ? "the run's disk quota is exceeded" : "the run's filesystem is full",
      detail:
        `the run's filesystem on ${host} ${room} (${d.error} writing ${d.path}): ` +
        "the run's log cannot grow, and its checkpoints fail too if they are saved there",
      advice:
        d.error === 'EDQUOT'
          ? `free space under your quota (quota -s; du -sh on ${host}) before the next checkpoint is saved`
          : `free space on that filesystem (df -h ${dirOf(d.path)} on ${host}) before the next checkpoint is saved`,
      time: d.since,
    };
  }
  // The run dir removed is no fault of the disk: the sentinel stops for it (sentinel-run.ts).
  if (!persistent || d.error === 'ENOENT') return null;
  return {
    id: RUN_DIR_UNWRITABLE_ALERT_ID,
    severity: 'warning',
    title: "the run's directory cannot be written",
    detail: `on ${host}: ${d.error} (${errnoWords(d.error)}) writing ${d.path}; not a full disk`,
    advice: `look at the run directory on ${host} (ls -ld ${dirOf(d.path)}; mount | grep ro,)`,
    time: d.since,
  };
}

const dirOf = (path: string): string => path.replace(/\/[^/]*$/, '') || '/';
