// Alerts panel: the store's alert rules, errors first, then newest first, each with what to do.
import { fit } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { Alert } from '../session/types.js';

export function alertsLines(alerts: Alert[], width: number, height: number): Line[] {
  const out: Line[] = [titleLine('Alerts', width, alerts.length ? `${alerts.length}` : '')];
  if (alerts.length === 0) {
    out.push([{ t: 'no alerts', c: 'good' }]);
    return out;
  }
  // Errors first (a fatal error has no step of its own and must not sink below the warnings of
  // earlier steps, out of a short panel), then newest first: by step, time, list order (later = newer).
  const rank = (a: Alert) => (a.severity === 'error' ? 0 : a.severity === 'warning' ? 1 : 2);
  const ordered = alerts
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a) - rank(y.a) || (y.a.step ?? -1) - (x.a.step ?? -1) || (y.a.time ?? '').localeCompare(x.a.time ?? '') || y.i - x.i)
    .map((x) => x.a);
  for (const a of ordered) {
    const c = a.severity === 'error' ? 'bad' : a.severity === 'warning' ? 'warn' : 'accent';
    const where = a.step !== undefined ? ` (step ${a.step})` : '';
    out.push([{ t: a.severity === 'error' ? '✖ ' : a.severity === 'warning' ? '▲ ' : '● ', c }, { t: fit(a.title + where, width - 2), bold: true }]);
    if (a.detail) out.push([{ t: '  ' + fit(a.detail, width - 2) }]);
    if (a.advice) out.push([{ t: '  → ' + fit(a.advice, width - 4), c: 'accent' }]);
  }
  if (out.length > height && height > 1) {
    return [...out.slice(0, height - 1), [{ t: `… more (z: zoom)`, c: 'dim' }]];
  }
  return out;
}
