// A running run whose run.json was cut short (a disk that filled mid-write), over a real sshd with the
// simulator as the trainer: `runs` lists it as unknown with the reason and that its job (job.pid) is
// alive; `follow` still reads its log; `stop` still ends its job through the pid file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive, waitFor } from '../harness/wait.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { sentinelCli, startCli } from './cli-process.js';

const { cli, killAll } = sentinelCli(`cut-json-${process.pid}-Wd`);
let env: SimOverSshd;

beforeAll(async () => {
  env = await startSimOverSshd('awrl-cutjson-ssh-');
}, 60_000);

afterAll(async () => {
  killAll();
  await env?.stop();
});

describe('a running run whose run.json is cut short, over ssh', () => {
  it('runs: unknown with the reason; follow reads its log; stop ends its job by the pid file', async () => {
    const target = env.target('AWRL_SIM_SPEED=150');
    const launched = await cli(['--launch', ...target, '--config', env.config, '++trial_name=cut-json']);
    expect(launched.code, launched.stderr).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(launched.stdout)![1];
    const pid = Number(/^pid\s+(\d+)/m.exec(launched.stdout)![1]);
    const runDir = join(env.workdir, '.awrl', 'runs', runId);
    await waitFor(() => /Train step \d+\/\d+ done/.test(readFileSync(join(runDir, 'stdout.log'), 'utf8')), {
      timeoutMs: 30_000,
      what: 'a first step in the log',
    });
    // The disk filled while run.json was rewritten: its first 70 bytes only.
    writeFileSync(join(runDir, 'run.json'), readFileSync(join(runDir, 'run.json')).subarray(0, 70));

    const runs = await cli(['runs', ...target, '--json']);
    expect(runs.code, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toContainEqual(
      expect.objectContaining({
        runId,
        state: 'unknown',
        detail: 'run.json unreadable (cut short or corrupt); its job (job.pid) is alive',
      }),
    );

    const f = startCli(['follow', runId, ...target], { CPU_CLUSTER_TOKEN: 'x' });
    try {
      await waitFor(() => /^step \d+\/\d+/m.test(f.stdout), { timeoutMs: 30_000, what: 'a step followed' });
      expect(f.stderr).toContain(`${runId}: run.json unreadable (cut short or corrupt)`);
    } finally {
      f.child.kill('SIGINT');
      await f.done;
    }

    expect(pidAlive(pid)).toBe(true);
    const stopped = await cli(['stop', runId, ...target, '--grace', '5']);
    expect(stopped.stdout).toContain(`SIGTERM to process group ${pid}`);
    await waitFor(() => !pidAlive(pid), { timeoutMs: 10_000, what: 'the job gone' });
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(0);
  }, 120_000);
});
