// Times in trainer logs are the trainer machine's LOCAL wall clock without a zone
// (`2026-05-25T12:19:55.952`). Arithmetic between two such times is exact whatever the zone, so we
// keep them as "naive milliseconds" (the fields read as if they were UTC) and convert the caller's
// `now` into the same scale once.

import { naiveTimeMs } from '../trainer-log/text.js';

const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Naive milliseconds of a zone-less ISO time; null when it is not one (the trainer-log room's
 *  one reader of the trainer's time). */
export const naiveMs = naiveTimeMs;

/**
 * The caller's `now` (or a Slurm end time) on the naive scale. A zone-less string is already naive.
 * A Date, or a string with a zone, is an instant: shift it into the log's local time with
 * `utcOffsetMinutes` (the trainer machine's offset) or, by default, this machine's offset at that
 * instant (right when the cockpit and the cluster share a zone, as they usually do for one user).
 */
export function toNaiveMs(t: Date | string | number, utcOffsetMinutes?: number): number | null {
  if (typeof t === 'string') {
    const naive = naiveMs(t);
    if (naive !== null) return naive;
    if (!HAS_ZONE.test(t.trim())) return null;
    const inst = Date.parse(t);
    return Number.isNaN(inst) ? null : shift(inst, utcOffsetMinutes);
  }
  const inst = typeof t === 'number' ? t : t.getTime();
  return Number.isNaN(inst) ? null : shift(inst, utcOffsetMinutes);
}

function shift(instantMs: number, utcOffsetMinutes?: number): number {
  const offset = utcOffsetMinutes ?? -new Date(instantMs).getTimezoneOffset();
  return instantMs + offset * 60_000;
}

/** Naive milliseconds back to the events' ISO form (for Alert.time). */
export function naiveIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

/** Human durations for alert text: `22 s`, `41 min`, `2 h 5 min`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown';
  const s = Math.max(0, seconds);
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  const totalMin = Math.round(s / 60);
  const h = Math.floor(totalMin / 60);
  const m = totalMin % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** Naive ms as the cockpit prints times: the trainer's local time read as this machine's (as
 *  localTimeMs does for every other time on the screen). The rules look at every record: the
 *  zone's offset is taken once per minute of log (zones change it on a minute, and JS reads a time
 *  skipped or repeated by a change with the offset before it), not one Date.parse per record. */
export function displayMs(naive: number): number {
  const minute = Math.floor(naive / 60_000);
  if (minute !== lastMinute) {
    const start = minute * 60_000;
    lastOffset = Date.parse(naiveIso(start)) - start;
    lastMinute = minute;
  }
  return naive + lastOffset;
}
/** The minute (of naive ms) displayMs last converted, and its offset. */
let lastMinute = Number.NaN;
let lastOffset = Number.NaN;
