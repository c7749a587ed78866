// End to end in a real tmux: `awrl-tui --demo` itself (issue 7) — steps and reward advancing, help,
// quit with the terminal restored — and that the demo leaves nothing behind: no process of its
// simulated run (found by the job's PID group and by the run tag) and no temp dir, whether it is
// quit with `q` or its terminal disappears (tmux kill-server: SIGHUP).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TmuxSession } from '../harness/tmux.js';
import { waitFor } from '../harness/wait.js';
import { BIN } from './sim-run.js';

const STEP = /step (\d+)\/(\d+)/;
const REWARD = /reward (-?[\d.e+-]+)\s+avg10/;

function wrapped(cmd: string): string {
  return `sh -c '${cmd}; echo EXITED=$?; exec sleep 600'`;
}

const stepOf = (s: string): number => Number(STEP.exec(s)?.[1] ?? 0);
const rewardOf = (s: string): string | null => REWARD.exec(s)?.[1] ?? null;

interface DemoRun {
  dir: string;
  runId: string;
  jobPid: number;
}

/** The demo run whose id is on the screen: /tmp/awrl-demo-*\/.awrl/runs/<id>/job.pid. */
function findDemoRun(screen: string): DemoRun | null {
  for (const d of readdirSync(tmpdir())) {
    if (!d.startsWith('awrl-demo-')) continue;
    const runs = join(tmpdir(), d, '.awrl', 'runs');
    let ids: string[];
    try {
      ids = readdirSync(runs);
    } catch {
      continue;
    }
    for (const id of ids) {
      if (!screen.includes(id)) continue;
      try {
        const pid = Number(readFileSync(join(runs, id, 'job.pid'), 'utf8').trim());
        if (pid > 0) return { dir: join(tmpdir(), d), runId: id, jobPid: pid };
      } catch {
        /* job.pid not written yet */
      }
    }
  }
  return null;
}

/** PIDs of live (non-zombie) processes in process group `pgid` or carrying AWRL_RUN_ID=runId. */
function processesOf(run: DemoRun): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const inGroup = Number(fields[2]) === run.jobPid;
      let tagged = false;
      try {
        tagged = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`AWRL_RUN_ID=${run.runId}`);
      } catch {
        /* another user's process */
      }
      if (inGroup || tagged) out.push(Number(p));
    } catch {
      /* exited while we looked */
    }
  }
  return out;
}

async function startDemo(): Promise<{ t: TmuxSession; run: DemoRun; first: string }> {
  const t = await TmuxSession.start({
    command: wrapped(`node ${BIN} --demo`),
    width: 120,
    height: 40,
    env: { AWRL_SIM_SPEED: '400' },
  });
  let run: DemoRun | null = null;
  try {
    const first = await t.waitForScreen(
      (s) => stepOf(s) >= 1 && (run = findDemoRun(s)) !== null,
      'the demo run with a first step',
      40_000,
    );
    return { t, run: run!, first };
  } catch (err) {
    // Not yet in the caller's list: a demo that never showed its first step (a loaded machine)
    // must not outlive the test. Killing its tmux server hangs it up: it stops its run itself.
    await t.kill();
    throw err;
  }
}

