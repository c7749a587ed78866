// From an alert or a Reward point to its episodes: one key (e) opens the Trajectories screen at the
// policy version the step trained with (the log's step s: versions up to s - 1), the newest dumped
// version at or before it, its groups; the keys come from the binding table and say why when idle.
import { describe, expect, it } from 'vitest';
import { summaryOf } from '../../src/episodes/index.js';
import { initialUiState, reduceKey, type KeyContext } from '../../src/ui/ui-state.js';
import { trajView } from '../../src/ui/traj-nav.js';
import { trajectoriesLines } from '../../src/ui/screens/trajectories.js';
import { alertHistoryLines, markedHistoryEntry } from '../../src/ui/screens/alert-history.js';
import { rewardLines } from '../../src/ui/panels/reward.js';
import { lineText } from '../../src/ui/lines.js';
import type { AlertHistoryEntry, TrajectoriesView } from '../../src/session/types.js';

const ep = (version: number, task: string, idx: number) =>
  summaryOf(
    { kind: 'train', version, file: `/d/rollout/${version}/${task}_ep${idx}.json`, fileSize: 100 },
    { task_id: task, episode_idx: idx, reward: idx, n_steps: 3, episode_timed_out: false, is_blocked: false },
  );
const DATA: TrajectoriesView = {
  runId: 'r',
  episodes: [ep(9, 'a', 0), ep(9, 'a', 1), ep(5, 'b', 0), ep(5, 'b', 1), ep(2, 'c', 0)],
  sizes: new Map(),
  problem: null,
  stepsFile: null,
  steps: null,
  stepsProblem: null,
  shots: new Map(),
};
const ctx: KeyContext = { runIds: ['r'], configRows: [], launchInProgress: false, configHasErrors: false, page: 10 };

const entry = (title: string, step: number | null): AlertHistoryEntry => ({
  key: title,
  alert: { id: title, severity: 'warning', title, detail: '', advice: '', ...(step === null ? {} : { step }) },
  active: true,
  fired: 1,
  firstSeenAt: 0,
  firstStep: step,
  lastSeenAt: 0,
  lastStep: step,
  lastFiredAt: 0,
  lastFiredStep: step,
  clearedAt: null,
  endedWithRun: false,
});

describe('e: from an alert or a Reward point to its episodes', () => {
  it("the alert history's marked alert opens the Trajectories screen at its step's version, listing again", () => {
    const s = { ...initialUiState('dashboard'), history: true };
    const r = reduceKey(s, 'e', {}, { ...ctx, historyStep: 8 });
    expect(r.state.screen).toBe('trajectories');
    expect(r.state.history).toBe(false);
    expect(r.effects).toEqual([{ kind: 'listTrajectories', args: [] }]);
    // Step 8 trained on versions up to 7: none dumped at 7, so the newest before it, 5, its groups.
    const v = trajView(DATA, r.state.traj);
    expect(trajectoriesLines(v, { width: 100, height: 10, colors: false }).map(lineText)).toEqual([
      'Trajectories  train eval  filter: all  version 5 (none dumped at 7)',
      '> b  [ep0 r=0.00 3st] [ep1 r=1.00 3st] ',
    ]);
    // A move fixes it there.
    const down = reduceKey(r.state, 'j', {}, { ...ctx, trajectories: DATA });
    expect(down.state.traj).toMatchObject({ want: null, version: 1, level: 'groups' });
  });

  it('an alert without a step: e says why and does nothing', () => {
    const s = { ...initialUiState('dashboard'), history: true };
    const r = reduceKey(s, 'e', {}, { ...ctx, historyStep: null });
    expect(r.state.screen).toBe('dashboard');
    expect(r.state.keyHint).toBe('e: the marked alert has no step');
  });

  it('the marked alert is the first one in view: scrolling moves the mark, the footer names its step', () => {
    const entries = [entry('first', 10), entry('second', null), entry('third', 30)];
    expect(markedHistoryEntry(entries, 80, 20, 0)?.alert.title).toBe('first');
    expect(markedHistoryEntry(entries, 80, 4, 2)?.alert.title).toBe('second');
    const lines = alertHistoryLines(entries, 80, 4, 4).map(lineText);
    expect(lines.at(-1)).toMatch(/^Esc or q closes · e episodes at step 30 · /);
    const marked = alertHistoryLines(entries, 80, 20, 0)[1] as { t: string; inverse?: boolean }[];
    expect(marked[1]).toMatchObject({ t: 'first', inverse: true });
  });

  it('[ ] move the Reward cursor over the logged steps; the legend shows its step and point; e opens it', () => {
    const c = { ...ctx, runSteps: 20 };
    let s = initialUiState('dashboard');
    s = reduceKey(s, '[', {}, c).state;
    expect(s.rewardStep).toBe(20);
    for (let i = 0; i < 30; i++) s = reduceKey(s, '[', {}, c).state;
    expect(s.rewardStep).toBe(1);
    s = reduceKey(reduceKey(s, ']', {}, c).state, ']', {}, c).state;
    expect(s.rewardStep).toBe(3);
    const r = reduceKey(s, 'e', {}, c);
    expect(r.state.screen).toBe('trajectories');
    expect(r.state.traj).toMatchObject({ want: 2, level: 'groups' });
    const title = rewardLines(
      {
        reward: [0.1, 0.2, 0.3, 0.4],
        stepsPerPoint: 5,
        latest: 0.4,
        difficulty: null,
        evalReward: null,
        latestEval: null,
        cursor: 7,
        steps: 20,
      },
      100,
      6,
      false,
    ).map(lineText)[0];
    expect(title).toMatch(/^─ Reward ─+ ◆ step 7: 0\.2\d* \(point of 5 steps\), e episodes ─$/);
    expect(reduceKey(initialUiState('dashboard'), 'e', {}, { ...ctx, runSteps: 0 }).state.keyHint).toBe(
      'e: no step logged yet',
    );
  });
});
