// Config screen: the YAML as a tree (value, type, origin), live diagnostics, the diff against the
// file, the overrides; plus the launch confirmation that shows the exact argv.
import { hintLine } from '../bindings.js';
import { cell, fit, fitMiddle, wrap } from '../format.js';
import { lineText, titleLine, type Line, type Seg } from '../lines.js';
import type { ConfigView, PreflightPhase } from '../../session/types.js';
import { preflightLines } from './preflight.js';
import { settledByPreflight } from '../../preflight/settled.js';

export interface ConfigUi {
  cursor: number;
  /** The value being edited for the selected key. */
  editing: { key: string; text: string } | null;
  /** An override being typed. */
  adding: string | null;
}

export const WIDE_CONFIG_WIDTH = 120;

function treeLines(c: ConfigView, ui: ConfigUi, width: number, height: number): Line[] {
  const out: Line[] = [];
  const typeW = 8;
  const originW = Math.min(18, Math.max(8, Math.floor(width / 6)));
  const mainW = Math.max(10, width - typeW - originW - 2);
  const body = Math.max(1, height);
  const start = Math.max(0, Math.min(ui.cursor - Math.floor(body / 2), c.rows.length - body));
  c.rows.slice(start, start + body).forEach((r, i) => {
    const selected = start + i === ui.cursor;
    const indent = '  '.repeat(r.depth);
    if (!r.leaf) {
      out.push([{ t: cell(`${indent}${r.label}:`, mainW), bold: true, inverse: selected }]);
      return;
    }
    const editing = selected && ui.editing && ui.editing.key === r.key;
    const label = `${indent}${r.label}: `;
    const valueW = Math.max(1, mainW - label.length);
    const value: Seg = editing
      ? { t: cell(`${ui.editing!.text}▏`, valueW), c: 'warn', bold: true }
      : { t: cell(r.value, valueW), c: r.origin.startsWith('override') ? 'accent' : undefined };
    out.push([
      { t: label, inverse: selected && !editing },
      value,
      { t: ' ' + cell(r.type, typeW), c: 'dim' },
      { t: ' ' + cell(r.origin, originW - 1), c: r.origin.startsWith('override') ? 'accent' : 'dim' },
    ]);
  });
  return out;
}

function sideLines(c: ConfigView, width: number, preflight: PreflightPhase | undefined, selectedOverride = -1): Line[] {
  const out: Line[] = [];
  // A warning the target answered (pre-flight found a relative actor.path there) is not a problem.
  const settled =
    preflight?.phase === 'done'
      ? c.diagnostics.filter((d) => d.severity === 'warning' && settledByPreflight(d, preflight.checks))
      : [];
  const shown = c.diagnostics.filter((d) => !settled.includes(d));
  const errors = shown.filter((d) => d.severity === 'error').length;
  const warnings = shown.length - errors;
  out.push(
    titleLine(
      'Diagnostics',
      width,
      `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`,
    ),
  );
  if (shown.length === 0) out.push([{ t: 'no problems found', c: 'good' }]);
  for (const d of settled) {
    const text = wrap(
      `${d.key ?? d.code}: found on ${preflight?.phase === 'done' ? preflight.target : 'the target'} by pre-flight (${d.code} does not apply)`,
      width - 6,
      3,
    );
    text.forEach((t, i) =>
      out.push([
        { t: i === 0 ? 'ok    ' : '      ', c: 'good' },
        { t, c: 'dim' },
      ]),
    );
  }
  for (const d of [...shown].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1))) {
    const text = wrap(`${d.where} ${d.code}: ${d.message}`, width - 6, 4);
    text.forEach((t, i) =>
      out.push([
        {
          t: i === 0 ? (d.severity === 'error' ? 'error ' : 'warn  ') : '      ',
          c: d.severity === 'error' ? 'bad' : 'warn',
          bold: true,
        },
        { t },
      ]),
    );
  }
  if (preflight && preflight.phase !== 'idle') {
    out.push(titleLine('Pre-flight', width, preflight.phase === 'done' ? preflight.target : ''));
    out.push(...preflightLines(preflight, c.overrides, width));
  }
  out.push(titleLine('Diff against the file', width, `${c.diff.length}`));
  if (c.diff.length === 0) out.push([{ t: 'no changes', c: 'dim' }]);
  for (const d of c.diff) {
    const key = fit(`${d.key}: `, Math.max(8, width - 12));
    const before = fit(d.before, Math.max(3, Math.floor((width - key.length - 3) / 2)));
    out.push([
      { t: key },
      { t: before, c: 'bad' },
      { t: ' → ' },
      { t: fit(d.after, Math.max(1, width - key.length - before.length - 3)), c: 'good' },
    ]);
  }
  out.push(titleLine('Overrides', width, `${c.overrides.length}`));
  c.overrides.forEach((o, i) => {
    // An override the config could not take (it does not parse, its key does not exist) is marked
    // with why; every one can be selected (j k past the keys) and removed with x.
    const problem = c.diagnostics.find((d) => d.severity === 'error' && d.where.startsWith(`override ${i + 1} `));
    const text = `${problem ? '✖' : ' '} ${i + 1}. ${o}${problem ? `  ${problem.code}: ${problem.message}` : ''}`;
    out.push([{ t: fit(text, width), c: problem ? 'bad' : 'accent', inverse: i === selectedOverride }]);
  });
  return out;
}

