// The full alert history (h on the dashboard): every alert seen while the cockpit watched, active
// ones first, then the cleared ones, most recent first; when it fired first, how often, when it
// cleared, with what to do. Longer than the screen, it scrolls under a fixed title.
import { dayClockTime, fit } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import { severityMark } from '../panels/alerts.js';
import type { AlertHistoryEntry } from '../session/types.js';
import { ALERT_HISTORY_CAP } from '../../health/alert-history.js';

function step(s: number | null): string {
  return s === null ? '' : ` (step ${s})`;
}

/** Every row of the list below its title, for `width` columns. */
export function alertHistoryRows(entries: readonly AlertHistoryEntry[], width: number): Line[] {
  const out: Line[] = [];
  if (entries.length === 0) return [[{ t: 'No alert has fired since the cockpit opened this run.', c: 'good' }]];
  for (const e of entries) {
    const a = e.alert;
    const c = !e.active ? 'dim' : a.severity === 'error' ? 'bad' : a.severity === 'warning' ? 'warn' : 'accent';
    out.push([{ t: e.active ? severityMark(a.severity) : '✓ ', c }, { t: fit(a.title, width - 2), bold: e.active, c: e.active ? undefined : 'dim' }]);
    const times = e.active
      ? `active since ${dayClockTime(e.firstSeenAt)}${step(e.firstStep)}, fired ${e.fired}×, last at step ${e.lastStep ?? '—'}`
      : `cleared ${e.clearedAt === null ? '—' : dayClockTime(e.clearedAt)}${e.lastStep === null ? '' : ` (last at step ${e.lastStep})`}; fired ${e.fired}× since ${dayClockTime(e.firstSeenAt)}${step(e.firstStep)}`;
    out.push([{ t: '  ' + fit(times, width - 2), c: e.active ? 'accent' : 'dim' }]);
    if (a.detail) out.push([{ t: '  ' + fit(a.detail.split('\n')[0], width - 2), c: e.active ? undefined : 'dim' }]);
    if (a.advice) out.push([{ t: '  → ' + fit(a.advice, width - 4), c: e.active ? 'accent' : 'dim' }]);
  }
  return out;
}

/** How far the list can scroll in `height` rows (title and footer included). */
export function alertHistoryScrollMax(entries: readonly AlertHistoryEntry[], width: number, height: number): number {
  return Math.max(0, alertHistoryRows(entries, width).length - Math.max(1, height - 2));
}

export function alertHistoryLines(entries: readonly AlertHistoryEntry[], width: number, height: number, scroll: number): Line[] {
  const rows = alertHistoryRows(entries, width);
  const active = entries.filter((e) => e.active).length;
  const right = `${active} active · ${entries.length - active} cleared${entries.length >= ALERT_HISTORY_CAP ? ` (last ${ALERT_HISTORY_CAP} kept)` : ''}`;
  const room = Math.max(1, height - 2);
  const top = Math.max(0, Math.min(scroll, rows.length - room));
  const end = Math.min(rows.length, top + room);
  // The keys first: a narrow terminal cuts the range, never how to get out.
  const footer = rows.length > room ? `Esc or q closes · j k ↑ ↓ PgUp PgDn scroll · ${top + 1}-${end}/${rows.length}${end < rows.length ? ' ↓ more' : ''}` : 'Esc or q closes';
  return [titleLine('Alert history', width, right), ...rows.slice(top, end), [{ t: fit(footer, width), c: 'dim' }]];
}
