// The Trajectories screen (pure): a run's dumped episodes, drilled into level by level:
// versions → a version's GRPO groups (the n samples of one task side by side) → an episode's steps →
// one step. The episodes and a record's steps are loaded by src/session; this only draws them.
// The step's screenshot is NOT drawn here: the cockpit's lines carry palette colours only (no
// per-cell 24-bit colour), so the step level shows the step's text and says where the picture is.
import {
  baseName,
  FILTER_LABEL,
  groupsOf,
  matches,
  type EpisodeFilter,
  type EpisodeSummary,
  type GrpoGroup,
  type StepView,
} from '../../episodes/index.js';
import { clipLine, type Line } from '../lines.js';

export type TrajLevel = 'versions' | 'groups' | 'steps' | 'step';

export interface TrajView {
  /** null: not loaded yet; a string: why the listing failed (said as is). */
  episodes: readonly EpisodeSummary[] | null;
  problem: string | null;
  sizes: ReadonlyMap<string, number>;
  filter: EpisodeFilter;
  level: TrajLevel;
  version: number;
  group: number;
  episode: number;
  step: number;
  /** The selected episode's steps (null: loading), or why the record could not be read. */
  steps: readonly StepView[] | null;
  stepsProblem: string | null;
}

export const emptyTraj = (): TrajView => ({
  episodes: null,
  problem: null,
  sizes: new Map(),
  filter: 'all',
  level: 'versions',
  version: 0,
  group: 0,
  episode: 0,
  step: 0,
  steps: null,
  stepsProblem: null,
});

/** The train versions present after the filter, newest first. */
export function versionsOf(v: TrajView): number[] {
  const eps = (v.episodes ?? []).filter((e) => e.kind === 'train' && matches(e, v.filter, v.sizes));
  return [...new Set(eps.map((e) => e.version))].sort((a, b) => b - a);
}

/** The selected version's groups, each keeping only the episodes the filter lets through. */
export function groupsAt(v: TrajView): GrpoGroup[] {
  const version = versionsOf(v)[v.version];
  if (version === undefined) return [];
  const eps = (v.episodes ?? []).filter(
    (e) => e.kind === 'train' && e.version === version && matches(e, v.filter, v.sizes),
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
    const eps = all.filter((e) => e.kind === 'train' && e.version === ver && matches(e, v.filter, v.sizes));
    const rewards = eps.map((e) => e.reward).filter((r): r is number => r !== null);
    const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
    const groups = new Set(eps.map((e) => e.taskId)).size;
    const t = `version ${ver}  ${eps.length} episodes  ${groups} groups  mean reward ${r2(mean)}`;
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

function stepsLines(v: TrajView, e: EpisodeSummary): Line[] {
  const head = `${e.taskId} ep${e.episodeIdx}  reward ${r2(e.reward)}  ${q(e.nSteps)} steps`;
  const flags = [yes(e.timedOut, 'timed out'), yes(e.isBlocked, 'blocked')].filter(Boolean).join(', ');
  const top: Line = [{ t: head + (flags ? `  (${flags})` : ''), bold: true }];
  if (v.stepsProblem !== null) return [top, [{ t: `steps: ${v.stepsProblem}`, c: 'bad' }]];
  if (v.steps === null) return [top, [{ t: 'reading the record…', c: 'dim' }]];
  if (v.level === 'steps') return [top, ...v.steps.map((s, i) => stepLine(s, i === v.step))];
  const s = v.steps[v.step];
  if (!s) return [top, [{ t: 'no such step', c: 'dim' }]];
  const show = `${e.taskId}/${e.episodeIdx} --step ${s.idx}`;
  return [
    top,
    `step ${s.idx}: ${s.actionString ?? s.actionKey ?? 'no action'}`,
    `click: ${s.click ? `${s.click.x},${s.click.y} (0-1000 grid)` : 'none'}`,
    `page: ${s.title ?? 'title unknown'}  ${s.url ?? 'url unknown'}`,
    `thought: ${s.thought ?? 'none'}`,
    `screenshot: ${s.shot === null ? 'none named' : `${baseName(s.shot)} (beside the record)`}`,
    [{ t: `not drawn in the cockpit; at a terminal: awrl-tui episodes RUN --show ${show}`, c: 'dim' }],
  ];
}

export function trajectoriesLines(v: TrajView, width: number, height: number): Line[] {
  const title: Line = [{ t: `Trajectories  filter: ${FILTER_LABEL[v.filter]}`, bold: true }];
  let body: Line[];
  if (v.problem !== null) body = [[{ t: v.problem, c: 'bad' }]];
  else if (v.episodes === null) body = [[{ t: 'listing the dumps…', c: 'dim' }]];
  else if (v.level === 'versions')
    body = versionLines(v).length ? versionLines(v) : [[{ t: 'no train episodes pass this filter', c: 'dim' }]];
  else if (v.level === 'groups') body = groupLines(v);
  else {
    const e = selectedEpisode(v);
    body = e ? stepsLines(v, e) : [[{ t: 'no episode selected', c: 'dim' }]];
  }
  return [title, ...body].slice(0, height).map((l) => clipLine(l, width));
}
