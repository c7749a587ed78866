// Issue #17 §3-5 from the command line over a real sshd: one verdict on secrets (pre-flight and
// launch agree; --forward-env adds, --no-forward-env narrows loudly), the twin check first with the
// full stop command, resuming a finished run needs a yes or --force, and a missing --workdir is
// said by runs/follow (exit 2). Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const TOKEN = `verdict-token-${process.pid}`;

describe('launch verdicts over ssh', () => {
  let env: SimOverSshd;
  const started: CliProcess[] = [];
  const jobs: number[] = [];
  beforeAll(async () => {
    env = await startSimOverSshd('awrl-verdicts-');
  });
  afterAll(async () => {
    for (const p of started) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    for (const pid of jobs) if (pidAlive(pid)) process.kill(-pid, 'SIGKILL');
    await env?.stop();
  });

  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: TOKEN, ...extra });
    started.push(p);
    const code = await p.done;
    expect(p.stdout + p.stderr).not.toContain(TOKEN);
    return { code, stdout: p.stdout, stderr: p.stderr };
  };
  const runsDir = () => join(env.workdir, '.awrl', 'runs');
  const dirsOf = (trial: string) =>
    existsSync(runsDir()) ? readdirSync(runsDir()).filter((d) => d.startsWith(`${trial}-`)) : [];
  const jobPid = (runId: string) => Number(readFileSync(join(runsDir(), runId, 'job.pid'), 'utf8'));
  const jobEnv = (runId: string): string[] => {
    const pid = jobPid(runId);
    jobs.push(pid);
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  };
  /** Ends a run's job (its group), so the next launch's pre-flight finds the GPUs idle. */
  const endJob = async (runId: string) => {
    const pid = jobPid(runId);
    if (pidAlive(pid)) process.kill(-pid, 'SIGTERM');
    await waitFor(() => !pidAlive(pid), { timeoutMs: 30_000, what: `job ${pid} to end` });
  };
  const runIdOf = (out: string) => /^run\s+(\S+)/m.exec(out)![1];

  it('pre-flight and launch agree on a --forward-env name that is not set: both refuse it', async () => {
    const pf = await run([
      'preflight',
      ...env.target(),
      '--config',
      env.config,
      '--forward-env',
      'UNSET_VERDICT_X',
      '--json',
    ]);
    expect(pf.code).toBe(2);
    const secrets = (JSON.parse(pf.stdout).checks as Array<{ id: string; result: string; seen: string }>).find(
      (c) => c.id === 'secrets',
    )!;
    expect(secrets).toMatchObject({ result: 'error', seen: expect.stringContaining('UNSET_VERDICT_X is not set') });
    const l = await run([
      '--launch',
      ...env.target(),
      '--config',
      env.config,
      '++trial_name=unset-x',
      '--forward-env',
      'UNSET_VERDICT_X',
    ]);
    expect(l.code).toBe(2);
    expect(l.stderr).toMatch(/awrl-tui: missing environment variable UNSET_VERDICT_X/);
    expect(dirsOf('unset-x')).toEqual([]);
  }, 120_000);

  it('--forward-env adds to what the config needs; --no-forward-env drops, loudly', async () => {
    const add = await run(
      ['--launch', ...env.target(), '--config', env.config, '++trial_name=adds', '--forward-env', 'EXTRA_VERDICT'],
      { EXTRA_VERDICT: 'e1' },
    );
    expect(add.code, add.stderr).toBe(0);
    const e = jobEnv(runIdOf(add.stdout));
    expect(e).toContain(`CPU_CLUSTER_TOKEN=${TOKEN}`);
    expect(e).toContain('EXTRA_VERDICT=e1');

    // A running twin is the first answer (before any pre-flight), with the full stop command.
    const first = dirsOf('adds')[0];
    const again = await run(
      ['--launch', ...env.target(), '--config', env.config, '++trial_name=adds', '--forward-env', 'EXTRA_VERDICT'],
      { EXTRA_VERDICT: 'e1' },
    );
    expect(again.code).toBe(2);
    expect(again.stdout).not.toContain('preflight on');
    const setup = env.target()[env.target().indexOf('--setup') + 1];
    expect(again.stderr).toContain(
      `awrl-tui: run ${first} of this trial is already running on ${env.sshd.alias}: stop it first (awrl-tui stop ${first} --target ${env.sshd.alias} -F ${env.sshd.sshConfigFile} --workdir ${env.workdir} --setup '${setup}') or pass --force`,
    );
    expect(dirsOf('adds')).toEqual([first]);
    await endJob(first);

    const drop = await run([
      '--launch',
      ...env.target(),
      '--config',
      env.config,
      '++trial_name=drops',
      '--no-forward-env',
      'CPU_CLUSTER_TOKEN',
    ]);
    expect(drop.code, drop.stderr).toBe(0);
    expect(drop.stderr).toMatch(/warning: --no-forward-env CPU_CLUSTER_TOKEN: NOT forwarding CPU_CLUSTER_TOKEN/);
    expect(drop.stdout).toMatch(/WARN\s+secrets\s.*CPU_CLUSTER_TOKEN NOT forwarded/);
    expect(jobEnv(runIdOf(drop.stdout)).some((x) => x.startsWith('CPU_CLUSTER_TOKEN='))).toBe(false);
    await endJob(runIdOf(drop.stdout));
  }, 120_000);

  it('resuming a finished run needs --force, says it re-runs from the last checkpoint; an optional key set at launch is not required then', async () => {
    const gem = ['++openai_config.openai_api_key_env_var=GEMINI_API_KEY'];
    const l = await run(
      [
        '--launch',
        ...env.target('AWRL_SIM_SPEED=instant'),
        '--config',
        env.config,
        '++trial_name=fin',
        'total_train_epochs=1',
        ...gem,
        '--follow',
      ],
      { GEMINI_API_KEY: 'g' },
    );
    expect(l.code, l.stdout + l.stderr).toBe(0);
    const id = runIdOf(l.stdout);
    expect(JSON.parse(readFileSync(join(runsDir(), id, 'run.json'), 'utf8')).secretNames).toContain('GEMINI_API_KEY');

    const refused = await run(['--launch', '--resume', id, ...env.target('AWRL_SIM_SPEED=instant'), '--json']);
    expect(refused.code).toBe(2);
    const line = JSON.parse(refused.stdout.trim().split('\n').pop()!);
    expect(line).toMatchObject({ type: 'cli-error', code: 'run-finished' });
    expect(line.message).toMatch(
      new RegExp(`run ${id} finished .*resuming runs it again from its last recover checkpoint.*--force`),
    );
    expect(JSON.parse(readFileSync(join(runsDir(), id, 'run.json'), 'utf8')).attempts).toHaveLength(1);

    // GEMINI_API_KEY is not set now: optional, so not forwarded and not a refusal.
    const forced = await run(['--launch', '--resume', id, ...env.target('AWRL_SIM_SPEED=instant'), '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`run ${id} finished`);
    expect(forced.stdout).toContain('--force: it runs again from its last recover checkpoint');
    const rec = JSON.parse(readFileSync(join(runsDir(), id, 'run.json'), 'utf8'));
    expect(rec.attempts).toHaveLength(2);
    expect(rec.secretNames).toEqual(['CPU_CLUSTER_TOKEN']);
  }, 180_000);

  it('runs and follow with a --workdir that does not exist say so (exit 2)', async () => {
    const t = env.target();
    t[t.indexOf('--workdir') + 1] = `${env.workdir}/no-such-checkout`;
    for (const args of [
      ['runs', ...t],
      ['follow', 'some-run-20260101-000000-0000', ...t],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`workdir ${env.workdir}/no-such-checkout does not exist on ${env.sshd.alias}`);
    }
  }, 120_000);
});
