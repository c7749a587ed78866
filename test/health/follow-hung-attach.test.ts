// `awrl-tui follow RUN --json` over a real sshd, attaching to a run that hung 3 h ago: the simulated
// trainer hangs for good in step 4's rollout wait and its log's mtime is set 3 h back. The stall is
// reported as soon as the backlog is read (without the silence counted, not before 3x the ~10 min
// simulated step had passed after attaching), once, after step 3's event, saying the log has been
// silent for 3 h. Needs dist/ built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';
import { waitFor } from '../harness/wait.js';

const runIdOf = (text: string): string => /^run\s+(\S+)/m.exec(text)![1];
const { start, killAll } = sentinelCli(`hung-attach-sentinel-${process.pid}-Qz4`);
const HANG_IDS = (id: string) => id === 'stall' || id.startsWith('health/stall/') || id === 'health/resume/no-progress';
const H = 3600_000;

type Line = { type: string; id?: string; step?: number; globalStep?: number; detail?: string };

describe('follow --json: attaching to a run hung 3 h ago', { timeout: 120_000 }, () => {
  let env: SimOverSshd;
  let runId: string | null = null;

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-hung-attach-');
  });
  afterAll(async () => {
    killAll();
    // The hung trainer never ends by itself.
    if (runId) await start(['stop', runId, ...env.target(), '--grace', '2']).done;
    await env?.stop();
  });

  it('prints the stall at once, with the silence, after step 3', async () => {
    const l = start([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant AWRL_SIM_FAULT=stall:rollout_wait@4'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=hung-attach',
    ]);
    expect(await l.done, (l.stdout + l.stderr).slice(-600)).toBe(0);
    runId = runIdOf(l.stdout);
    const log = join(env.workdir, '.awrl/runs', runId, 'stdout.log');
    await waitFor(
      () => {
        const s = JSON.parse(readFileSync(join(env.workdir, 'state', 'state.json'), 'utf8')) as {
          phase?: string;
          step?: number;
        };
        return s.phase === 'rollout_wait' && s.step === 4 && readFileSync(log, 'latin1').includes('Train step 3/');
      },
      { timeoutMs: 60_000, what: 'the simulated trainer to hang in rollout_wait at step 4' },
    );
    const mtime = (Date.now() - 3 * H) / 1000;
    utimesSync(log, mtime, mtime);
    const f = start(['follow', runId, ...env.target(), '--json']);
    const lines = () =>
      f.stdout
        .split('\n')
        .filter((x) => x.startsWith('{'))
        .map((x) => JSON.parse(x) as Line);
    await waitFor(() => lines().some((x) => x.type === 'alert' && HANG_IDS(x.id!)), {
      timeoutMs: 25_000,
      what: 'the hang alert',
    });
    f.child.kill('SIGTERM');
    expect(await f.done).toBe(143);
    const all = lines();
    const hangs = all.filter((x) => x.type === 'alert' && HANG_IDS(x.id!));
    expect(hangs.map((h) => [h.id, h.step])).toEqual([['health/stall/rollout_wait', 4]]);
    expect(hangs[0].detail).toMatch(/the log has been silent for 3 h$/);
    expect(
      all
        .slice(0, all.indexOf(hangs[0]))
        .filter((x) => x.type === 'step')
        .map((x) => x.globalStep),
    ).toEqual([1, 2, 3]);
    expect(all.some((x) => x.type === 'alert-cleared')).toBe(false);
  });
});
