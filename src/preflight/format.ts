// The human form of the checks: one line per check, the todo indented under anything not ok.
import type { CheckResult } from './types.js';

const MARK: Record<CheckResult['result'], string> = { ok: 'ok   ', warning: 'WARN ', error: 'ERROR' };

export function formatChecks(checks: readonly CheckResult[]): string {
  const width = Math.max(0, ...checks.map((c) => c.id.length));
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${MARK[c.result]} ${c.id.padEnd(width)}  ${c.seen}`);
    if (c.result !== 'ok' && c.todo) lines.push(`${' '.repeat(6 + width)}  → ${c.todo}`);
  }
  const errors = checks.filter((c) => c.result === 'error').length;
  const warnings = checks.filter((c) => c.result === 'warning').length;
  lines.push(
    errors > 0
      ? `preflight: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}: fix the errors before launching.`
      : `preflight: no errors${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}.`,
  );
  return lines.join('\n') + '\n';
}
