// Log pane: warnings and errors by default, everything on a key, with search. Scrolls from the
// bottom (newest); `scroll` is how many lines up from the end.
import { fit } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { LogLine } from '../session/types.js';

export interface LogProps {
  lines: LogLine[];
  showAll: boolean;
  search: string;
  scroll: number;
}

export function filterLog(lines: LogLine[], showAll: boolean, search: string): LogLine[] {
  const needle = search.toLowerCase();
  return lines.filter((l) => (showAll || l.level !== 'info') && (!needle || l.text.toLowerCase().includes(needle)));
}

export function logLines(p: LogProps, width: number, height: number): Line[] {
  const shown = filterLog(p.lines, p.showAll, p.search);
  const body = Math.max(0, height - 1);
  const end = Math.max(0, shown.length - Math.max(0, p.scroll));
  const start = Math.max(0, end - body);
  const mode = p.showAll ? 'all' : 'warnings+errors';
  const right = `${mode}${p.search ? ` /${p.search}` : ''} ${shown.length ? `${start + 1}-${end}/${shown.length}` : '0'}`;
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
