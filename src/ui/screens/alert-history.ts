// The full alert history (h on the dashboard): every alert of the log read so far (a backfilled
// night included), active ones first, then the cleared ones (or ended with the run: a hang the run
// died in), most recent first; when it fired and cleared on the LOG's clock, at which steps, how often, with what to do. Longer than the screen, it
// scrolls under a fixed title; the title says how many entries the history's cap dropped.
import { clockTime, dayClockTime, fit } from '../format.js';
import { detailLine, endedMark, endedText, leadText } from '../panels/alerts.js';
import { titleLine, type Line } from '../lines.js';
import { severityMark } from '../panels/alerts.js';
import type { AlertHistoryEntry } from '../../session/types.js';

function step(s: number | null): string {
  return s === null ? '' : ` (step ${s})`;
}

/** "05-25 03:12–03:20", or with both days when it spans midnight. */
export function timeSpan(from: number, to: number): string {
  const a = dayClockTime(from);
  const b = dayClockTime(to);
  return a.slice(0, 5) === b.slice(0, 5) ? `${a}–${clockTime(to)}` : `${a} – ${b}`;
}

/** "steps 812–815", "step 812", or nothing. */
export function stepSpan(from: number | null, to: number | null): string {
  if (from === null && to === null) return '';
  if (from === null || to === null || from === to) return ` (step ${from ?? to})`;
  return ` (steps ${from}–${to})`;
}

/** The line under an entry's title: when it was active, at which steps, how often it fired. */
export function historyTimes(e: AlertHistoryEntry): string {
  if (e.active)
    return `active since ${dayClockTime(e.lastFiredAt)}${step(e.lastFiredStep)}, fired ${e.fired}×${e.fired > 1 ? ` since ${dayClockTime(e.firstSeenAt)}` : ''}, last at step ${e.lastStep ?? '—'}`;
  const last = `${timeSpan(e.lastFiredAt, e.clearedAt ?? e.lastSeenAt)}${stepSpan(e.lastFiredStep, e.lastStep)}`;
  return e.fired > 1
    ? `last ${last}${e.endedWithRun ? ', ended with the run' : ''}; fired ${e.fired}× since ${dayClockTime(e.firstSeenAt)}${step(e.firstStep)}`
    : `${last}, ${endedText(e)}`;
}

/** Every row of the list below its title, for `width` columns. */
export function alertHistoryRows(entries: readonly AlertHistoryEntry[], width: number): Line[] {
  return alertHistoryLayout(entries, width).rows;
}

/** The rows, and the row where each entry starts. */
function alertHistoryLayout(entries: readonly AlertHistoryEntry[], width: number): { rows: Line[]; starts: number[] } {
  const out: Line[] = [];
  const starts: number[] = [];
  if (entries.length === 0) return { rows: [[{ t: 'No alert has fired in the log read so far.', c: 'good' }]], starts };
  for (const e of entries) {
    starts.push(out.length);
    const a = e.alert;
    const c = !e.active ? 'dim' : a.severity === 'error' ? 'bad' : a.severity === 'warning' ? 'warn' : 'accent';
    // The whole alert, wrapped: this is where it is read in full.
    const dim = e.active ? undefined : 'dim';
    leadText('', a.title, width - 2, true).forEach((t, i) =>
      out.push([
        { t: i === 0 ? (e.active ? severityMark(a.severity) : endedMark(e)) : '  ', c },
        { t, bold: e.active, c: dim },
      ]),
    );
    for (const t of leadText('  ', historyTimes(e), width, true)) out.push([{ t, c: e.active ? 'accent' : 'dim' }]);
    if (a.detail) for (const t of leadText('  ', detailLine(a.detail), width, true)) out.push([{ t, c: dim }]);
    if (a.advice)
      for (const t of leadText('  → ', a.advice, width, true)) out.push([{ t, c: e.active ? 'accent' : 'dim' }]);
  }
  return { rows: out, starts };
}

/** The step an alert's episodes are looked up at: where it last fired (null: the alert has none). */
export const alertStep = (e: AlertHistoryEntry): number | null => e.lastFiredStep ?? e.lastStep ?? e.firstStep;

/** The rows in view for `scroll`, and the entry marked: the first whose title is in view (scrolling
 *  moves the mark; `e` opens that alert's episodes). */
function inView(entries: readonly AlertHistoryEntry[], width: number, height: number, scroll: number) {
  const { rows, starts } = alertHistoryLayout(entries, width);
  const room = Math.max(1, height - 2);
  const top = Math.max(0, Math.min(scroll, rows.length - room));
  const end = Math.min(rows.length, top + room);
  const first = starts.findIndex((r) => r >= top && r < end);
  const marked = first >= 0 ? first : starts.findLastIndex((r) => r < top);
  return { rows, starts, room, top, end, marked };
}

export function markedHistoryEntry(
  entries: readonly AlertHistoryEntry[],
  width: number,
  height: number,
  scroll: number,
): AlertHistoryEntry | null {
  return entries[inView(entries, width, height, scroll).marked] ?? null;
}

/** How far the list can scroll in `height` rows (title and footer included). */
export function alertHistoryScrollMax(entries: readonly AlertHistoryEntry[], width: number, height: number): number {
  return Math.max(0, alertHistoryRows(entries, width).length - Math.max(1, height - 2));
}

/** `dropped`: entries the history's cap removed (the longest-cleared), said in the title. */
export function alertHistoryLines(
  entries: readonly AlertHistoryEntry[],
  width: number,
  height: number,
  scroll: number,
  dropped = 0,
): Line[] {
  const { rows, starts, room, top, end, marked } = inView(entries, width, height, scroll);
  const active = entries.filter((e) => e.active).length;
  const ended = entries.filter((e) => !e.active && e.endedWithRun).length;
  const right =
    `${active} active · ${entries.length - active - ended} cleared` +
    `${ended ? ` · ${ended} ended with the run` : ''}${dropped > 0 ? ` · ${dropped} older dropped` : ''}`;
  const shown = rows.slice(top, end);
  const at = (starts[marked] ?? -1) - top;
  const title = shown[at];
  if (at >= 0 && Array.isArray(title)) shown[at] = title.map((seg, i) => (i === 1 ? { ...seg, inverse: true } : seg));
  const step = marked >= 0 ? alertStep(entries[marked]) : null;
  const episodes = step === null ? '' : ` · e episodes at step ${step}`;
  // The keys first: a narrow terminal cuts the range, never how to get out.
  const footer =
    rows.length > room
      ? `Esc or q closes${episodes} · j k ↑ ↓ PgUp PgDn scroll · ${top + 1}-${end}/${rows.length}${end < rows.length ? ' ↓ more' : ''}`
      : `Esc or q closes${episodes}`;
  return [titleLine('Alert history', width, right), ...shown, [{ t: fit(footer, width), c: 'dim' }]];
}