describe('awrl-tui --demo in tmux (120x40)', () => {
  const started: TmuxSession[] = [];
  const runs: DemoRun[] = [];
  afterAll(async () => {
    for (const t of started) await t.kill();
    // Should a test fail half-way, its run must not outlive it: its job group, by PID.
    for (const r of runs) {
      // Only a group that still holds this run's processes (a reused PID is left alone).
      if (processesOf(r).length) {
        try {
          process.kill(-r.jobPid, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
      rmSync(r.dir, { recursive: true, force: true });
    }
  });

  it('shows steps and reward values advancing, ? opens help, q exits, terminal restored, nothing left', async () => {
    const { t, run, first } = await startDemo();
    started.push(t);
    runs.push(run);
    expect(processesOf(run)).toContain(run.jobPid);
    expect(first).toMatch(/─ Reward/);
    // Steps advance at least twice, and a reward value changes.
    const s0 = stepOf(first);
    const r0 = rewardOf(first);
    let s1 = s0;
    await t.waitForScreen(
      (s) => {
        const n = stepOf(s);
        if (n > s1 && s1 === s0) s1 = n;
        return s1 > s0 && n > s1;
      },
      'two step advances',
      40_000,
    );
    await t.waitForScreen(
      (s) => rewardOf(s) !== null && rewardOf(s) !== '—' && rewardOf(s) !== r0,
      'a reward value change',
      40_000,
    );

    await t.type('?');
    await t.waitForScreen((s) => s.includes('Help — keys') && s.includes('quit the cockpit'), 'the help overlay');
    await t.type('x');
    await t.waitForScreen((s) => s.includes('─ Reward') && !s.includes('Help — keys'), 'the dashboard again');

    await t.type('q');
    const after = await t.waitForScreen((s) => s.includes('EXITED=0'), 'the demo to exit', 30_000);
    expect(after).not.toContain('─ Reward');
    expect(await t.display('#{alternate_on}')).toBe('0');
    expect(await t.display('#{cursor_flag}')).toBe('1');
    // Quitting the demo stopped its simulated run and removed its temp dir.
    expect(processesOf(run)).toEqual([]);
    expect(existsSync(run.dir)).toBe(false);
  });

  it(
    'out of the box, its Eval screen (5) has rounds in its table and the wandb run (offline)',
    { timeout: 150_000 },
    async () => {
      const { t, run } = await startDemo();
      started.push(t);
      runs.push(run);
      await t.type('5');
      const screen = await t.waitForScreen(
        // The table's head, then a round's row: round, model step, reward %, its 95% interval.
        (s) => /round\s+model step\s+reward%/.test(s) && /^[\s*]+\d+\s+\d+\s+\d+\.\d\s+\[\d+\.\d, \d+\.\d\]/m.test(s),
        'an eval round in the Eval screen',
        60_000,
      );
      expect(screen).toMatch(/best \d+\.\d% \[\d+\.\d%, \d+\.\d%\] of \d+\/\d+ at model step \d+ \(round \d+\)/);
      expect(screen).toMatch(/^wandb offline: run data in \/\S*\/areal-fileroot\/logs\//m);
      await t.type('q');
      await t.waitForScreen((s) => s.includes('EXITED=0'), 'the demo to exit', 30_000);
      expect(processesOf(run)).toEqual([]);
    },
  );

  it('killing the tmux server (SIGHUP) stops the run and removes the temp dir too', async () => {
    const { t, run } = await startDemo();
    started.push(t);
    runs.push(run);
    expect(processesOf(run).length).toBeGreaterThan(0);
    await t.kill();
    await waitFor(() => processesOf(run).length === 0, {
      timeoutMs: 20_000,
      what: `the processes of demo run ${run.runId} to go`,
    });
    await waitFor(() => !existsSync(run.dir), { timeoutMs: 10_000, what: `${run.dir} to be removed` });
    expect(processesOf(run)).toEqual([]);
  });

  it('opens its own config on the Config screen; a new launch from there runs, and q stops both runs (dead end 1)', async () => {
    const { t, run } = await startDemo();
    started.push(t);
    runs.push(run);
    await t.type('3');
    const config = await t.waitForScreen(
      (s) => /─ Config \S*sim_local\.yaml/.test(s),
      'the demo config on the Config screen',
      30_000,
    );
    expect(config).not.toContain('No config loaded');
    // A second run of the same trial is refused while the first runs: a new trial name.
    await t.type('+');
    await t.type('trial_name=second');
    await t.keys('Enter');
    await t.waitForScreen((s) => s.includes('1. trial_name=second') && s.includes('0 errors'), 'the override', 30_000);
    await t.type('L');
    // The demo's own run holds the (simulated) GPUs: the pre-flight says so and blocks; S launches
    // anyway (recorded in run.json), as it would on a real target.
    await t.waitForScreen(
      (s) => /pre-flight on local: .*launching is blocked/.test(s) && /S launch anyway/.test(s),
      'the pre-flight',
      60_000,
    );
    await t.type('S');
    await t.waitForScreen((s) => /launched/i.test(s), 'the launch', 60_000);
    // The second run, in the demo's directory beside the first.
    const second = await waitFor(
      () => {
        const ids = readdirSync(join(run.dir, '.awrl', 'runs')).filter((id) => id !== run.runId);
        for (const id of ids) {
          try {
            const pid = Number(readFileSync(join(run.dir, '.awrl', 'runs', id, 'job.pid'), 'utf8').trim());
            if (pid > 0) return { dir: run.dir, runId: id, jobPid: pid };
          } catch {
            /* not written yet */
          }
        }
        return null;
      },
      { timeoutMs: 30_000, what: 'the second run' },
    );
    runs.push(second);
    expect(processesOf(second).length).toBeGreaterThan(0);
    await t.type('q');
    await t.waitForScreen((s) => s.includes('EXITED=0'), 'the demo to exit', 60_000);
    await waitFor(() => processesOf(run).length === 0 && processesOf(second).length === 0, {
      timeoutMs: 20_000,
      what: 'both demo runs to stop',
    });
    expect(existsSync(run.dir)).toBe(false);
  }, 180_000);
});
