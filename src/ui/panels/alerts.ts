// Alerts panel: the store's alert rules, errors first, then newest first, each with what to do;
// below them, dimmed, the alerts that fired and cleared while the cockpit watched (the rules only
// say what holds now: an alert from 03:00 that cleared at 03:20 would be gone by morning). A hang
// the run died in did not clear: it "ended with the run" (a clearing would claim a recovery).
import { exceptionLine } from '../../trainer-log/classify.js';
import { clockTime, fit, wrap } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { Alert, AlertHistoryEntry } from '../../session/types.js';
import { keyOf } from '../key-names.js';

export function severityMark(s: Alert['severity']): string {
  return s === 'error' ? '✖ ' : s === 'warning' ? '▲ ' : '● ';
}

/** How an alert that no longer stands stopped: "cleared", or "ended with the run" (a hang the run
 *  died in: no step came to clear it). */
export function endedText(e: AlertHistoryEntry): string {
  return e.endedWithRun ? 'ended with the run' : 'cleared';
}

/** The title's count of what no longer stands: "2 cleared · 1 ended with the run". */
export function endedCounts(history: readonly AlertHistoryEntry[]): string {
  const ended = history.filter((e) => !e.active && e.endedWithRun).length;
  const cleared = history.filter((e) => !e.active && !e.endedWithRun).length;
  return [cleared ? `${cleared} cleared` : '', ended ? `${ended} ended with the run` : ''].filter(Boolean).join(' · ');
}

/** "cleared 03:20, fired 2× since 03:00", "ended with the run 03:20, fired 1× since 03:00" */
export function clearedText(e: AlertHistoryEntry): string {
  return `${endedText(e)} ${e.clearedAt === null ? '—' : clockTime(e.clearedAt)}, fired ${e.fired}× since ${clockTime(e.firstSeenAt)}`;
}

/** The mark before an alert that no longer stands: a tick only for one that cleared. */
export function endedMark(e: AlertHistoryEntry): string {
  return e.endedWithRun ? '– ' : '✓ ';
}

function stepText(step: number | null | undefined): string {
  return step !== undefined && step !== null ? ` (step ${step})` : '';
}

/** An alert's detail as one line: for a traceback, its exception line (`RuntimeError: CUDA out of
 *  memory…`), not its header (`Traceback (most recent call last):`). */
export function detailLine(detail: string): string {
  if (!detail.includes('\n')) return detail;
  const lines = detail.split('\n').filter((l) => l.trim());
  return exceptionLine(lines) ?? lines.at(-1) ?? '';
}

/** `text` after `lead`, cut to the width with '…' or (`whole`: zoomed) wrapped under the lead. */
export function leadText(lead: string, text: string, width: number, whole: boolean): string[] {
  if (!whole) return [lead + fit(text, width - lead.length)];
  return wrap(text, Math.max(1, width - lead.length)).map((t, i) => (i === 0 ? lead : ' '.repeat(lead.length)) + t);
}

export function alertsLines(
  alerts: Alert[],
  width: number,
  height: number,
  history: readonly AlertHistoryEntry[] = [],
  whole = false,
): Line[] {
  const cleared = history.filter((e) => !e.active);
  const right = [alerts.length ? `${alerts.length}` : '', endedCounts(history)].filter(Boolean).join(' · ');
  const out: Line[] = [titleLine('Alerts', width, right)];
  if (alerts.length === 0) out.push([{ t: cleared.length ? 'no active alerts' : 'no alerts', c: 'good' }]);
  // Errors first (a fatal error has no step of its own and must not sink below the warnings of
  // earlier steps, out of a short panel), then newest first: by step, time, list order (later = newer).
  const rank = (a: Alert) => (a.severity === 'error' ? 0 : a.severity === 'warning' ? 1 : 2);
  const ordered = alerts
    .map((a, i) => ({ a, i }))
    .sort(
      (x, y) =>
        rank(x.a) - rank(y.a) ||
        (y.a.step ?? -1) - (x.a.step ?? -1) ||
        (y.a.time ?? '').localeCompare(x.a.time ?? '') ||
        y.i - x.i,
    )
    .map((x) => x.a);
  for (const a of ordered) {
    const c = a.severity === 'error' ? 'bad' : a.severity === 'warning' ? 'warn' : 'accent';
    leadText('', a.title + stepText(a.step), width - 2, whole).forEach((t, i) =>
      out.push([
        { t: i === 0 ? severityMark(a.severity) : '  ', c },
        { t, bold: true },
      ]),
    );
    if (a.detail) for (const t of leadText('  ', detailLine(a.detail), width, whole)) out.push([{ t }]);
    if (a.advice) for (const t of leadText('  → ', a.advice, width, whole)) out.push([{ t, c: 'accent' }]);
  }
  // Most recently cleared first (the history's order).
  for (const e of cleared) {
    out.push([
      { t: endedMark(e), c: 'dim' },
      { t: fit(e.alert.title + stepText(e.lastStep), width - 2), c: 'dim' },
    ]);
    out.push([{ t: '  ' + fit(clearedText(e), width - 2), c: 'dim' }]);
  }
  if (out.length > height && height > 1) {
    const zoom = `${keyOf('zoom')}: zoom`;
    const more = history.length ? `… more (${zoom} · ${keyOf('alert-history')}: alert history)` : `… more (${zoom})`;
    return [
      ...out.slice(0, height - 1),
      [{ t: more.length <= width ? more : fit(`… more (${keyOf('alert-history')}: history)`, width), c: 'dim' }],
    ];
  }
  return out;
}
