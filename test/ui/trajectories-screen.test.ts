import { describe, expect, it } from 'vitest';
import { summaryOf, stepViews } from '../../src/episodes/index.js';
import { emptyTraj, trajectoriesLines, type TrajView } from '../../src/ui/screens/trajectories.js';
import { lineText } from '../../src/ui/lines.js';

const ep = (version: number, task: string, idx: number, reward: number, nSteps: number, timedOut = false) =>
  summaryOf(
    { kind: 'train', version, file: `/d/rollout/${version}/${task}_ep${idx}.json`, fileSize: 100 },
    { task_id: task, episode_idx: idx, reward, n_steps: nSteps, episode_timed_out: timedOut, is_blocked: false },
  );

const EPS = [ep(3, 'shop', 0, 1, 4), ep(3, 'shop', 1, 0, 7, true), ep(3, 'wiki', 0, 0.5, 2), ep(4, 'shop', 0, 1, 3)];
const view = (over: Partial<TrajView>): TrajView => ({ ...emptyTraj(), episodes: EPS, ...over });
const text = (v: TrajView, width = 80) => trajectoriesLines(v, { width, height: 20, colors: true }).map(lineText);
const TITLE = 'Trajectories  train eval  filter: all';

describe('trajectories screen', () => {
  it('lists versions newest first with episode and group counts and the mean reward', () => {
    expect(text(view({}))).toEqual([
      TITLE,
      '> version 4  1 episodes  1 groups  mean reward 1.00',
      '  version 3  3 episodes  2 groups  mean reward 0.50',
    ]);
  });

  it("shows a version's GRPO groups side by side with reward, steps and timed out", () => {
    expect(text(view({ level: 'groups', version: 1, episode: 1 }))).toEqual([
      `${TITLE}  version 3`,
      '> shop  [ep0 r=1.00 4st] [ep1 r=0.00 7st timeout] ',
      '  wiki  [ep0 r=0.50 2st] ',
    ]);
  });

  it('the timed-out filter keeps only the timed-out episodes', () => {
    expect(text(view({ filter: 'timed-out' }))).toEqual([
      'Trajectories  train eval  filter: timed out',
      '> version 3  1 episodes  1 groups  mean reward 0.00',
    ]);
  });

  const record = {
    steps: [
      {
        step_idx: 0,
        observation: { image_path: '/x/shop_ep0_step0.png', page_metadata: { title: 'Home', url: 'http://s/' } },
        action: { action_string: 'click(500, 200)', action: { key: 'click', arguments: { coordinates: [500, 200] } } },
      },
      { step_idx: 1, action: { action_string: 'answer(42)' } },
    ],
  };
  const steps = stepViews('/d/rollout/3/shop_ep0.json', record);

  it("lists an episode's steps: action_string and the page", () => {
    expect(text(view({ level: 'steps', version: 1, steps, step: 1 }), 120)).toEqual([
      `${TITLE}  version 3`,
      'shop ep0  reward 1.00  4 steps',
      "reward 1.00 is the episode's; per-step reward: not in the dump (webgym leaves every steps[*].reward at 0)",
      '  step 0  click(500, 200)  Home',
      '> step 1  answer(42)  page unknown',
    ]);
  });

  it('shows one step: the action and where it clicked, the page, the episode reward (none per step in the dump)', () => {
    const lines = text(view({ level: 'step', version: 1, steps, step: 0 }), 120);
    expect(lines.slice(1, 6)).toEqual([
      'shop ep0  reward 1.00  4 steps',
      'step 0 of 2: click at (500, 200) on the 0-1000 grid  click(500, 200)',
      'page: Home — http://s/',
      'reward: episode 1.00; per-step reward: not in the dump (webgym leaves every steps[*].reward at 0)',
      'thought: none',
    ]);
    // The screenshot still on its way, then missing: said, and the rest of the step shown.
    expect(lines.slice(6)).toEqual(['[screenshot: fetching…]', 'shop_ep0_step0.png']);
    const gone = new Map([
      ['/d/rollout/3/shop_ep0_step0.png', { ok: false as const, why: 'missing (not copied, or wiped)' }],
    ]);
    expect(text(view({ level: 'step', version: 1, steps, step: 0, shots: gone }), 120)[6]).toBe(
      '[screenshot: missing (not copied, or wiped)]',
    );
  });

  it('the eval section lists eval episodes by model step; train ones are not among them', () => {
    const evalEp = summaryOf(
      { kind: 'eval', version: 40, file: '/d/test-rollout/40/quiz_ep0.json', fileSize: 100 },
      { task_id: 'quiz', episode_idx: 0, reward: 1, n_steps: 3 },
    );
    expect(text(view({ kind: 'eval', episodes: [...EPS, evalEp] }))).toEqual([
      TITLE,
      '> model step 40  1 episodes  1 groups  mean reward 1.00',
    ]);
    expect(text(view({ kind: 'eval' }))[1]).toBe(
      'no eval episodes pass this filter (eval episodes are dumped under test-rollout/)',
    );
  });

  it('says a failed listing and a listing under way', () => {
    expect(text({ ...emptyTraj(), problem: 'no dumps: set rollout.dump_to_file: true' })).toEqual([
      TITLE,
      'no dumps: set rollout.dump_to_file: true',
    ]);
    expect(text(emptyTraj())).toEqual([TITLE, 'listing the dumps…']);
  });
});
