// End to end with the project's simulator (AReaL-format logs written by src/sim): a stall fault in
// each phase, the log read back through HealthFeed, and the stall alert names that phase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, pidAlive } from '../harness/wait.js';
import { HealthFeed } from '../../src/health/index.js';
import type { SimState } from '../../src/sim/state.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const PY = '/usr/bin/python3';
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-health-sim-'));
  const r = spawnSync(process.execPath, [BIN, 'sim', 'init', dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
});
afterAll(() => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function mainLog(trial: string): string {
  const base = join(dir, 'areal-fileroot', 'logs', 'simuser');
  const exp = readdirSync(base)[0];
  return join(base, exp, trial, 'main.log');
}

const addHours = (iso: string, h: number) => new Date(Date.parse(`${iso}Z`) + h * 3600_000).toISOString().slice(0, 23);

// Like the real trainer, the sim writes its `Saving … checkpoints` record and then saves. The save
// stall needs a save at every step (recover.freq_steps=1) so that steps 1-3 give the phase a median.
describe('stall alerts on simulator logs', () => {
  it.each(['rollout_wait', 'recompute_logp', 'compute_advantages', 'ppo_update', 'update_weights', 'save'])(
    'names %s',
    async (phase) => {
      const trial = `stall-${phase.replace(/_/g, '-')}`;
      const overrides = phase === 'save' ? ['recover.freq_steps=1'] : [];
      const child = spawn(
        PY,
        ['webgym/train.py', '--config', 'configs/sim_local.yaml', `trial_name=${trial}`, ...overrides],
        {
          cwd: dir,
          env: {
            ...process.env,
            USER: 'simuser',
            LOGNAME: 'simuser',
            AWRL_SIM_SPEED: 'instant',
            AWRL_SIM_DATASET_SIZE: '96',
            AWRL_SIM_FAULT: `stall:${phase}@4`,
          },
          stdio: 'ignore',
        },
      );
      children.push(child);
      const exited = new Promise((r) => child.on('exit', r));
      await waitFor(
        () => {
          const s = JSON.parse(readFileSync(join(dir, 'state', 'state.json'), 'utf8')) as SimState;
          return s.pid === child.pid && s.phase === phase && s.step === 4;
        },
        { what: `the simulated trainer to stall in ${phase}`, timeoutMs: 30_000 },
      );
      const feed = new HealthFeed();
      const events = [...feed.push(readFileSync(mainLog(trial))), ...feed.end()];
      process.kill(child.pid!, 'SIGTERM');
      await exited;
      const last = events.filter((e) => e.time !== null).at(-1)!.time!;
      const alerts = feed.monitor.evaluate({ now: addHours(last, 3) });
      expect(alerts.map((a) => a.id)).toEqual([`health/stall/${phase}`]);
      expect(alerts[0].step).toBe(4);
      expect(alerts[0].detail).toMatch(new RegExp(`^${phase} has run 3 h \\(median `));
      // Shortly after the last record (one median step time: the sim's steps take seconds of log
      // time), nothing is wrong yet; neither the phase nor the whole-step threshold is crossed.
      const med = feed.monitor.medianStepSeconds()!;
      expect(med).toBeGreaterThan(0);
      expect(feed.monitor.evaluate({ now: addHours(last, med / 3600) })).toEqual([]);
    },
  );
});
