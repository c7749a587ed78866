// Log pane. Two views of the followed log: the trainer's own lines (default: like `tail -f`,
// cleaned once when they arrive, each stats table as one summary line) and the lines built from
// parser events (warnings and errors by default). Both scroll from the bottom (newest); `scroll` is
// how many lines up from the end; only the visible lines are cut to the width, per frame.
import { fit } from '../format.js';
import { titleLine, type Line, type Seg } from '../lines.js';
import type { LogLine, RunView, TrainerLine, TrainerLinesView } from '../session/types.js';
import { fitCells } from '../text-width.js';

export interface LogProps {
  lines: LogLine[];
  showAll: boolean;
  search: string;
  scroll: number;
  /** Appended to the title (e.g. the key that switches to the trainer's lines). */
  hint?: string;
}

export function filterLog(lines: LogLine[], showAll: boolean, search: string): LogLine[] {
  const needle = search.toLowerCase();
  return lines.filter((l) => (showAll || l.level !== 'info') && (!needle || l.text.toLowerCase().includes(needle)));
}

/** The visible slice [start, end) of `n` lines for a body of `body` rows scrolled `scroll` up. */
function window(n: number, body: number, scroll: number): [number, number] {
  // Scrolling past the oldest line keeps a full page (the key handler does not know the count).
  const end = Math.max(Math.min(n, body), n - Math.max(0, scroll));
  return [Math.max(0, end - body), end];
}

export function logLines(p: LogProps, width: number, height: number): Line[] {
  const shown = filterLog(p.lines, p.showAll, p.search);
  const [start, end] = window(shown.length, Math.max(0, height - 1), p.scroll);
  const mode = p.showAll ? 'all' : 'warnings+errors';
  const right = `${mode}${p.search ? ` /${p.search}` : ''} ${shown.length ? `${start + 1}-${end}/${shown.length}` : '0'}${p.hint ? ` · ${p.hint}` : ''}`;
  const out: Line[] = [titleLine('Log', width, right)];
  if (shown.length === 0) {
    out.push([{ t: p.search ? `no line matches '${p.search}'` : p.showAll ? 'no log lines yet' : 'no warnings or errors (a: all lines)', c: 'dim' }]);
    return out;
  }
  for (const l of shown.slice(start, end)) {
    const c = l.level === 'error' ? 'bad' : l.level === 'warning' ? 'warn' : undefined;
    const time = l.time ? l.time.slice(11, 19) + ' ' : '';
    const src = l.source && l.source !== 'main' ? `[${l.source}] ` : '';
    out.push([{ t: time, c: 'dim' }, { t: fit(src + l.text, width - time.length), c }]);
  }
  return out;
}

export interface TrainerLogProps {
  view: TrainerLinesView;
  /** Only warning and error lines (and table summaries are then left out). */
  problemsOnly: boolean;
  search: string;
  scroll: number;
}

// Filtering allocates only when a filter is on: the common frame (all lines) slices the ring view.
function filterTrainer(lines: readonly TrainerLine[], problemsOnly: boolean, search: string): readonly TrainerLine[] {
  if (!problemsOnly && !search) return lines;
  const needle = search.toLowerCase();
  return lines.filter((l) => (!problemsOnly || l.level !== 'info') && (!needle || l.text.toLowerCase().includes(needle)));
}

const MISSING_EARLIER = '… earlier lines not loaded';

/** `(AReaL) 20261129-11:14:47.751 ` → `11:14:47 `: in a pane 60 columns wide the tag, the date
 *  and the milliseconds would take half the line, and the pane is for reading the messages.
 *  A role or Ray prefix before the header is kept. */
const AREAL_HEAD = /\(AReaL\) \d{8}-(\d\d:\d\d:\d\d)(?:\.\d+)? /;
export function compactHeader(text: string): string {
  const at = text.indexOf('(AReaL) ');
  if (at < 0 || at > 160) return text;
  const m = AREAL_HEAD.exec(text.slice(at, at + 40));
  return m && m.index === 0 ? text.slice(0, at) + m[1] + ' ' + text.slice(at + m[0].length) : text;
}

export function trainerLogLines(p: TrainerLogProps, width: number, height: number): Line[] {
  const lines = filterTrainer(p.view.lines, p.problemsOnly, p.search);
  // Where the lines begin mid-log, the first row says so (it scrolls with the lines).
  const gap = p.view.startsMidLog ? MISSING_EARLIER : p.view.dropped > 0 ? `… ${p.view.dropped} earlier lines dropped (the pane keeps the last ${p.view.lines.length})` : '';
  const g = gap ? 1 : 0;
  const [start, end] = window(lines.length + g, Math.max(0, height - 1), p.scroll);
  const mode = p.problemsOnly ? 'warnings+errors' : 'all';
  const range = lines.length ? `${Math.max(0, start - g) + 1}-${end - g}/${lines.length}` : '0';
  const right = `trainer · ${mode}${p.search ? ` /${p.search}` : ''} ${range} · L: events`;
  const out: Line[] = [titleLine('Log', width, right)];
  if (lines.length === 0) {
    if (gap) out.push([{ t: fitCells(gap, width), c: 'dim' }]);
    out.push([{ t: p.search ? `no line matches '${p.search}'` : p.problemsOnly ? 'no warnings or errors (a: all lines)' : 'no trainer lines yet', c: 'dim' }]);
    return out;
  }
  for (let i = start; i < end; i++) {
    if (g && i === 0) {
      out.push([{ t: fitCells(gap, width), c: 'dim' }]);
      continue;
    }
    const l = lines[i - g];
    const seg: Seg = { t: fitCells(compactHeader(l.text), width) };
    if (l.level === 'error') seg.c = 'bad';
    else if (l.level === 'warning') seg.c = 'warn';
    else if (l.kind) seg.c = 'dim';
    out.push([seg]);
  }
  return out;
}

export interface LogPaneUi {
  logView: 'trainer' | 'events';
  trainerProblemsOnly: boolean;
  logAll: boolean;
  logSearch: string;
  logScroll: number;
}

/** The pane as the dashboard and the Log screen show it: the trainer's lines when the session has
 *  them and the user has not switched to the event view (L). */
export function logPaneLines(run: RunView, ui: LogPaneUi, width: number, height: number): Line[] {
  if (run.trainerLines && ui.logView === 'trainer') return trainerLogLines({ view: run.trainerLines, problemsOnly: ui.trainerProblemsOnly, search: ui.logSearch, scroll: ui.logScroll }, width, height);
  return logLines({ lines: run.log, showAll: ui.logAll, search: ui.logSearch, scroll: ui.logScroll, hint: run.trainerLines ? 'L: trainer' : undefined }, width, height);
}

/** The lines the pane would list (its view and filters), for keeping a scrolled-back pane still. */
export function logPaneShown(run: RunView, ui: LogPaneUi): readonly { seq: number }[] {
  if (run.trainerLines && ui.logView === 'trainer') return filterTrainer(run.trainerLines.lines, ui.trainerProblemsOnly, ui.logSearch);
  return filterLog(run.log, ui.logAll, ui.logSearch);
}

/** How many of `shown` came after the line numbered `seq` (scanned from the newest end). */
export function countAfter(shown: readonly { seq: number }[], seq: number): number {
  let n = 0;
  for (let i = shown.length - 1; i >= 0 && shown[i].seq > seq; i--) n++;
  return n;
}
