// End to end in a real tmux: the cockpit on a real (simulated) run launched through the launch
// path over the local transport, driven by keys the way a person would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxSession } from '../harness/tmux.js';
import { BIN, launchSim, simCheckout, type SimRun } from './sim-run.js';

const STEP = /step (\d+)\/(\d+)/;
const REWARD = /reward (-?[\d.e+-]+)\s+avg10/;

function stepOf(screen: string): number {
  const m = STEP.exec(screen);
  return m ? Number(m[1]) : 0;
}

function wrapped(cmd: string): string {
  // Keep the pane alive after the cockpit exits, so the test can look at what it left behind.
  return `sh -c '${cmd}; echo EXITED=$?; exec sleep 600'`;
}

describe('watch in tmux (120x40, then 80x24)', () => {
  let sim: SimRun;
  let t: TmuxSession;

  beforeAll(async () => {
    process.env.AWRL_SIM_SPEED = '400';
    sim = await launchSim();
    // The simulator's fake nvidia-smi on PATH: the GPU panel polls it through the transport.
    t = await TmuxSession.start({
      command: wrapped(`PATH=${sim.dir}/bin:$PATH node ${BIN} watch ${sim.runId} --target local --workdir ${sim.dir}`),
      width: 120,
      height: 40,
    });
  });

  afterAll(async () => {
    await t?.kill();
    await sim?.stop();
  });

  it('shows steps and reward values advancing', async () => {
    const first = await t.waitForScreen((s) => stepOf(s) >= 1 && REWARD.test(s), 'a first step with a reward', 30_000);
    const step1 = stepOf(first);
    const later = await t.waitForScreen((s) => stepOf(s) >= step1 + 2, `step ${step1 + 2}`, 30_000);
    expect(stepOf(later)).toBeGreaterThan(step1);
    expect(later).toContain(sim.runId);
    expect(later).toMatch(/connected │ running/);
    expect(REWARD.exec(later)![1]).not.toBe('—');
    for (const panel of ['─ Reward', '─ Staleness', '─ Throughput', '─ GPU memory', '─ Alerts', '─ Log'])
      expect(later).toContain(panel);
    // Live per-GPU bars from nvidia-smi (8 simulated H100s of 80 GB).
    const gpus = await t.waitForScreen((s) => (s.match(/\d+\/80G/g) ?? []).length >= 8, 'eight GPU bars');
    expect(gpus).toMatch(/local\s+0\s+[█░]+ \d+\/80G/);
    const rows = await t.capture();
    expect(rows.length).toBeLessThanOrEqual(40);
    expect(rows[0]).toMatch(/^ 1 Runs/);
  });

  it("the log pane shows the trainer's own lines: no ANSI codes, stats tables as one line; L switches to events", async () => {
    const pane = await t.waitForScreen(
      (s) => /\[stats table: \d+ keys\]/.test(s) && /\b\d\d:\d\d:\d\d \w+ INFO: /.test(s),
      'trainer lines in the log pane',
      30_000,
    );
    expect(pane).toMatch(/─ Log ─+ trainer · all/);
    // Record headers are shown as their time of day: no '(AReaL)' tag, date or milliseconds.
    expect(pane).not.toMatch(/\(AReaL\) \d{8}-/);
    // Table rows never reach the screen (the screen's own borders are ─ and │ only between panels).
    expect(pane).not.toMatch(/[╒╘]/);
    expect(await t.captureEscaped()).not.toContain('38;2;180;140;80');
    await t.type('L');
    const events = await t.waitForScreen((s) => s.includes('L: trainer'), 'the event view');
    expect(events).not.toMatch(/\[stats table: \d+ keys\]/);
    await t.type('L');
    await t.waitForScreen((s) => /─ Log ─+ trainer · all/.test(s), 'the trainer view again');
  });

  it('? opens the help and any key closes it', async () => {
    await t.type('?');
    await t.waitForScreen((s) => s.includes('Help — keys') && s.includes('quit the cockpit'), 'help overlay');
    await t.type('x');
    await t.waitForScreen((s) => s.includes('─ Reward') && !s.includes('Help — keys'), 'dashboard again');
  });

  it('resizing to 80x24 keeps every line within the width and the frame on screen', async () => {
    await t.resize(80, 24);
    expect(await t.size()).toEqual({ width: 80, height: 24 });
    const screen = await t.waitForScreen(
      (s) => s.includes('hidden:') && s.split('\n')[0].includes('? help'),
      'the 80-column layout',
    );
    const rows = screen.split('\n');
    expect(rows.length).toBeLessThanOrEqual(24);
    for (const r of rows) expect([...r].length).toBeLessThanOrEqual(80);
    // The top of the frame is still the top of the screen: nothing scrolled away.
    expect(rows[0]).toMatch(/^ 1 Runs/);
    expect(rows[1]).toContain(sim.runId);
    // And it keeps updating at the new size.
    const step = stepOf(screen);
    await t.waitForScreen((s) => stepOf(s) > step, 'a step after the resize', 30_000);
  });

  it('q exits (the run keeps going) and the terminal is restored', async () => {
    await t.type('q');
    const after = await t.waitForScreen((s) => s.includes('EXITED=0'), 'the cockpit to exit');
    expect(after).not.toContain('─ Reward'); // back on the normal screen, not the cockpit's
    expect(await t.display('#{alternate_on}')).toBe('0');
    expect(await t.display('#{cursor_flag}')).toBe('1');
    const { runs } = await import('../../src/runs/index.js').then(async (m) => ({
      runs: await m.listRuns(sim.transport, sim.target, { tailBytes: 0 }),
    }));
    expect(runs.find((r) => r.runId === sim.runId)?.state).toBe('running');
  });
});

