// The help overlay: every binding of the one table (bindings.ts), grouped by where it applies.
// Descriptions wrap rather than being cut; when the list is longer than the screen (80x24 and
// smaller) it scrolls under a fixed title, and the last row says there is more, so no key is out of reach.
import { BINDINGS, keyLabel, type Scope } from '../bindings.js';
import { cell, wrap } from '../format.js';
import { textCells } from '../text-width.js';
import { titleLine, type Line } from '../lines.js';
import { rlHealthDefinitions } from './rl-health.js';

// The key column is as wide as the longest label plus a gap, so "↑ ↓ k j PgUp PgDn" never runs into its text.
const KEY_COL = Math.max(17, ...BINDINGS.map((b) => textCells(keyLabel(b)) + 1));
const SCOPE_TITLES: Record<Scope, string> = {
  global: 'everywhere',
  runs: 'runs',
  dashboard: 'dashboard',
  log: 'log',
  config: 'config',
  eval: 'eval',
  health: 'RL health',
  trajectories: 'trajectories',
  help: 'help',
  history: 'alert history',
  launch: 'launch confirmation',
  leftovers: 'leftover processes',
  input: 'while typing',
  login: "a server's login prompt",
};

/** Every row of the help below its title, for `width` columns; `rlHealth`: opened on the RL health
 *  screen, whose figures' definitions follow the keys. */
export function helpRows(width: number, rlHealth = false): Line[] {
  // Each place once, in the table's order of first appearance.
  const groups = new Map<string, (typeof BINDINGS)[number][]>();
  for (const b of BINDINGS) {
    if (b.scopes.includes('help')) continue;
    const where = b.scopes.map((s) => SCOPE_TITLES[s]).join(', ');
    groups.set(where, [...(groups.get(where) ?? []), b]);
  }
  const out: Line[] = [];
  const textW = Math.max(10, width - KEY_COL - 2);
  for (const [where, list] of groups) {
    out.push([{ t: where, c: 'accent', bold: true }]);
    for (const b of list)
      wrap(b.description, textW).forEach((part, i) =>
        out.push([{ t: '  ' + cell(i === 0 ? keyLabel(b) : '', KEY_COL), bold: true }, { t: part }]),
      );
  }
  if (!rlHealth) return out;
  // What the RL health screen's figures mean (issue #32: each figure's definition on `?`).
  out.push([{ t: 'RL health figures (6)', c: 'accent', bold: true }]);
  for (const d of rlHealthDefinitions())
    wrap(`${d.label}: ${d.definition} (${d.source})`, Math.max(10, width - 6)).forEach((part, i) =>
      out.push(i === 0 ? `  ${part}` : `    ${part}`),
    );
  return out;
}

/** How far the help can scroll in `height` rows (title and footer included). */
export function helpScrollMax(width: number, height: number, rlHealth = false): number {
  return Math.max(0, helpRows(width, rlHealth).length - Math.max(1, height - 2));
}

export function helpLines(width: number, height = Infinity, scroll = 0, rlHealth = false): Line[] {
  const rows = helpRows(width, rlHealth);
  const room = Math.max(1, height - 2);
  if (rows.length <= room)
    return [titleLine('Help — keys', width), ...rows, [{ t: 'Press any key to close.', c: 'dim' }]];
  const top = Math.max(0, Math.min(scroll, rows.length - room));
  const end = top + room;
  const footer =
    end < rows.length
      ? `↓ more (${top + 1}-${end}/${rows.length}) · ↑↓ PgUp PgDn scroll · other keys close`
      : 'Press any key to close. (↑ PgUp: back up)';
  return [titleLine('Help — keys', width), ...rows.slice(top, end), [{ t: footer, c: 'dim' }]];
}
