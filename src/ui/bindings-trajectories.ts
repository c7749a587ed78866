// The Trajectories screen's keys (part of the one table, BINDINGS): the cursors move through
// traj-nav.ts over the episodes the session listed; Enter on an episode asks the session to read its
// record, p to pin it.
import { act, moveBy, MOVE_KEYS, same, type Binding } from './binding-keys.js';
import type { KeyContext, UiState } from './ui-state.js';
import { selectedEpisode } from './screens/trajectories.js';
import { trajBack, trajEnter, trajMove, trajNextFilter, trajNextKind, trajSide, trajView } from './traj-nav.js';

const view = (s: UiState, ctx: KeyContext) => trajView(ctx.trajectories, s.traj);
const noEpisode = (ctx: KeyContext, s: UiState) => {
  const v = view(s, ctx);
  return v.level !== 'versions' && selectedEpisode(v) ? null : 'p: open a version and select an episode first';
};

export const TRAJECTORY_BINDINGS: readonly Binding[] = [
  {
    keys: MOVE_KEYS,
    scopes: ['trajectories'],
    command: 'traj-move',
    description: 'move: the version, the GRPO group, the step',
    run: (s, ctx, n) => same({ ...s, traj: trajMove(view(s, ctx), moveBy(n, ctx.page)) }),
  },
  {
    keys: ['left', 'right'],
    scopes: ['trajectories'],
    command: 'traj-side',
    description:
      "the group's samples side by side: the previous / next episode (among steps: the previous / next step)",
    run: (s, ctx, n) => same({ ...s, traj: trajSide(view(s, ctx), n === 'left' ? -1 : 1) }),
  },
  {
    keys: ['enter'],
    scopes: ['trajectories'],
    command: 'traj-open',
    description: "open: a version's groups, an episode's steps, one step",
    short: 'open',
    shown: true,
    run: (s, ctx) => {
      const { nav, open } = trajEnter(view(s, ctx));
      return same({ ...s, traj: nav }, open ? [act.openEpisode(open)] : []);
    },
  },
  {
    keys: ['backspace', 'u'],
    scopes: ['trajectories'],
    command: 'traj-back',
    description: 'back up one level',
    short: 'back',
    shown: true,
    run: (s, ctx) => same({ ...s, traj: trajBack(view(s, ctx)) }),
  },
  {
    keys: ['f'],
    scopes: ['trajectories'],
    command: 'traj-filter',
    description: 'next filter: all, answered but reward 0, timed out, blocked, stuck (unchanged screenshots)',
    short: 'filter',
    shown: true,
    run: (s, ctx) => same({ ...s, traj: trajNextFilter(view(s, ctx)) }),
  },
  {
    keys: ['e'],
    scopes: ['trajectories'],
    command: 'traj-kind',
    description: 'train episodes (by policy version, rollout/) ↔ eval episodes (by model step, test-rollout/)',
    short: 'train/eval',
    shown: true,
    run: (s, ctx) => same({ ...s, traj: trajNextKind(view(s, ctx)) }),
  },
  {
    keys: ['p'],
    scopes: ['trajectories'],
    command: 'traj-pin',
    description: 'pin the selected episode: its record and screenshots copied to $XDG_DATA_HOME/awrl-tui/pins/',
    short: 'pin',
    shown: true,
    disabledReason: noEpisode,
    run: (s, ctx) => same(s, [act.pinEpisode(selectedEpisode(view(s, ctx))!.file)]),
  },
];
