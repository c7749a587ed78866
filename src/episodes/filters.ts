// What a researcher looks for among a version's episodes, and the GRPO groups they came in. Pure.
import type { EpisodeSummary } from './record.js';

export const EPISODE_FILTERS = ['all', 'answered-zero', 'timed-out', 'blocked', 'stuck'] as const;
export type EpisodeFilter = (typeof EPISODE_FILTERS)[number];

export const FILTER_LABEL: Record<EpisodeFilter, string> = {
  all: 'all',
  'answered-zero': 'answered, reward 0',
  'timed-out': 'timed out',
  blocked: 'blocked',
  stuck: 'stuck (unchanged screenshots)',
};

/** Steps in a row whose screenshots are unchanged before an episode counts as stuck. */
export const STUCK_RUN = 3;

/** The basename of a path as the trainer wrote it (a cluster path: always `/`). */
export const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** Where a screenshot of a record is: beside the record under its own basename (the trainer copies it
 *  there, WE:955-956), whatever directory the record's absolute path names. */
export function shotPath(recordFile: string, shot: string): string {
  return `${recordFile.slice(0, recordFile.lastIndexOf('/'))}/${baseName(shot)}`;
}

/** The longest run of consecutive screenshots with the same byte size (the trainer's encoder gives an
 *  unchanged page the same bytes), or null when a size is not known (missing PNGs). */
export function longestUnchangedRun(e: EpisodeSummary, sizes: ReadonlyMap<string, number>): number | null {
  const s = e.screenshotPaths.map((p) => sizes.get(shotPath(e.file, p)));
  if (s.length === 0 || s.some((x) => x === undefined)) return null;
  let best = 1;
  let run = 1;
  for (let i = 1; i < s.length; i++) {
    run = s[i] === s[i - 1] ? run + 1 : 1;
    best = Math.max(best, run);
  }
  return best;
}

/** The evaluator ran (it does only for an episode that answered) and the reward is 0. */
export const answeredButZero = (e: EpisodeSummary): boolean =>
  e.evaluation !== null && e.reward === 0 && e.isBlocked !== true;

export function matches(e: EpisodeSummary, f: EpisodeFilter, sizes: ReadonlyMap<string, number>): boolean {
  switch (f) {
    case 'all':
      return true;
    case 'answered-zero':
      return answeredButZero(e);
    case 'timed-out':
      return e.timedOut === true;
    case 'blocked':
      return e.isBlocked === true;
    case 'stuck':
      return (longestUnchangedRun(e, sizes) ?? 0) >= STUCK_RUN;
  }
}

/** Staleness: the newest version dumped minus the episode's head version (the oldest policy that wrote
 *  any of its group's tokens); null when either is unknown or for eval episodes. */
export function stalenessOf(e: EpisodeSummary, newest: number | null): number | null {
  if (e.kind !== 'train' || newest === null || e.headVersion === null) return null;
  return newest - e.headVersion;
}

export function newestVersion(eps: readonly EpisodeSummary[]): number | null {
  const v = eps.filter((e) => e.kind === 'train').map((e) => e.version);
  return v.length ? Math.max(...v) : null;
}

export interface GrpoGroup {
  kind: EpisodeSummary['kind'];
  version: number;
  taskId: string;
  episodes: EpisodeSummary[];
}

/** A version's GRPO groups: the n samples of one task side by side (one dump call = one group). */
export function groupsOf(eps: readonly EpisodeSummary[]): GrpoGroup[] {
  const by = new Map<string, GrpoGroup>();
  for (const e of eps) {
    const key = `${e.kind}\u0000${e.version}\u0000${e.taskId}`;
    const g = by.get(key) ?? { kind: e.kind, version: e.version, taskId: e.taskId, episodes: [] };
    g.episodes.push(e);
    by.set(key, g);
  }
  for (const g of by.values()) g.episodes.sort((a, b) => a.episodeIdx - b.episodeIdx);
  return [...by.values()];
}
