// A stats value as a person reads it: pure, used by the panels and the log pane's event lines.

/** Numbers as a person reads them on a dashboard: 4 significant digits, exponent only when needed. */
export function formatNumber(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined) return '—';
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(Math.max(0, digits - 2));
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(digits)));
}
