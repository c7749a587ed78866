// The simulator's webgym test rollout and wandb banner: the eval rounds it prints (test_rollout.py's
// lines, the round's keys in the step tables), parsed back by the project's parser, are exactly its
// ground truth, in main.log and on stdout; the offline banner names the local run dir; and the run
// stops after total_train_steps as rl_trainer.py does, while `Train step g/G` keeps G (FinetuneSpec).
import { afterAll, describe, expect, it } from 'vitest';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { truthFor } from '../../src/sim/truth.js';
import { formatFixed } from '../../src/sim/pyfmt.js';
import { simWorkspace, CONFIG_LOCAL } from './helpers.js';

const OVERRIDES = [
  "allocation_mode='sglang[rollout]:d2+fsdp[actor]:d4'",
  'test_rollout.enabled=true',
  'test_rollout.n_gpus=2',
  'test_rollout.max_tasks=40',
  'total_train_epochs=1',
  '+total_train_steps=10',
  'stats_logger.wandb.mode=offline',
];
const ws = simWorkspace(CONFIG_LOCAL, OVERRIDES);
afterAll(() => ws.cleanup());
const ran = ws.run();
const ofTypes = (evs: readonly TrainerEvent[], types: string[]) => evs.filter((e) => types.includes(e.type));
const EVAL = ['eval', 'eval-progress', 'wandb'];

describe('sim: test rollout, wandb offline, total_train_steps', () => {
  it('stops after total_train_steps (10 of the 16 an epoch has), and says G = 16', async () => {
    expect(await ran).toBe(0);
    const steps = parseLogBytes(ws.read('main.log')).filter((e) => e.type === 'step');
    expect(steps.map((e) => (e.type === 'step' ? `${e.globalStep}/${e.totalSteps}` : ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => `${i + 1}/16`),
    );
  });

  for (const out of ['main', 'stdout'] as const) {
    it(`${out}: the eval rounds, their progress and the wandb run are exactly the ground truth`, async () => {
      await ran;
      const bytes = out === 'main' ? ws.read('main.log') : Buffer.from(ws.stdout);
      const parsed = ofTypes(parseLogBytes(bytes), EVAL);
      const truth = ofTypes(truthFor(ws.truth(), out), EVAL);
      expect(parsed).toEqual(truth);
      const rounds = parsed.filter((e) => e.type === 'eval');
      expect(rounds.length).toBeGreaterThanOrEqual(3);
      // A round followed by a step carries its difficulty buckets (that step's table).
      expect(rounds.filter((e) => e.type === 'eval' && e.byDifficulty !== undefined).length).toBeGreaterThanOrEqual(2);
      expect(parsed.filter((e) => e.type === 'wandb')).toEqual(
        out === 'main'
          ? []
          : [
              {
                type: 'wandb',
                url: null,
                dir: expect.stringMatching(/\/wandb\/offline-run-\d{8}_\d{6}-.*_intuition-model_\d{4}(_\d\d){5}$/),
                offline: true,
                time: null,
              },
            ],
      );
    });
  }

  it('prints the wandb sync command at the end, and each save for the eval loads at the next round', async () => {
    await ran;
    expect(ws.stdout).toMatch(
      /\nwandb: You can sync this run to the cloud by running:\nwandb: wandb sync \S+offline-run-/,
    );
    const text = ws.read('main.log').toString('utf8');
    const saves = [...text.matchAll(/Saving HF \+ DCP checkpoints \(test rollout, step=(\d+)\)/g)].map((m) => m[1]);
    const loads = [...text.matchAll(/Loading weights from \S+globalstep(\d+) \(step (\d+)\)/g)].map((m) => m[1]);
    expect(saves.length).toBeGreaterThanOrEqual(2);
    expect(loads.length).toBeGreaterThanOrEqual(1);
    for (const l of loads) expect(saves).toContain(l);
  });
});

describe('formatFixed', () => {
  it("rounds an exact half to even as Python's %f does", () => {
    expect(formatFixed(0.03125, 4)).toBe('0.0312');
    expect(formatFixed(0.09375, 4)).toBe('0.0938');
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(7.25, 1)).toBe('7.2');
    expect(formatFixed(0.4125, 4)).toBe('0.4125');
    expect(formatFixed(-1.5, 0)).toBe('-2');
  });
});
