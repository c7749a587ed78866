// The Trajectories screen (pure): a run's dumped episodes, drilled into level by level:
// versions → a version's GRPO groups (the n samples of one task side by side) → an episode's steps →
// one step. The episodes and a record's steps are loaded by src/session; this only draws them.
// Two sections: train episodes by policy version (rollout/) and eval episodes by model step
// (test-rollout/). One step shows its text and its screenshot in half-block cells (shot-lines.ts).
import {
  baseName,
  FILTER_LABEL,
  groupsOf,
  matches,
  type DumpKind,
  type EpisodeFilter,
  type EpisodeSummary,
  type GrpoGroup,
  type StepView,
} from '../../episodes/index.js';
import { clipLine, type Line } from '../lines.js';
import { shotLines, type ShotBytes, type ShotDrawing } from './shot-lines.js';
import type { KittyShots } from './kitty-shots.js';

export type TrajLevel = 'versions' | 'groups' | 'steps' | 'step';

export interface TrajView {
  /** null: not loaded yet; a string: why the listing failed (said as is). */
  episodes: readonly EpisodeSummary[] | null;
  problem: string | null;
  sizes: ReadonlyMap<string, number>;
  filter: EpisodeFilter;
  /** The section: train episodes (by policy version) or eval episodes (by model step). */
  kind: DumpKind;
  /** A version asked for by number (from an alert's or a Reward point's step), not yet resolved to
   *  a place in the list: the newest dumped version at or before it, else the nearest. */
  want: number | null;
  level: TrajLevel;
  version: number;
  group: number;
  episode: number;
  step: number;
  /** The selected episode's steps (null: loading), or why the record could not be read. */
  steps: readonly StepView[] | null;
  stepsProblem: string | null;
  /** The selected episode's screenshots by path, as they arrive. */
  shots: ReadonlyMap<string, ShotBytes>;
}

export const emptyTraj = (): TrajView => ({
  episodes: null,
  problem: null,
  sizes: new Map(),
  filter: 'all',
  kind: 'train',
  want: null,
  level: 'versions',
  version: 0,
  group: 0,
  episode: 0,
  step: 0,
  steps: null,
  stepsProblem: null,
  shots: new Map(),
});

/** What a section's directories are numbered by. */
export const KIND_UNIT: Record<DumpKind, string> = { train: 'version', eval: 'model step' };

/** The section's versions present after the filter, newest first. */
export function versionsOf(v: TrajView): number[] {
  const eps = (v.episodes ?? []).filter((e) => e.kind === v.kind && matches(e, v.filter, v.sizes));
  return [...new Set(eps.map((e) => e.version))].sort((a, b) => b - a);
}

/** Where `want` lands among `versions` (newest first): the newest at or before it, else the oldest. */
export function versionIndexFor(versions: readonly number[], want: number): number {
  const at = versions.findIndex((x) => x <= want);
  return at >= 0 ? at : Math.max(0, versions.length - 1);
}

/** The selected version's groups, each keeping only the episodes the filter lets through. */
export function groupsAt(v: TrajView): GrpoGroup[] {
  const version = versionsOf(v)[v.version];
  if (version === undefined) return [];
  const eps = (v.episodes ?? []).filter(
    (e) => e.kind === v.kind && e.version === version && matches(e, v.filter, v.sizes),
  );
  return groupsOf(eps);
}

export function selectedEpisode(v: TrajView): EpisodeSummary | null {
  return groupsAt(v)[v.group]?.episodes[v.episode] ?? null;
}

const r2 = (x: number | null) => (x === null ? '?' : x.toFixed(2));
const q = (x: number | null) => (x === null ? '?' : String(x));
const yes = (b: boolean | null, word: string) => (b === null ? `${word}?` : b ? word : '');

function versionLines(v: TrajView): Line[] {
  const all = v.episodes ?? [];
  return versionsOf(v).map((ver, i) => {
    const eps = all.filter((e) => e.kind === v.kind && e.version === ver && matches(e, v.filter, v.sizes));
    const rewards = eps.map((e) => e.reward).filter((r): r is number => r !== null);
    const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
    const groups = new Set(eps.map((e) => e.taskId)).size;
    const t = `${KIND_UNIT[v.kind]} ${ver}  ${eps.length} episodes  ${groups} groups  mean reward ${r2(mean)}`;
    return [{ t: `${i === v.version ? '>' : ' '} ${t}`, inverse: i === v.version }];
  });
}

function episodeCell(e: EpisodeSummary): string {
  if (e.problem !== null) return `ep${e.episodeIdx} unreadable`;
  const flags = [yes(e.timedOut, 'timeout'), yes(e.isBlocked, 'blocked')].filter(Boolean).join(' ');
  return `ep${e.episodeIdx} r=${r2(e.reward)} ${q(e.nSteps)}st${flags ? ' ' + flags : ''}`;
}

function groupLines(v: TrajView): Line[] {
  return groupsAt(v).map((g, i) => {
    const here = i === v.group;
    const segs = [{ t: `${here ? '>' : ' '} ${g.taskId}  ` }];
    g.episodes.forEach((e, j) =>
      segs.push({ t: `[${episodeCell(e)}]`, ...(here && j === v.episode ? { inverse: true } : {}) }, { t: ' ' }),
    );
    return segs;
  });
}

