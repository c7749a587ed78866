// Log pane. Two views of the followed log: the trainer's own lines (default: like `tail -f`,
// cleaned once when they arrive, each stats table as one summary line) and the lines built from
// parser events (warnings and errors by default). Both scroll from the bottom (newest); `scroll` is
// how many lines up from the end; only the visible lines are cut to the width, per frame.
import { fit } from '../format.js';
import { titleLine, type Line, type Seg } from '../lines.js';
import type { LogLine, RunView, TrainerLine, TrainerLinesView } from '../../session/types.js';
import { fitCells, wrapCells } from '../text-width.js';
import { keyOf } from '../key-names.js';

export interface LogProps {
  lines: LogLine[];
  showAll: boolean;
  search: string;
  scroll: number;
  /** Long lines wrap onto more rows (w) instead of being cut with '…'. */
  wrap?: boolean;
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

/** Continuation rows of a wrapped line start this far in (so a wrapped line reads as one). */
const WRAP_INDENT = '  ';

/** One line as rows: cut to the width, or wrapped (`head` on the first row, the text after it). */
function lineRows(head: Seg | null, text: string, c: Seg['c'], width: number, wrap: boolean): Line[] {
  const headW = head ? head.t.length : 0;
  if (!wrap) return [[...(head ? [head] : []), { t: fitCells(text, width - headW), ...(c ? { c } : {}) }]];
  const parts = wrapCells(text, Math.max(1, width - headW), Math.max(1, width - WRAP_INDENT.length));
  return parts.map((t, i): Line =>
    i === 0 ? [...(head ? [head] : []), { t, ...(c ? { c } : {}) }] : [{ t: WRAP_INDENT }, { t, ...(c ? { c } : {}) }],
  );
}

/**
 * The rows of items [start, end) for a body of `body` rows scrolled `scroll` items up, each item
 * taking `rowsOf(item)` rows (wrapped lines take several). Counted in items, like `window`, so the
 * scroll (and the pin that keeps a scrolled-back pane still) means the same wrapped or not. The
 * top item may show only its last rows; scrolled past the oldest, a full page from the oldest.
 */
function wrappedWindow<T>(
  items: readonly T[],
  rowsOf: (t: T) => Line[],
  body: number,
  scroll: number,
): { rows: Line[]; start: number; end: number } {
  const n = items.length;
  let end = Math.max(0, n - Math.max(0, scroll));
  let start = end;
  const picked: Line[][] = [];
  let used = 0;
  while (start > 0 && used < body) {
    const r = rowsOf(items[--start]);
    picked.unshift(r);
    used += r.length;
  }
  if (used < body && end < n) {
    while (end < n && used < body) {
      const r = rowsOf(items[end++]);
      picked.push(r);
      used += r.length;
    }
    return { rows: picked.flat().slice(0, body), start, end };
  }
  const rows = picked.flat();
  return { rows: rows.slice(Math.max(0, rows.length - body)), start, end };
}

function eventRows(l: LogLine, width: number, wrap: boolean): Line[] {
  const c = l.level === 'error' ? 'bad' : l.level === 'warning' ? 'warn' : undefined;
  const time = l.time ? l.time.slice(11, 19) + ' ' : '';
  const src = l.source && l.source !== 'main' ? `[${l.source}] ` : '';
  if (!wrap)
    return [
      [
        { t: time, c: 'dim' },
        { t: fit(src + l.text, width - time.length), c },
      ],
    ];
  return lineRows({ t: time, c: 'dim' }, src + l.text, c, width, true);
}

export function logLines(p: LogProps, width: number, height: number): Line[] {
  const shown = filterLog(p.lines, p.showAll, p.search);
  const body = Math.max(0, height - 1);
  const wrap = p.wrap === true;
  const win = wrap ? wrappedWindow(shown, (l) => eventRows(l, width, true), body, p.scroll) : null;
  const [start, end] = win ? [win.start, win.end] : window(shown.length, body, p.scroll);
  const mode = p.showAll ? 'all' : 'warnings+errors';
  const right = `${mode}${wrap ? ' · wrap' : ''}${p.search ? ` /${p.search}` : ''} ${shown.length ? `${start + 1}-${end}/${shown.length}` : '0'}${p.hint ? ` · ${p.hint}` : ''}`;
  const out: Line[] = [titleLine('Log', width, right)];
  if (shown.length === 0) {
    out.push([
      {
        t: p.search
          ? `no line matches '${p.search}'`
          : p.showAll
            ? 'no log lines yet'
            : `no warnings or errors (${keyOf('log-filter')}: all lines)`,
        c: 'dim',
      },
    ]);
    return out;
  }
  if (win) return [...out, ...win.rows];
  for (const l of shown.slice(start, end)) out.push(...eventRows(l, width, false));
  return out;
}

export interface TrainerLogProps {
  view: TrainerLinesView;
  /** Only warning and error lines (and table summaries are then left out). */
  problemsOnly: boolean;
  search: string;
  scroll: number;
  /** Long lines wrap onto more rows (w) instead of being cut with '…'. */
  wrap?: boolean;
}

// Filtering allocates only when a filter is on: the common frame (all lines) slices the ring view.
function filterTrainer(lines: readonly TrainerLine[], problemsOnly: boolean, search: string): readonly TrainerLine[] {
  if (!problemsOnly && !search) return lines;
  const needle = search.toLowerCase();
  return lines.filter(
    (l) => (!problemsOnly || l.level !== 'info') && (!needle || l.text.toLowerCase().includes(needle)),
  );
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
  const gap = p.view.startsMidLog
    ? MISSING_EARLIER
    : p.view.dropped > 0
      ? `… ${p.view.dropped} earlier lines dropped (the pane keeps the last ${p.view.lines.length})`
      : '';
  const g = gap ? 1 : 0;
  const wrap = p.wrap === true;
  const rowsOf = (i: number): Line[] => {
    if (g && i === 0) return [[{ t: fitCells(gap, width), c: 'dim' }]];
    const l = lines[i - g];
    const c: Seg['c'] = l.level === 'error' ? 'bad' : l.level === 'warning' ? 'warn' : l.kind ? 'dim' : undefined;
    return lineRows(null, compactHeader(l.text), c, width, wrap);
  };
  const body = Math.max(0, height - 1);
  // Wrapped, items are indexes (the gap line and the lines), each as many rows as it wraps to.
  const win =
    wrap && lines.length
      ? wrappedWindow(
          Array.from({ length: lines.length + g }, (_, i) => i),
          rowsOf,
          body,
          p.scroll,
        )
      : null;
  const [start, end] = win ? [win.start, win.end] : window(lines.length + g, body, p.scroll);
  const mode = p.problemsOnly ? 'warnings+errors' : 'all';
  const range = lines.length ? `${Math.max(0, start - g) + 1}-${end - g}/${lines.length}` : '0';
  const right = `trainer · ${mode}${wrap ? ' · wrap' : ''}${p.search ? ` /${p.search}` : ''} ${range} · L: events`;
  const out: Line[] = [titleLine('Log', width, right)];
  if (lines.length === 0) {
    if (gap) out.push([{ t: fitCells(gap, width), c: 'dim' }]);
    out.push([
      {
        t: p.search
          ? `no line matches '${p.search}'`
          : p.problemsOnly
            ? `no warnings or errors (${keyOf('log-filter')}: all lines)`
            : 'no trainer lines yet',
        c: 'dim',
      },
    ]);
    return out;
  }
  if (win) return [...out, ...win.rows];
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
  /** Long lines wrap (w) instead of being cut. */
  logWrap?: boolean;
}

/** The pane as the dashboard and the Log screen show it: the trainer's lines when the session has
 *  them and the user has not switched to the event view (L). */
export function logPaneLines(run: RunView, ui: LogPaneUi, width: number, height: number): Line[] {
  if (run.trainerLines && ui.logView === 'trainer')
    return trainerLogLines(
      {
        view: run.trainerLines,
        problemsOnly: ui.trainerProblemsOnly,
        search: ui.logSearch,
        scroll: ui.logScroll,
        wrap: ui.logWrap,
      },
      width,
      height,
    );
  return logLines(
    {
      lines: run.log,
      showAll: ui.logAll,
      search: ui.logSearch,
      scroll: ui.logScroll,
      hint: run.trainerLines ? `${keyOf('log-view')}: trainer` : undefined,
      wrap: ui.logWrap,
    },
    width,
    height,
  );
}

/** The lines the pane would list (its view and filters), for keeping a scrolled-back pane still. */
export function logPaneShown(run: RunView, ui: LogPaneUi): readonly { seq: number }[] {
  if (run.trainerLines && ui.logView === 'trainer')
    return filterTrainer(run.trainerLines.lines, ui.trainerProblemsOnly, ui.logSearch);
  return filterLog(run.log, ui.logAll, ui.logSearch);
}

/** How many of `shown` came after the line numbered `seq` (scanned from the newest end). */
export function countAfter(shown: readonly { seq: number }[], seq: number): number {
  let n = 0;
  for (let i = shown.length - 1; i >= 0 && shown[i].seq > seq; i--) n++;
  return n;
}
