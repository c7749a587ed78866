// Runs screen: targets and their runs (state, step, reward, age of the last step).
import { cell, fit, formatAge, formatNumber, ageSeconds } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import { connectionText, runStateSeg } from '../panels/header.js';
import type { RunSummary, TargetSummary } from '../session/types.js';

/** Runs in display order: the cursor indexes this list. */
export function flatRuns(targets: TargetSummary[]): RunSummary[] {
  return targets.flatMap((t) => t.runs);
}

export function runsLines(targets: TargetSummary[], cursor: number, now: number, width: number, height: number): Line[] {
  const out: Line[] = [titleLine('Runs', width, 'Enter open · n new launch · s stop · o leftovers (ended) · r refresh')];
  if (targets.length === 0) {
    out.push([{ t: 'No targets yet. Start one with `awrl-tui --launch --target T --config FILE`, or press n.', c: 'dim' }]);
    return out;
  }
  const idW = Math.max(12, Math.min(40, width - 52));
  out.push([{ t: '  ' + cell('run', idW) + ' ' + cell('state', 10) + cell('step', 12) + cell('reward', 10) + 'last step', c: 'dim' }]);
  let index = 0;
  const rows: { line: Line; selected: boolean }[] = [];
  for (const t of targets) {
    rows.push({
      line: [{ t: t.name, bold: true, c: 'accent' }, { t: '  ' }, connectionText(t.connection), { t: t.error ? '  ' + fit(t.error, width) : '', c: 'bad' }, { t: `  ${t.runs.length} run${t.runs.length === 1 ? '' : 's'}`, c: 'dim' }],
      selected: false,
    });
    for (const r of t.runs) {
      const selected = index === cursor;
      const age = ageSeconds(r.lastStepAt, now);
      const state = runStateSeg(r.state);
      rows.push({
        selected,
        line: [
          { t: (selected ? '▸ ' : '  ') + cell(r.id, idW) + ' ', inverse: selected },
          { ...state, t: cell(state.t, 10) },
          { t: cell(r.step !== null ? `${r.step}/${r.totalSteps ?? '?'}` : '—', 12) + cell(formatNumber(r.reward), 10) + (age === null ? '—' : `${formatAge(age)} ago`) },
        ],
      });
      index++;
    }
  }
  // Keep the cursor row visible.
  const body = Math.max(1, height - out.length);
  const selectedRow = rows.findIndex((r) => r.selected);
  const start = selectedRow < body ? 0 : selectedRow - body + 1;
  out.push(...rows.slice(start, start + body).map((r) => r.line));
  return out;
}
