// Pure text helpers shared by the panels. Every function returns a string that fits the width it
// was given, so a panel can never push a frame wider than the terminal.
import { fitCells, isNarrow, padCells, textCells, wrapCells } from './text-width.js';
export { formatNumber } from '../metrics/format-number.js';

/** "4 s", "3 min 12 s", "2 h 05 min", "3 d 4 h"; '—' for unknown. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** Coarse ages for clock-driven text ("elapsed", "ETA", "last step … ago"): seconds only under a
 *  minute, so the text (and with it the frame) changes once a minute, not every second. */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export function formatPercent(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '—';
  return `${Math.round(share * 100)}%`;
}

/** Cut to `width` cells with an ellipsis (cells as text-width.ts counts them: 🚀 takes two). */
export function fit(text: string, width: number): string {
  return fitCells(text, width);
}

/** Cut in the middle to `width` columns: for names whose end tells them apart (run ids end in
 *  -YYYYMMDD-HHMMSS-xxxx, so cutting the end would make every run of an experiment look alike). */
export function fitMiddle(text: string, width: number): string {
  if (textCells(text) <= width) return text;
  if (width <= 2 || !isNarrow(text)) return fit(text, width);
  const head = Math.floor((width - 1) / 3);
  return text.slice(0, head) + '…' + text.slice(text.length - (width - 1 - head));
}

/** Cut or pad to exactly `width` columns. */
export function cell(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return padCells(text, width, align);
}

/** A horizontal bar of `width` cells filled to `share` (0..1), e.g. "█████░░░░░". */
export function bar(share: number, width: number): string {
  if (width <= 0) return '';
  const s = Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
  const full = Math.round(s * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

/** "last step …": its age (`12 s ago`), or, when its time is ahead of this clock by more than a
 *  tick (a simulator's log time, a head whose clock or time zone is ahead), the time itself as the
 *  log wrote it (`at 20:44:43`, with the date when not today): an age clamped to 0 would read
 *  "0 s ago" and never change. */
export function lastStepWhen(at: number | null, now: number): string {
  if (at === null || !Number.isFinite(at)) return '—';
  if (at <= now + 2000) return `${formatAge(Math.max(0, (now - at) / 1000))} ago`;
  const d = new Date(at);
  const n = new Date(now);
  const p2 = (v: number) => String(v).padStart(2, '0');
  const day =
    d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()
      ? ''
      : `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} `;
  return `at ${day}${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/** Compact duration for tight columns: "42s", "8m30s", "2h05m". */
export function formatShortDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Word-wrap to `width`, at most `maxLines` lines (the last one cut with an ellipsis). */
export function wrap(text: string, width: number, maxLines = Infinity): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (textCells(w) > width) {
      if (line) {
        out.push(line);
        line = '';
      }
      const [head, ...tail] = wrapCells(w, width);
      out.push(head);
      w = tail.join('');
    }
    if (!w) continue;
    if (!line) line = w;
    else if (textCells(line) + 1 + textCells(w) <= width) line += ' ' + w;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line) out.push(line);
  if (out.length > maxLines) {
    const kept = out.slice(0, maxLines);
    kept[maxLines - 1] = fit(kept[maxLines - 1] + ' ' + out[maxLines], width);
    if (!kept[maxLines - 1].endsWith('…')) kept[maxLines - 1] = fit(kept[maxLines - 1] + '…', width);
    return kept;
  }
  return out;
}

/** "03:20": epoch ms as the cockpit machine's local time of day. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** "05-24 03:20": with the day, for lists that span more than a day (a cockpit left open). */
export function dayClockTime(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${clockTime(ms)}`;
}
