// `awrl-tui follow RUN`: the headless way back to a run that is already going, over a real sshd with
// the simulator as the trainer. `--json` gives every event of the log once (the same lines as
// `parse --json` of the whole log), then the run's end sets the exit code. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, sentinelCli } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = join(ROOT, 'bin', 'awrl-tui.js');
const runIdOf = (text: string): string => /^run\s+(\S+)/m.exec(text)![1];
const { start, killAll } = sentinelCli(`follow-sentinel-${process.pid}-Qz4`);

describe('awrl-tui follow RUN', { timeout: 120_000 }, () => {
  let env: SimOverSshd;
  const target = (setup = '') => env.target(setup);
  const launch = async (speed: string, trial: string) => {
    const l = start([
      '--launch',
      ...target(`AWRL_SIM_SPEED=${speed}`),
      '--config',
      env.config,
      'total_train_epochs=1',
      `++trial_name=${trial}`,
    ]);
    expect(await l.done, (l.stdout + l.stderr).slice(-600)).toBe(0);
    return { runId: runIdOf(l.stdout), pid: Number(/^pid\s+(\d+)/m.exec(l.stdout)?.[1]) };
  };

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-follow-');
  });
  afterAll(async () => {
    killAll();
    await env?.stop();
  });

  it('--json: every event of the log once, in order (as parse --json of the whole log), then exit 0 when it finishes', async () => {
    // A nan grad norm at step 3: --json writes it as "nan", as parse --json does (JSON has no NaN).
    const { runId } = await launch('600 AWRL_SIM_FAULT=nan-grad@3', 'follow-json');
    const f = start(['follow', runId, ...target(), '--json']);
    expect(await f.done, f.stderr).toBe(0);
    const events = f.stdout
      .split('\n')
      .filter((l) => l && !/^\{"type":"(alert|alert-cleared|run|state|connection)"/.test(l));
    const steps = events
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'step')
      .map((e) => e.globalStep);
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.find((l) => l.includes('"globalStep":3,'))).toContain('"ppo_actor/update/grad_norm":"nan"');
    const log = join(env.workdir, '.awrl', 'runs', runId, 'stdout.log');
    const parsed = spawnSync(process.execPath, [BIN, 'parse', '--json', log], { encoding: 'utf8' });
    expect(events).toEqual(parsed.stdout.trimEnd().split('\n'));
    expect(f.stderr).toMatch(/^state\s+finished/m);
    // A script learns the run and its fate on stdout: the first line and the last line.
    const lines = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ type: 'run', runId, target: expect.any(String) });
    expect(lines[lines.length - 1]).toMatchObject({ type: 'state', runId, state: 'finished', exit: 0 });
  });

  it("--json judges staleness by the run's own config, whatever secrets this machine lacks", async () => {
    const { runId } = await launch('600', 'follow-facts');
    const dir = join(env.workdir, '.awrl', 'runs', runId);
    // Ended first: the trainer read its config as launched.
    await waitFor(() => existsSync(join(dir, 'exit.code')), { timeoutMs: 60_000, what: 'the run to end' });
    const argv = (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { argv: string[] }).argv;
    const configPath = argv[argv.indexOf('--config') + 1];
    // The run as the follow reads it: a budget of 0 (its steps were over it), and W&B online,
    // whose key this machine does not have (an error for a launch from here, not for the budget).
    const config = readFileSync(configPath, 'utf8')
      .replace(/max_head_offpolicyness: \d+/, 'max_head_offpolicyness: 0')
      .replace(/mode: disabled/, 'mode: online');
    expect(config).toMatch(/max_head_offpolicyness: 0[\s\S]*mode: online/);
    writeFileSync(configPath, config);
    expect(process.env.WANDB_API_KEY).toBeUndefined();
    const f = start(['follow', runId, ...target(), '--json']);
    expect(await f.done, f.stderr).toBe(0);
    const lines = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const stale = lines.filter(
      (e) => e.type === 'step' && (e.stats as Record<string, number>)['staleness/gap/offpolicy_max'] > 0,
    );
    expect(stale.length).toBeGreaterThan(0);
    expect(lines.find((e) => e.type === 'alert' && e.id === 'staleness-over-budget')).toMatchObject({
      detail: expect.stringContaining('rollout.max_head_offpolicyness = 0'),
    });
  });

  it('without --json: progress lines; Ctrl-C leaves the run going and says how to follow it again', async () => {
    const { runId, pid } = await launch('150', 'follow-ctrlc');
    const f = start(['follow', runId, ...target()]);
    await waitFor(() => /step\s+\d+\/8/.test(f.stdout) || /^state\s+running/m.test(f.stdout), {
      timeoutMs: 60_000,
      what: 'the follower to print the run',
    });
    f.child.kill('SIGINT');
    expect(await f.done).toBe(130);
    expect(f.stderr).toContain(`stopped following ${runId}; the run goes on`);
    expect(f.stderr).toContain(`awrl-tui follow ${runId} --target ${env.sshd.alias}`);
    expect(pidAlive(pid)).toBe(true);
    const stop = start(['stop', runId, ...target(), '--grace', '5']);
    expect(await stop.done, stop.stdout + stop.stderr).toBe(0);
    expect(pidAlive(pid)).toBe(false);
  });

  it('an unknown run is bad input (exit 2) naming where it looked and how to list runs', async () => {
    const f = start(['follow', 'no-such-run-20260101-000000-abcd', ...target()]);
    expect(await f.done).toBe(2);
    expect(f.stderr).toContain('no run no-such-run-20260101-000000-abcd on');
    expect(f.stderr).toContain('awrl-tui runs --target');
    expect(f.stderr).not.toMatch(/\n\s+at /);
  });
});