export function configLines(
  c: ConfigView | null,
  ui: ConfigUi,
  width: number,
  height: number,
  preflight?: PreflightPhase,
): { left: Line[]; right: Line[] | null; leftWidth: number } {
  if (!c)
    return {
      left: [
        titleLine('Config', width),
        [{ t: 'No config loaded: start the cockpit with --config FILE [OVERRIDE…].', c: 'dim' }],
      ],
      right: null,
      leftWidth: width,
    };
  // In the wide layout the head sits in the left column: it is laid out for that width (a title
  // or hint made for the whole width would be cut, and run on into the side panel).
  const wide = width >= WIDE_CONFIG_WIDTH;
  const headW = wide ? Math.floor(width * 0.55) : width;
  const head: Line[] = [
    titleLine(
      fitMiddle(`Config ${c.fileName}`, Math.max(8, headW - 26)),
      headW,
      `${c.overrides.length} override(s)${c.target ? ' → ' + c.target : ''}`,
    ),
    ui.adding !== null
      ? [
          { t: 'add override: ', c: 'accent', bold: true },
          { t: `${ui.adding}▏`, c: 'warn' },
          { t: '  Enter add · Ctrl-c cancel', c: 'dim' },
        ]
      : ui.editing
        ? [
            { t: `edit ${ui.editing.key}: `, c: 'accent', bold: true },
            { t: `${ui.editing.text}▏`, c: 'warn' },
            { t: '  Enter set · Ctrl-c cancel', c: 'dim' },
          ]
        : [{ t: hintLine('config', headW - 1), c: 'dim' }],
  ];
  if (wide) {
    const leftWidth = headW;
    const left = [...head.map((l) => l), ...treeLines(c, ui, leftWidth, height - head.length)];
    return { left, right: sideLines(c, width - leftWidth - 1, preflight, ui.cursor - c.rows.length), leftWidth };
  }
  const side = sideLines(c, width, preflight, ui.cursor - c.rows.length);
  const sideH = Math.min(side.length, Math.max(4, Math.floor((height - head.length) * 0.4)));
  const tree = treeLines(c, ui, width, height - head.length - sideH);
  // With an override selected the side rows start at the Overrides list, so the selection shows.
  const from =
    ui.cursor >= c.rows.length
      ? Math.max(
          0,
          side.findIndex((l) => lineText(l).startsWith('─ Overrides')),
        )
      : 0;
  return { left: [...head, ...tree, ...side.slice(from, from + sideH)], right: null, leftWidth: width };
}

