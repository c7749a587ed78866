// Moving through the Trajectories screen (pure): the cursor of each level, kept in UiState, over the
// episodes the session listed (SessionState.trajectories). The keys are in bindings.ts.
import { EPISODE_FILTERS } from '../episodes/index.js';
import type { TrajectoriesView } from '../session/types.js';
import { clamp } from './binding-keys.js';
import {
  emptyTraj,
  groupsAt,
  selectedEpisode,
  versionIndexFor,
  versionsOf,
  type TrajView,
} from './screens/trajectories.js';

export type TrajNav = Pick<TrajView, 'filter' | 'kind' | 'want' | 'level' | 'version' | 'group' | 'episode' | 'step'>;

export const initialTrajNav = (): TrajNav => {
  const { filter, kind, want, level, version, group, episode, step } = emptyTraj();
  return { filter, kind, want, level, version, group, episode, step };
};

/** The train episodes of the policy version a step trained with. The log counts steps from 1
 *  (global_step + 1) and AReaL sets the version to global_step + 1 after each update, so the
 *  rollouts step s trained on carry versions up to s - 1 (rollout/<s-1>/ holds the groups whose
 *  newest tokens came from the weights it started with). The list opens at the newest dumped version
 *  at or before that (its groups, when there is one). */
export const trajAtStep = (step: number): TrajNav => ({
  ...initialTrajNav(),
  want: Math.max(0, step - 1),
  level: 'groups',
});

/** What the screen draws: the listed data under the cursors (steps only of the episode selected). */
export function trajView(data: TrajectoriesView | undefined, nav: TrajNav): TrajView {
  const v: TrajView = { ...emptyTraj(), ...nav };
  if (!data) return v;
  let withData: TrajView = { ...v, episodes: data.episodes, sizes: data.sizes, problem: data.problem };
  if (v.want !== null && data.episodes !== null) {
    const versions = versionsOf(withData);
    const level = versions.length ? v.level : 'versions';
    withData = { ...withData, version: versionIndexFor(versions, v.want), level };
  }
  const mine = data.stepsFile !== null && selectedEpisode(withData)?.file === data.stepsFile;
  if (!mine) return withData;
  return { ...withData, steps: data.steps, stepsProblem: data.stepsProblem, shots: data.shots };
}

// A move fixes the version asked for (`want`) where it landed.
const navOf = (v: TrajView): TrajNav => ({
  filter: v.filter,
  kind: v.kind,
  want: null,
  level: v.level,
  version: v.version,
  group: v.group,
  episode: v.episode,
  step: v.step,
});

/** Up/down: the version, the group, or the step. */
export function trajMove(v: TrajView, by: number): TrajNav {
  const n = navOf(v);
  if (v.level === 'versions') return { ...n, version: clamp(v.version + by, 0, versionsOf(v).length - 1) };
  if (v.level === 'groups') return { ...n, group: clamp(v.group + by, 0, groupsAt(v).length - 1), episode: 0 };
  return { ...n, step: clamp(v.step + by, 0, (v.steps?.length ?? 1) - 1) };
}

/** Left/right: the episode within its group (the samples side by side); among steps, the next step. */
export function trajSide(v: TrajView, by: number): TrajNav {
  const n = navOf(v);
  if (v.level === 'groups') {
    const size = groupsAt(v)[v.group]?.episodes.length ?? 1;
    return { ...n, episode: clamp(v.episode + by, 0, size - 1) };
  }
  return v.level === 'versions' ? n : trajMove(v, by);
}

/** Enter: one level down; `open` names the record whose steps the session should read. */
export function trajEnter(v: TrajView): { nav: TrajNav; open: string | null } {
  const n = navOf(v);
  if (v.level === 'versions')
    return { nav: versionsOf(v).length ? { ...n, level: 'groups', group: 0, episode: 0 } : n, open: null };
  if (v.level === 'groups') {
    const e = selectedEpisode(v);
    return e ? { nav: { ...n, level: 'steps', step: 0 }, open: e.file } : { nav: n, open: null };
  }
  return { nav: v.level === 'steps' && v.steps?.length ? { ...n, level: 'step' } : n, open: null };
}

const UP: Record<TrajView['level'], TrajView['level']> = {
  versions: 'versions',
  groups: 'versions',
  steps: 'groups',
  step: 'steps',
};
export const trajBack = (v: TrajView): TrajNav => ({ ...navOf(v), level: UP[v.level] });

/** The next filter; the cursors start again at the newest version (what they pointed at may be gone). */
export function trajNextFilter(v: TrajView): TrajNav {
  const filter = EPISODE_FILTERS[(EPISODE_FILTERS.indexOf(v.filter) + 1) % EPISODE_FILTERS.length];
  return { ...initialTrajNav(), kind: v.kind, filter };
}

/** The other section (train ↔ eval), from its newest version, the filter kept. */
export const trajNextKind = (v: TrajView): TrajNav => ({
  ...initialTrajNav(),
  filter: v.filter,
  kind: v.kind === 'train' ? 'eval' : 'train',
});
