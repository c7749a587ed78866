// The pre-flight as the Config screen and the launch confirmation show it: the same checks as
// `--launch` prints (src/preflight), errors and warnings in full with what to do, the passing ones
// folded into one line so the list fits next to the argv.
import { wrap } from '../format.js';
import type { Line } from '../lines.js';
import type { PreflightPhase } from '../../session/types.js';

/** True when the results were made for another set of overrides than the current one. */
export function preflightStale(p: PreflightPhase | undefined, overrides: readonly string[]): boolean {
  return (
    p?.phase === 'done' && (p.overrides.length !== overrides.length || p.overrides.some((o, i) => o !== overrides[i]))
  );
}

export function preflightLines(p: PreflightPhase | undefined, overrides: readonly string[], width: number): Line[] {
  const w = Math.max(10, width);
  if (!p || p.phase === 'idle') return [[{ t: 'not run yet: p runs it (L runs it before launching)', c: 'dim' }]];
  if (p.phase === 'running') return [[{ t: `running on ${p.target}… (one probe on the target)`, c: 'warn' }]];
  const out: Line[] = [];
  if (p.failed !== undefined) {
    for (const t of wrap(`ERROR the probe could not run on ${p.target}: ${p.failed}`, w, 4))
      out.push([{ t, c: 'bad', bold: true }]);
  }
  const order = { error: 0, warning: 1, ok: 2 } as const;
  const shown = [...p.checks].sort((a, b) => order[a.result] - order[b.result]);
  for (const c of shown) {
    if (c.result === 'ok') continue;
    const mark = c.result === 'error' ? 'ERROR ' : 'WARN  ';
    wrap(`${c.id}: ${c.seen}`, w - 6, 3).forEach((t, i) =>
      out.push([{ t: i === 0 ? mark : '      ', c: c.result === 'error' ? 'bad' : 'warn', bold: true }, { t }]),
    );
    if (c.todo) wrap(`→ ${c.todo}`, w - 6, 3).forEach((t) => out.push([{ t: '      ' }, { t, c: 'accent' }]));
  }
  const ok = p.checks.filter((c) => c.result === 'ok');
  if (ok.length) wrap(`ok    ${ok.map((c) => c.id).join(', ')}`, w, 3).forEach((t) => out.push([{ t, c: 'good' }]));
  // One summary: a probe that could not run checked nothing ("0 errors" would say it passed).
  const summary =
    p.failed !== undefined
      ? 'not checked (the probe could not run): launching is blocked'
      : p.errors > 0
        ? `${p.errors} error${p.errors === 1 ? '' : 's'}, ${p.warnings} warning${p.warnings === 1 ? '' : 's'}: launching is blocked`
        : `no errors${p.warnings ? `, ${p.warnings} warning${p.warnings === 1 ? '' : 's'}` : ''}`;
  for (const t of wrap(`pre-flight on ${p.target}: ${summary}`, w))
    out.push([{ t, c: p.blocked ? 'bad' : 'good', bold: true }]);
  if (preflightStale(p, overrides)) out.push([{ t: 'the overrides changed since: p runs it again', c: 'warn' }]);
  return out;
}