/** The argv as rows: one element per row, a long element wrapped (never cut: every character of
 *  what will run can be read), its continuation rows indented further. */
export function argvRows(argv: readonly string[], width: number): Line[] {
  const out: Line[] = [];
  const first = Math.max(1, width - 2);
  const rest = Math.max(1, width - 6);
  for (const a of argv) {
    out.push([{ t: '  ' + a.slice(0, first) }]);
    for (let i = first; i < a.length; i += rest) out.push([{ t: '    ↳ ', c: 'dim' }, { t: a.slice(i, i + rest) }]);
  }
  return out;
}

/** How far the confirmation's argv can scroll at this size (0: it fits). */
export function argvScrollMax(
  c: ConfigView,
  width: number,
  preflight: PreflightPhase | undefined,
  height: number,
): number {
  const { rows, room } = confirmLayout(c, width, preflight, height);
  return rows.length > room ? rows.length - room : 0;
}

function secretLines(c: ConfigView): Line[] {
  const secrets: Line[] = [];
  if (c.secrets.length) {
    secrets.push([{ t: 'secrets sent on stdin (names only):', c: 'dim' }]);
    for (const s of c.secrets)
      secrets.push([
        { t: `  ${s.name} `, bold: true },
        {
          t: s.present ? 'set' : s.required ? 'MISSING' : 'not set',
          c: s.present ? 'good' : s.required ? 'bad' : 'dim',
        },
      ]);
  }
  return secrets;
}

function preflightSection(c: ConfigView, width: number, preflight: PreflightPhase | undefined): Line[] {
  return [
    titleLine('Pre-flight', width, preflight?.phase === 'done' ? preflight.target : ''),
    ...preflightLines(preflight ?? { phase: 'running', target: c.target ?? '' }, c.overrides, width),
  ];
}

/** The argv rows and how many of them fit between the title, its head line, the secrets, the
 *  pre-flight and the key line (at least 2: a huge pre-flight does not hide the argv entirely). */
function confirmLayout(
  c: ConfigView,
  width: number,
  preflight: PreflightPhase | undefined,
  height: number,
): { rows: Line[]; room: number } {
  const rows = argvRows(c.argv, width);
  const fixed = 1 + 1 + secretLines(c).length + preflightSection(c, width, preflight).length + autoResumeRows(c) + 1;
  return { rows, room: Math.max(2, height - fixed) };
}

/** The auto-resume line: a Slurm target's only (`a` is disabled, with its reason, for any other). */
const autoResumeRows = (c: ConfigView): number => (c.targetBackend === 'slurm' ? 1 : 0);

function autoResumeLine(n: number, width: number): Line {
  const what = n > 0 ? `up to ${n} resubmission${n === 1 ? '' : 's'}` : 'off';
  const why = ' after TIMEOUT, PREEMPTED or NODE_FAIL (--auto-resume)';
  return [
    { t: 'auto-resume: ', c: 'dim' },
    { t: what, c: n > 0 ? 'good' : undefined, bold: n > 0 },
    { t: '   ' },
    { t: 'a', bold: true },
    { t: fit(` changes${why}`, Math.max(0, width - 13 - what.length - 4)) },
  ];
}

/** The launch confirmation: the exact argv (secrets by name only), the pre-flight, and what the keys do.
 *  Never taller than `height`: when the argv does not fit it scrolls (`argvScroll`, j k ↑ ↓ PgUp
 *  PgDn), its head line says which rows are shown; the key line always stays. */