describe('config screen in tmux', () => {
  let t: TmuxSession;
  let dir: string;

  beforeAll(async () => {
    const c = simCheckout();
    dir = c.dir;
    t = await TmuxSession.start({
      command: wrapped(`node ${BIN} --target local --workdir ${c.dir} --config ${c.configPath}`),
      width: 120,
      height: 40,
      env: { CPU_CLUSTER_TOKEN: 'not-shown' },
    });
  });

  afterAll(async () => {
    await t?.kill();
    const { rmSync } = await import('node:fs');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('edits a value, shows the diagnostic of an invalid one as you type, then the diff', async () => {
    await t.waitForScreen((s) => s.includes('─ Diagnostics') && s.includes('0 errors'), 'the config screen');
    await t.type('/consumer_batch');
    await t.keys('Enter');
    await t.waitForScreen((s) => !s.includes('find key:'), 'the finder to close');
    await t.keys('Enter');
    await t.waitForScreen(
      (s) => s.includes('edit rollout.consumer_batch_size'),
      'the editor on rollout.consumer_batch_size',
    );
    await t.keys('BSpace', 'BSpace');
    await t.type('30');
    // Not committed yet: the diagnostic comes from the draft.
    const typing = await t.waitForScreen(
      (s) => s.includes('1 error') && s.includes('consumer_batch_size=30'),
      'a live diagnostic for 30',
    );
    expect(typing).toContain('edit rollout.consumer_batch_size');
    expect(typing).toMatch(/divisible|LCM/i);
    await t.keys('Enter');
    const committed = await t.waitForScreen((s) => s.includes('1. ++rollout.consumer_batch_size=30'), 'the override');
    expect(committed).toMatch(/rollout\.consumer_batch_size: 32 → 30/);
    expect(committed).toContain('override 1');
    // A valid value clears the error.
    await t.keys('Enter');
    await t.keys('BSpace', 'BSpace');
    await t.type('64');
    await t.keys('Enter');
    await t.waitForScreen(
      (s) => s.includes('1. ++rollout.consumer_batch_size=64') && s.includes('0 errors'),
      'a valid edit',
    );
  });

  it('L shows the exact argv with secrets by name only; n cancels', async () => {
    await t.type('L');
    const confirm = await t.waitForScreen((s) => s.includes('─ Launch?'), 'the launch confirmation');
    expect(confirm).toContain('webgym/train.py');
    expect(confirm).toContain('++rollout.consumer_batch_size=64');
    expect(confirm).toContain('CPU_CLUSTER_TOKEN set');
    expect(confirm).not.toContain('not-shown');
    await t.type('n');
    await t.waitForScreen((s) => s.includes('─ Diagnostics'), 'back to the config screen');
  });

  it('uses colours, and none under NO_COLOR', async () => {
    expect(await t.captureEscaped()).toMatch(/\x1b\[[0-9;]*3[0-7]m/);
    const c = simCheckout();
    const plain = await TmuxSession.start({
      command: `node ${BIN} --target local --workdir ${c.dir} --config ${c.configPath}`,
      width: 100,
      height: 30,
      env: { NO_COLOR: '1' },
    });
    try {
      await plain.waitForScreen((s) => s.includes('─ Diagnostics'), 'the config screen under NO_COLOR');
      expect(await plain.captureEscaped()).not.toMatch(/\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;)[0-9;]*m/);
    } finally {
      await plain.kill();
      const { rmSync } = await import('node:fs');
      rmSync(c.dir, { recursive: true, force: true });
    }
  });

  it('SIGTERM to the cockpit restores the terminal too', async () => {
    const c = simCheckout();
    const other = await TmuxSession.start({
      command: wrapped(`node ${BIN} --config ${c.configPath}`),
      width: 100,
      height: 30,
    });
    try {
      await other.waitForScreen((s) => s.includes('─ Diagnostics'), 'the config screen');
      const shPid = Number(await other.display('#{pane_pid}'));
      const { readFileSync, rmSync } = await import('node:fs');
      const children = readFileSync(`/proc/${shPid}/task/${shPid}/children`, 'utf8').trim().split(/\s+/).map(Number);
      expect(children).toHaveLength(1);
      process.kill(children[0], 'SIGTERM');
      await other.waitForScreen((s) => s.includes('EXITED=143'), 'the cockpit to exit on SIGTERM');
      expect(await other.display('#{alternate_on}')).toBe('0');
      expect(await other.display('#{cursor_flag}')).toBe('1');
      rmSync(c.dir, { recursive: true, force: true });
    } finally {
      await other.kill();
    }
  });

  it('q exits with the terminal restored', async () => {
    await t.type('q');
    await t.waitForScreen((s) => s.includes('EXITED=0'), 'exit');
    expect(await t.display('#{alternate_on}')).toBe('0');
  });
});
