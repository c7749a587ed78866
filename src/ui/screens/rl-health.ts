// The RL health screen (6): the health of async GRPO for a web agent, grouped by question, each
// figure with its source key (and its one-line definition where the terminal is wide; all of them
// in the help, `?`), the early-warning rules first. Pure: (view, width, height) → lines.
import {
  NOT_IN_LOG,
  rlHealthGroups,
  type HealthGroup,
  type RlWarning,
  type StatSource,
} from '../../metrics/rl-health.js';
import type { RunView } from '../../session/types.js';
import { cell, fitMiddle } from '../format.js';
import { clipLine, titleLine, type Line } from '../lines.js';

const LABEL = 26;
const VALUE = 34;
/** Narrower columns under WITH_DEFINITIONS, so the source key keeps its distinctive end. */
const NARROW_LABEL = 24;
const NARROW_VALUE = 26;
/** Wide enough for the definitions beside the source keys. */
const WITH_DEFINITIONS = 150;

export function rlHealthLines(
  rl: { groups: HealthGroup[]; warnings: RlWarning[]; step: number | null } | undefined,
  width: number,
  height: number,
): Line[] {
  const title = titleLine('RL health', width, rl?.step != null ? `step ${rl.step}` : '');
  if (rl === undefined) return [title, [{ t: 'The stats of this run are not known here.', c: 'dim' }]];
  const out: Line[] = [title];
  if (rl.warnings.length === 0)
    out.push([{ t: 'no early warning (behaviour weight, entropy, failure length)', c: 'dim' }]);
  for (const w of rl.warnings) out.push([{ t: `⚠ ${w.title}: `, c: 'warn', bold: true }, { t: w.detail }]);
  const defs = width >= WITH_DEFINITIONS;
  const labelW = defs ? LABEL : NARROW_LABEL;
  // Between 80 and 150 columns the room the source keys do not need goes to the values (a tier's
  // three rewards, the action mix), which are cut first otherwise.
  const longestKey = Math.max(0, ...rl.groups.flatMap((g) => g.figures.map((f) => f.source.length)));
  const spare = width - 2 - labelW - 1 - 1 - longestKey;
  const valueW = defs ? VALUE : Math.max(NARROW_VALUE, spare);
  const keyW = Math.max(8, width - 2 - labelW - 1 - valueW - 1);
  for (const g of rl.groups) {
    out.push([{ t: g.question, c: 'title', bold: true }]);
    for (const f of g.figures) {
      const missing = f.text === NOT_IN_LOG;
      out.push([
        { t: '  ' + cell(f.label, labelW) + ' ' },
        {
          t: cell(f.text, valueW) + ' ',
          ...(missing ? { c: 'dim' as const } : f.warn ? { c: 'warn' as const, bold: true } : {}),
        },
        { t: defs ? f.source : fitMiddle(f.source, keyW), c: 'dim' },
        ...(defs ? [{ t: `  ${f.definition}`, c: 'dim' as const }] : []),
      ]);
    }
  }
  if (!defs) out.push([{ t: '? lists what each figure means', c: 'dim' }]);
  return out.slice(0, Math.max(1, height)).map((l) => clipLine(l, width));
}

/** The RL health figures of a view's store (the figures, the warnings and the latest step). */
export function rlHealthOf(run: RunView | null) {
  return run?.rl;
}

/** Every figure's definition, for the help (`?`): what they mean does not depend on the run. */
export function rlHealthDefinitions(): { label: string; source: string; definition: string }[] {
  const none: StatSource = { has: () => false, latest: () => null, history: () => [], keys: () => [] };
  return rlHealthGroups(none, {}, { episodeTimeouts: 0, promptOverflows: 0 }).flatMap((g) =>
    g.figures.map((f) => ({ label: f.label, source: f.source, definition: f.definition })),
  );
}