export function confirmLaunchLines(
  c: ConfigView,
  width: number,
  preflight?: PreflightPhase,
  height = Infinity,
  argvScroll = 0,
  autoResume = 0,
): Line[] {
  const out: Line[] = [titleLine('Launch?', width, c.target ?? '')];
  if (c.hasErrors) {
    out.push([{ t: 'The config has errors: fix them first (see Diagnostics).', c: 'bad', bold: true }]);
    out.push([{ t: 'Press any key to go back.', c: 'dim' }]);
    return out;
  }
  const secrets = secretLines(c);
  const pf = preflightSection(c, width, preflight);
  let keys: Line;
  if (!preflight || preflight.phase === 'running' || preflight.phase === 'idle')
    keys = [{ t: 'waiting for the pre-flight…  ', c: 'warn' }, { t: 'n', bold: true, c: 'bad' }, { t: ' cancel' }];
  else if (preflight.unskippable)
    // S cannot lift it (the launch itself refuses): never offered; the reason above says what to do.
    keys = [
      {
        t: fit('refused: a run of this trial is active  ', width - 'p run again   n cancel'.length),
        c: 'bad',
        bold: true,
      },
      { t: 'p', bold: true },
      { t: ' run again   ' },
      { t: 'n', bold: true, c: 'bad' },
      { t: ' cancel' },
    ];
  else if (preflight.blocked) {
    // The longest wording that fits: every key must stay named (n cancel last, so cut first).
    const [head, why] = [
      ['blocked by the pre-flight  ', ' launch anyway (skips it; recorded in run.json)   '],
      ['blocked by the pre-flight  ', ' launch anyway   '],
      ['blocked  ', ' launch anyway  '],
    ].find(([h, w]) => h.length + 1 + w.length + 'p run again   n cancel'.length <= width) ?? [
      'blocked  ',
      ' launch anyway  ',
    ];
    keys = [
      { t: head, c: 'bad', bold: true },
      { t: 'S', bold: true, c: 'warn' },
      { t: why },
      { t: 'p', bold: true },
      { t: ' run again   ' },
      { t: 'n', bold: true, c: 'bad' },
      { t: ' cancel' },
    ];
  } else
    keys = [
      { t: 'y', bold: true, c: 'good' },
      { t: ' launch   ' },
      { t: 'p', bold: true },
      { t: ' run the pre-flight again   ' },
      { t: 'n', bold: true, c: 'bad' },
      { t: ' cancel' },
    ];
  const { rows, room } = confirmLayout(c, width, preflight, height);
  if (rows.length <= room) out.push([{ t: 'argv (one element per line):', c: 'dim' }], ...rows);
  else {
    // Scrolled: the head line says which rows are shown and how to see the others.
    const top = Math.max(0, Math.min(argvScroll, rows.length - room));
    const end = top + room;
    const where = `argv rows ${top + 1}-${end} of ${rows.length}`;
    const more = `${top > 0 ? '↑' : ''}${end < rows.length ? '↓' : ''} more: j k ↑ ↓ PgUp PgDn scroll`;
    out.push(
      [
        {
          t: fit(
            `${where} (one element per line) · ${more}`.length <= width
              ? `${where} (one element per line) · ${more}`
              : `${where} · ${more}`,
            width,
          ),
          c: 'warn',
        },
      ],
      ...rows.slice(top, end),
    );
  }
  // The key line is pinned: at 80×24 a long pre-flight would push it off the screen, so what is
  // above it gives way (the pre-flight's last line, its summary, stays).
  const below = [...secrets, ...pf];
  const budget = height - out.length - 1 - autoResumeRows(c);
  if (below.length > budget && budget >= 2) {
    const hidden = below.length - (budget - 1);
    const head = below.slice(0, budget - 2);
    out.push(
      ...head,
      [
        {
          t: fit(
            `… ${hidden} more row${hidden === 1 ? '' : 's'} of the pre-flight: enlarge the terminal to read them`,
            width,
          ),
          c: 'dim',
        },
      ],
      below.at(-1)!,
    );
  } else out.push(...below.slice(0, Math.max(0, budget)));
  if (autoResumeRows(c)) out.push(autoResumeLine(autoResume, width));
  out.push(keys);
  return out;
}
