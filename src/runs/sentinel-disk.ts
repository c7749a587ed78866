// The run dir's filesystem as the run's sentinel (src/sentinel) finds it when it writes there: its
// heartbeat, the digest, the watch snapshot. Said in sentinel.json (`disk`), by `runs` and the
// cockpit. Pure: the words and the schema; the sentinel's rules are src/sentinel/disk-watch.ts.
import { z } from 'zod';

/** The errno codes that mean "no room": the filesystem is full, or the user's quota is. */
export const NO_SPACE_CODES = ['ENOSPC', 'EDQUOT'] as const;

export const diskSchema = z.object({
  /** `full`: a write failed for lack of space (ENOSPC, EDQUOT); `failing`: for another reason. */
  state: z.enum(['full', 'failing']),
  /** When the first write failed (the head's clock, ISO 8601 UTC). */
  since: z.string(),
  /** The file the failed write was for. */
  path: z.string(),
  /** The errno code (ENOSPC, EDQUOT, EACCES, EROFS, EIO…). */
  error: z.string(),
  /** What the system said, without the path. */
  message: z.string().optional(),
});
/** Absent from sentinel.json: every write the sentinel made there lately succeeded. */
export type DiskState = z.infer<typeof diskSchema>;

export const isNoSpace = (code: string): boolean => (NO_SPACE_CODES as readonly string[]).includes(code);

/** What the code means, for a person (the system's own words where Node gives none). */
export function errnoWords(code: string): string {
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'the disk quota is exceeded',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'the filesystem is read-only',
    EIO: 'an I/O error',
    ENOENT: 'the run directory is gone',
  };
  return words[code] ?? code;
}

/** What an attached watch (`follow`, the cockpit's status line) says when the sentinel's disk state
 *  starts, changes kind or ends (`d` null). */
export function diskChangeText(d: DiskState | null, prev: DiskState | null): string {
  if (!d) return `sentinel its writes in the run dir succeed again (was: ${prev ? diskText(prev) : 'failing'})`;
  if (d.state === 'full')
    return (
      `sentinel ${fullWords(d)} since ${clock(d.since)}: ${d.error} writing ${d.path}; ` +
      "the run's log and checkpoints may fail (the sentinel sends this alert)"
    );
  return `sentinel its writes in the run dir fail since ${clock(d.since)}: ${d.error} (${errnoWords(d.error)}) writing ${d.path}`;
}

/** `disk full since 10:02:11Z (ENOSPC)`, `disk quota full since …` / `its writes in the run dir fail since … (EACCES: permission denied)`. */
export function diskText(d: DiskState): string {
  if (d.state === 'full') return `${fullWords(d)} since ${clock(d.since)} (${d.error})`;
  return `its writes in the run dir fail since ${clock(d.since)} (${d.error}: ${errnoWords(d.error)})`;
}

const fullWords = (d: DiskState): string => (d.error === 'EDQUOT' ? 'disk quota full' : 'disk full');
/** `2026-12-05T10:02:11.000Z` → `10:02:11Z` (the head's clock, UTC). */
const clock = (iso: string): string => iso.replace(/^\d{4}-\d\d-\d\dT/, '').replace(/\.\d+Z$/, 'Z');