function stepLine(s: StepView, here: boolean): Line {
  const page = s.title ?? s.url ?? 'page unknown';
  return [
    { t: `${here ? '>' : ' '} step ${s.idx}  ${s.actionString ?? s.actionKey ?? 'no action'}  ${page}`, inverse: here },
  ];
}

/** webgym gives a step no reward of its own (WW:1027: every step's stays 0, "In progress"). */
const PER_STEP = 'per-step reward: not in the dump (webgym leaves every steps[*].reward at 0)';

export interface TrajDraw {
  width: number;
  height: number;
  /** Colours on (the screenshot's cells need them). */
  colors: boolean;
  /** Screenshots through kitty's placeholders (the terminal has kitty graphics); half-blocks without. */
  kitty?: KittyShots | null;
  /** How screenshots are drawn here (absent: half-blocks, unsaid). */
  drawing?: ShotDrawing;
}

function stepsLines(v: TrajView, e: EpisodeSummary, d: TrajDraw): Line[] {
  const head = `${e.taskId} ep${e.episodeIdx}  reward ${r2(e.reward)}  ${q(e.nSteps)} steps`;
  const flags = [yes(e.timedOut, 'timed out'), yes(e.isBlocked, 'blocked')].filter(Boolean).join(', ');
  const top: Line = [{ t: head + (flags ? `  (${flags})` : ''), bold: true }];
  if (v.stepsProblem !== null) return [top, [{ t: `steps: ${v.stepsProblem}`, c: 'bad' }]];
  if (v.steps === null) return [top, [{ t: 'reading the record…', c: 'dim' }]];
  if (v.level === 'steps')
    return [
      top,
      [{ t: `reward ${r2(e.reward)} is the episode's; ${PER_STEP}`, c: 'dim' }],
      ...v.steps.map((s, i) => stepLine(s, i === v.step)),
    ];
  const s = v.steps[v.step];
  if (!s) return [top, [{ t: 'no such step', c: 'dim' }]];
  const click = s.click ? ` at (${s.click.x}, ${s.click.y}) on the 0-1000 grid` : '';
  const text: Line[] = [
    top,
    `step ${s.idx} of ${v.steps.length}: ${s.actionKey ?? 'no action'}${click}  ${s.actionString ?? ''}`,
    `page: ${[s.title, s.url].filter(Boolean).join(' — ') || 'no title or URL recorded'}`,
    `reward: episode ${r2(e.reward)}; ${PER_STEP}`,
    `thought: ${s.thought ?? 'none'}`,
  ];
  if (s.shot === null) return [...text, [{ t: '[screenshot: the step names none]', c: 'dim' }]];
  const rows = Math.max(1, d.height - 1 - text.length - 1);
  const shot = v.shots.get(s.shot);
  const area = { cols: d.width, rows, click: s.click, colors: d.colors };
  // The way it is drawn first: the file name is long, and a narrow terminal cuts the line's end.
  const name: Line = [{ t: (d.drawing ? `${d.drawing.note} · ` : '') + baseName(s.shot), c: 'dim' }];
  if (d.drawing?.draw === 'none') return [...text, [{ t: '[screenshot: not drawn]', c: 'dim' }], name];
  const picture = d.kitty && d.colors && shot?.ok ? d.kitty.lines(s.shot, shot, area) : shotLines(s.shot, shot, area);
  return [...text, ...picture, name];
}

function titleOf(v: TrajView): Line {
  const tab = (k: DumpKind, t: string) => ({ t, ...(v.kind === k ? { inverse: true, bold: true } : {}) });
  const ver = versionsOf(v)[v.version];
  const asked = v.want !== null && ver !== undefined && ver !== v.want ? ` (none dumped at ${v.want})` : '';
  const where = v.level !== 'versions' && ver !== undefined ? `  ${KIND_UNIT[v.kind]} ${ver}${asked}` : '';
  return [
    { t: 'Trajectories  ', bold: true },
    tab('train', 'train'),
    { t: ' ' },
    tab('eval', 'eval'),
    { t: `  filter: ${FILTER_LABEL[v.filter]}${where}`, bold: true },
  ];
}

export function trajectoriesLines(v: TrajView, d: TrajDraw): Line[] {
  let body: Line[];
  if (v.problem !== null) body = [[{ t: v.problem, c: 'bad' }]];
  else if (v.episodes === null) body = [[{ t: 'listing the dumps…', c: 'dim' }]];
  else if (v.level === 'versions') {
    const none = `no ${v.kind} episodes pass this filter${v.kind === 'eval' ? ' (eval episodes are dumped under test-rollout/)' : ''}`;
    body = versionLines(v).length ? versionLines(v) : [[{ t: none, c: 'dim' }]];
  } else if (v.level === 'groups') body = groupLines(v);
  else {
    const e = selectedEpisode(v);
    body = e ? stepsLines(v, e, d) : [[{ t: 'no episode selected', c: 'dim' }]];
  }
  return [titleOf(v), ...body].slice(0, d.height).map((l) => clipLine(l, d.width));
}
