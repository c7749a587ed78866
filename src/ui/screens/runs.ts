// Runs screen: targets and their runs (state, step, reward, age of the last step).
import { commandBinding, hintLine, keyLabel } from '../bindings.js';
import { cell, fit, fitMiddle, formatNumber, lastStepWhen } from '../format.js';
import { lineText, titleLine, visibleLength, type Line } from '../lines.js';
import { connectionText, runStateSeg } from '../panels/header.js';
import type { RunSummary, TargetSummary } from '../../session/types.js';
import { connectProblemHead, connectProblemRows } from './connect-problem.js';

/** Runs in display order: the cursor indexes this list. */
export function flatRuns(targets: TargetSummary[]): RunSummary[] {
  return targets.flatMap((t) => t.runs);
}

/** The list with the followed run's own summary in place of the polled one: the list is read every
 *  5 s from the log's tail; the followed run knows its figures live. Until the followed run has read
 *  its records it knows no last step time: the list's (read from the tail) stays. */
export function withLiveRun(targets: TargetSummary[], live: RunSummary | null | undefined): TargetSummary[] {
  if (!live) return targets;
  return targets.map((t) =>
    t.name === live.target && t.runs.some((r) => r.id === live.id)
      ? {
          ...t,
          runs: t.runs.map((r) =>
            r.id === live.id ? { ...r, ...live, lastStepAt: live.lastStepAt ?? r.lastStepAt } : r,
          ),
        }
      : t,
  );
}

export function runsLines(
  targets: TargetSummary[],
  cursor: number,
  now: number,
  width: number,
  height: number,
  /** The run pinned as the baseline (`b`), marked in the list. */
  baselineRunId: string | null = null,
): Line[] {
  // The key hints from the binding table, as many as fit beside the title.
  const out: Line[] = [titleLine('Runs', width, hintLine('runs', width - 12))];
  if (targets.length === 0) {
    out.push([
      { t: 'No targets yet. Start one with `awrl-tui --launch --target T --config FILE`, or press n.', c: 'dim' },
    ]);
    return out;
  }
  const idW = Math.max(12, Math.min(40, width - 52));
  out.push([
    {
      t: '  ' + cell('run', idW) + ' ' + cell('state', 10) + cell('step', 12) + cell('reward', 10) + 'last step',
      c: 'dim',
    },
  ]);
  let index = 0;
  const rows: { line: Line; selected: boolean }[] = [];
  for (const t of targets) {
    if (t.connectProblem && t.connection.state === 'failed') {
      rows.push(...connectProblemHead(t.connectProblem, width).map((line) => ({ line, selected: false })));
      rows.push(...connectProblemRows(t.connectProblem, width).map((line) => ({ line, selected: false })));
      continue;
    }
    rows.push({
      line: [
        { t: t.name, bold: true, c: 'accent' },
        { t: '  ' },
        connectionText(t.connection),
        { t: t.error ? '  ' + fit(t.error, width) : '', c: 'bad' },
        { t: `  ${t.runs.length} run${t.runs.length === 1 ? '' : 's'}`, c: 'dim' },
      ],
      selected: false,
    });
    if (t.needsLogin && t.connection.state === 'failed') {
      const key = keyLabel(commandBinding('runs', 'refresh')!);
      const how = `  ${key} logs in again here: the server's prompt opens as a dialog, answered once`;
      rows.push({ line: [{ t: fit(how, width), c: 'warn' }], selected: false });
    }
    for (const r of t.runs) {
      const selected = index === cursor;
      const state = runStateSeg(r.state);
      const line: Line = [
        { t: (selected ? '▸ ' : '  ') + cell(fitMiddle(r.id, idW), idW) + ' ', inverse: selected },
        { ...state, t: cell(state.t, 10) },
        {
          t:
            cell(r.step !== null ? `${r.step}/${r.totalSteps ?? '?'}` : '—', 12) +
            cell(formatNumber(r.reward), 10) +
            lastStepWhen(r.lastStepAt, now),
        },
        ...(r.id === baselineRunId ? [{ t: '  baseline', c: 'title' as const }] : []),
      ];
      rows.push({ selected, line });
      if (r.sentinel) {
        // As `runs` says it; silent in warning colour: no sentinel is seen watching the run. On the
        // row where it fits, else on a line of its own under it (a silent one's text is long, and
        // at 80 columns even "sentinel ok" would fall off the row's end).
        const c = r.sentinel.state === 'silent' ? 'warn' : 'dim';
        const text = `  ${r.sentinel.text}`;
        if (visibleLength(lineText(line)) + visibleLength(text) <= width) line.push({ t: text, c });
        else rows.push({ selected, line: [{ t: fit(`    ${r.sentinel.text}`, width), c }] });
      }
      index++;
    }
  }
  // Keep the cursor's rows visible (its run's row and the sentinel line under it).
  const body = Math.max(1, height - out.length);
  const lastSelected = rows.findLastIndex((r) => r.selected);
  const start = lastSelected < body ? 0 : lastSelected - body + 1;
  out.push(...rows.slice(start, start + body).map((r) => r.line));
  return out;
}
