// Builders for synthetic trainer output in the exact shape AReaL's logging writes it (colour
// codes included), for cases the run-a fixture does not cover.
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { TrainerLogParser } from '../../src/trainer-log/index.js';

const ESC = '\x1b';
export function rec(stamp: string, logger: string, level: string, message: string): string {
  return `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[37m${stamp} ${logger} ${level}: ${message}${ESC}[0m`;
}

/** A fancy_grid stats table like AReaL's tabulate_stats (4 pairs a row, column-major keys). */
export function table(stats: [string, string][], cols = 4): string {
  const rows = Math.ceil(stats.length / cols);
  const grid: string[][] = [];
  for (let i = 0; i < rows; i++) {
    const row: string[] = [];
    for (let j = 0; j < cols; j++) {
      const it = stats[j * rows + i];
      row.push(it ? it[0] : '', it ? it[1] : '');
    }
    grid.push(row);
  }
  const w = grid[0].map((_, c) => Math.max(...grid.map((r) => r[c].length)));
  const rule = (l: string, m: string, r: string) => l + w.map((x) => '═'.repeat(x + 2)).join(m) + r;
  const mid = '├' + w.map((x) => '─'.repeat(x + 2)).join('┼') + '┤';
  const lines = [rule('╒', '╤', '╕')];
  grid.forEach((r, i) => {
    lines.push('│' + r.map((c, k) => ' ' + (k % 2 ? c.padStart(w[k]) : c.padEnd(w[k])) + ' ').join('│') + '│');
    if (i < grid.length - 1) lines.push(mid);
  });
  lines.push(rule('╘', '╧', '╛'));
  return lines.join('\n');
}

export function stepRecords(stamp: string, g: number, stats: [string, string][], prefix = ''): string {
  return [
    prefix + rec(stamp, 'StatsLogger', 'INFO', `Epoch 1/2 Step ${g}/10 Train step ${g}/20 done.`),
    prefix + rec(stamp, 'StatsLogger', 'INFO', 'Stats (1/1):'),
    // The table record's message starts with a newline; the colour reset comes after the table.
    prefix + `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${stamp} StatsLogger INFO: `,
    table(stats) + `${ESC}[0m`,
  ].join('\n');
}

export function parseAll(text: string | Uint8Array, chunkSizes?: number[]): TrainerEvent[] {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const p = new TrainerLogParser();
  const out: TrainerEvent[] = [];
  if (!chunkSizes) {
    out.push(...p.push(bytes));
  } else {
    let at = 0;
    for (const n of chunkSizes) {
      out.push(...p.push(bytes.subarray(at, at + n)));
      at += n;
    }
    out.push(...p.push(bytes.subarray(at)));
  }
  out.push(...p.end());
  return out;
}
