// The Trajectories screen (7) in the cockpit over a real simulated run that dumps as webgym does
// (local transport, live session, Ink's keys, the painter into @xterm/headless): versions → a GRPO
// group side by side → an episode's steps → one step with its screenshot in half-block cells (the
// simulator's PNG fetched and drawn, colours read back from the terminal); f filters; p pins the
// episode here; e shows the eval section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchSimRun, type WatchedSim } from './sim-run.js';
import { waitFor } from '../harness/wait.js';

describe('the Trajectories screen over a simulated run with dumps', { timeout: 180_000 }, () => {
  let w: WatchedSim;
  const data = mkdtempSync(join(tmpdir(), 'awrl-traj-pins-'));
  const savedData = process.env.XDG_DATA_HOME;

  beforeAll(async () => {
    process.env.XDG_DATA_HOME = data;
    w = await watchSimRun({
      env: { AWRL_SIM_SPEED: 'instant' },
      overrides: [
        'total_train_epochs=1',
        '++trial_name=traj-cockpit',
        "allocation_mode='sglang[rollout]:d2+fsdp[actor]:d4'",
        'test_rollout.enabled=true',
        'test_rollout.n_gpus=2',
        'test_rollout.max_tasks=4',
      ],
      runsPollMs: 1000,
      statePollMs: 500,
      colors: true,
    });
    await waitFor(() => w.session.getState().run?.summary.state === 'finished', {
      timeoutMs: 120_000,
      what: 'the simulated run to finish',
    });
  }, 150_000);
  afterAll(async () => {
    await w?.close();
    if (savedData === undefined) delete process.env.XDG_DATA_HOME;
    else process.env.XDG_DATA_HOME = savedData;
    rmSync(data, { recursive: true, force: true });
  });

  const rows = () => w.r.lastFrame().split('\n');
  const until = (re: RegExp, what: string) =>
    waitFor(() => rows().some((l) => re.test(l)), { timeoutMs: 45_000, what });

  it('drills from a version to a group, an episode, its steps and one step; p pins the episode', async () => {
    w.r.stdin.write('7');
    await until(/^> version \d+ +\d+ episodes +\d+ groups +mean reward \d\.\d\d/, 'the versions listed');
    expect(rows().some((l) => l.includes('Trajectories  train eval  filter: all'))).toBe(true);

    w.r.stdin.write('\r');
    await until(/^> \S+ +\[ep\d+ r=\d\.\d\d \d+st/, "the newest version's groups");
    const group = rows().find((l) => l.startsWith('> '))!;
    // The n samples of one task side by side: more than one episode cell on the group's line.
    expect(group.match(/\[ep\d+ /g)!.length).toBeGreaterThan(1);

    w.r.stdin.write('\r');
    await until(/^> step 0 {2}\S/, "the episode's steps");
    w.r.stdin.write('\r');
    await until(/^step 0 of \d+: /, 'one step');
    expect(rows().some((l) => /^reward: episode \d\.\d\d; per-step reward: not in the dump/.test(l))).toBe(true);
    // The screenshot arrives and is drawn under the step's text: rows of ▀ in 24-bit colours.
    await until(/^▀{20,}/, 'the screenshot drawn');
    const at = rows().findIndex((l) => l.startsWith('▀'));
    const cell = w.r.screen.term.buffer.active.getLine(at)!.getCell(0)!;
    expect(cell.isFgRGB() && cell.isBgRGB()).toBe(true);
    const shown = rows().filter((l) => l.startsWith('▀'));
    expect(shown.length).toBeGreaterThan(5);
    expect(rows()[at + shown.length]).toMatch(/^half-block cells · task_\S+_step_000\.png$/);

    w.r.stdin.write('p');
    await waitFor(() => existsSync(join(data, 'awrl-tui', 'pins', w.sim.runId)), {
      timeoutMs: 20_000,
      what: 'the pin written',
    });
    const [dir] = readdirSync(join(data, 'awrl-tui', 'pins', w.sim.runId));
    const files = readdirSync(join(data, 'awrl-tui', 'pins', w.sim.runId, dir));
    expect(files.some((f) => f.endsWith('.json'))).toBe(true);
    expect(files.some((f) => f.endsWith('.png'))).toBe(true);
    await until(/pinned \S+\/\d+ of version \d+ to /, 'the pin said on the status line');
  });

  it('f cycles the filter and starts again at the versions', async () => {
    w.r.stdin.write('f');
    await until(/Trajectories {2}train eval {2}filter: answered, reward 0/, 'the filter changed');
  });

  it('e shows the eval section (test-rollout/, by model step), its groups; e again the train episodes', async () => {
    // The filter back to all (four more f), then the eval episodes the test rollout rounds dumped.
    w.r.stdin.write('ffff');
    await until(/filter: all$/, 'the filter back to all');
    w.r.stdin.write('e');
    await until(/^> model step \d+ +\d+ episodes +\d+ groups/, 'the eval section');
    w.r.stdin.write('\r');
    await until(/^> sim-test-\d+ +\[ep0 r=/, "an eval round's tasks");
    w.r.stdin.write('ue');
    await until(/^> version \d+ /, 'the train section again');
  });

  it("from the dashboard: [ puts the Reward cursor on the newest step, [ again one back, e opens that step's version", async () => {
    w.r.stdin.write('2');
    await until(/─ Reward /, 'the dashboard');
    w.r.stdin.write('[');
    await until(/◆ step \d+: /, 'the Reward cursor');
    const newest = Number(/◆ step (\d+): /.exec(w.r.lastFrame())![1]);
    w.r.stdin.write('[');
    await until(new RegExp(`◆ step ${newest - 1}: `), 'the cursor one step back');
    w.r.stdin.write('e');
    // Step s trained on versions up to s - 1: the sim dumps each step's groups at version s - 1.
    await until(new RegExp(`^Trajectories {2}train eval {2}filter: all {2}version ${newest - 2}$`), 'its version');
    await until(/^> sim-train-\d+ +\[ep0 r=/, "the version's groups");
  });
});
