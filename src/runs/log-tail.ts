// The last lines of a run's log, for saying why it failed (a run that dies at once, e.g. a wrong
// python, leaves no trainer record: only its shell's words). Pure.
import { stripAnsi } from '../trainer-log/index.js';

/** How many lines, and how many bytes of the log's end they are taken from. */
export const FAILURE_TAIL_LINES = 10;
export const FAILURE_TAIL_BYTES = 8 * 1024;
const MAX_LINE = 300;

/** The last `n` non-blank lines of `bytes` (the log's end), ANSI stripped, CR applied, each cut to
 *  300 characters; the first line is dropped when `bytes` starts mid-line. */
export function lastLogLines(bytes: Uint8Array, n = FAILURE_TAIL_LINES, startsMidLine = false): string[] {
  const lines = Buffer.from(bytes).toString('utf8').split('\n');
  if (startsMidLine) lines.shift();
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < n; i--) {
    // A carriage return redraws the line (progress bars): what is left after the last one shows.
    const cr = lines[i].replace(/\r+$/, '');
    const line = stripAnsi(cr.slice(cr.lastIndexOf('\r') + 1)).trimEnd();
    if (line.trim()) out.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
  }
  return out.reverse();
}
