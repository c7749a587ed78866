// One hang, one alert, in `awrl-tui follow RUN --json` over a real sshd: the simulated trainer hangs
// for 75 s in step 4's rollout wait, then goes on to the end. The follower's wall-clock tick finds
// the hang; the health room's phase stall owns it (it knows the phase), the metrics room's
// whole-step rule defers, so the output holds exactly one hang alert, and the run's later records
// (whose clock lags ours by the hang: the simulator's clock does not count it) do not raise
// another; the record that ends the wait ends it, and an alert-cleared line says so. Needs dist/ built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentinelCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';

const runIdOf = (text: string): string => /^run\s+(\S+)/m.exec(text)![1];
const { start, killAll } = sentinelCli(`one-hang-sentinel-${process.pid}-Xw7`);
const HANG_IDS = (id: string) => id === 'stall' || id.startsWith('health/stall/') || id === 'health/resume/no-progress';

describe('follow --json: one hang, one alert', { timeout: 240_000 }, () => {
  let env: SimOverSshd;

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-one-hang-');
  });
  afterAll(async () => {
    killAll();
    await env?.stop();
  });

  it('prints exactly one hang alert (the phase stall at step 4), and the run finishes', async () => {
    const l = start([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=150 AWRL_SIM_FAULT=stall:rollout_wait@4:75'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=one-hang',
    ]);
    expect(await l.done, (l.stdout + l.stderr).slice(-600)).toBe(0);
    const f = start(['follow', runIdOf(l.stdout), ...env.target(), '--json']);
    expect(await f.done, f.stderr.slice(-600)).toBe(0);
    const lines = f.stdout
      .split('\n')
      .filter(Boolean)
      .map((x) => JSON.parse(x) as { type: string; id?: string; step?: number; globalStep?: number });
    const hangs = lines.filter((x) => x.type === 'alert' && HANG_IDS(x.id!));
    expect(hangs.map((h) => [h.id, h.step])).toEqual([['health/stall/rollout_wait', 4]]);
    // It came in order: after step 3's event, before step 4's.
    const at = lines.indexOf(hangs[0]);
    expect(
      lines
        .slice(0, at)
        .filter((x) => x.type === 'step')
        .map((x) => x.globalStep),
    ).toEqual([1, 2, 3]);
    expect(lines.filter((x) => x.type === 'step').map((x) => x.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // The first record after the wait (the batch arrived) ended the hang: its alert is said to be
    // over right there, once, before step 4's event.
    const cleared = lines.filter((x) => x.type === 'alert-cleared' && x.id === hangs[0].id);
    expect(cleared).toHaveLength(1);
    expect(lines.indexOf(cleared[0])).toBeGreaterThan(at);
    expect(
      lines
        .slice(0, lines.indexOf(cleared[0]))
        .filter((x) => x.type === 'step')
        .map((x) => x.globalStep),
    ).toEqual([1, 2, 3]);
  });
});
