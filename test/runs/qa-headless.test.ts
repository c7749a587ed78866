// QA of the headless path as a scripting user meets it, against a real sshd with the simulator as
// the trainer: what `stop` does to a run that already ended, what Ctrl-C of `--follow` says, the
// exit code of a refused host key, and a `--resume` of a run that never saved a checkpoint.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCli, startCli, type CliProcess } from './cli-process.js';
import type { SshdHandle } from '../harness/sshd.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const SECRET = `qa-sentinel-${process.pid}-Hd7`;
const { start, cli } = sentinelCli(SECRET);

const runIdOf = (text: string): string => /^run\s+(\S+)/m.exec(text)![1];

describe('the headless path, as a scripting user meets it', { timeout: 120_000 }, () => {
  let sshd: SshdHandle;
  let workdir: string;
  let config: string;
  const running: CliProcess[] = [];
  let env: SimOverSshd;
  const target = (setup = '') => env.target(setup);
  const stateOf = async (runId: string) => {
    const r = await cli(['runs', ...target(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as Array<{ runId: string; state: string; detail: string }>).find(
      (x) => x.runId === runId,
    )!;
  };

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-qa-headless-');
    ({ sshd, workdir, config } = env);
  });
  afterAll(async () => {
    for (const p of running) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await env?.stop();
  });

  it('stop of a run that already finished keeps it `finished` and says there was nothing to stop', async () => {
    const r = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant'),
      '--config',
      config,
      'total_train_epochs=1',
      '++trial_name=qa-done',
      '--follow',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runId = runIdOf(r.stdout);
    expect(await stateOf(runId)).toMatchObject({ state: 'finished', detail: 'exit 0' });

    const stop = await cli(['stop', runId, ...target(), '--grace', '2']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`${runId} on ${sshd.alias} had already ended (finished: exit 0): nothing to stop`);
    expect(await stateOf(runId)).toMatchObject({ state: 'finished', detail: 'exit 0' });
    const record = JSON.parse(readFileSync(join(workdir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
    expect(record.stopRequestedAt).toBeUndefined();
  });

  it('Ctrl-C of --follow leaves the run going and says how to get back to it', async () => {
    const f = start([
      '--launch',
      ...target('AWRL_SIM_SPEED=150'),
      '--config',
      config,
      '++trial_name=qa-ctrlc',
      '--follow',
    ]);
    running.push(f);
    await waitFor(() => /^state\s+running/m.test(f.stdout), { timeoutMs: 60_000, what: 'the run to be running' });
    const runId = runIdOf(f.stdout);
    const pid = Number(/^pid\s+(\d+)/m.exec(f.stdout)![1]);
    f.child.kill('SIGINT');
    expect(await f.done).toBe(130);
    expect(f.stderr).toContain(`stopped following ${runId}; the run goes on on ${sshd.alias}`);
    expect(f.stderr).toContain(
      `awrl-tui watch ${runId} --target ${sshd.alias} -F ${sshd.sshConfigFile} --workdir ${workdir}`,
    );
    expect(f.stderr).toContain(`awrl-tui runs --target ${sshd.alias}`);
    expect(f.stderr).not.toMatch(/\n\s+at /);
    expect(pidAlive(pid)).toBe(true);
    expect((await stateOf(runId)).state).toBe('running');

    const stop = await cli(['stop', runId, ...target(), '--grace', '5']);
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`SIGTERM to process group ${pid}`);
    expect(pidAlive(pid)).toBe(false);
    expect((await stateOf(runId)).state).toBe('stopped');
  });

  it('an unknown host key is refused as bad input (exit 2) by --launch, runs and stop; nothing is created', async () => {
    const kh = join(sshd.dir, 'qa_known_hosts_empty');
    writeFileSync(kh, '');
    const file = join(sshd.dir, 'qa_ssh_config_unknown');
    writeFileSync(
      file,
      readFileSync(sshd.sshConfigFile, 'utf8').replace(/UserKnownHostsFile .*/, `UserKnownHostsFile ${kh}`),
    );
    const t = ['--target', sshd.alias, '-F', file, '--workdir', workdir];
    for (const args of [
      ['--launch', ...t, '--config', config, '++trial_name=qa-hostkey'],
      ['runs', ...t],
      ['stop', 'r-none', ...t],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/host key of .* is unknown: SHA256:\S+.*--accept-new-host-key/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(kh, 'utf8')).toBe('');
    // An unreachable host stays a lost connection (4).
    const gone = await cli(['runs', '--target', 'nobody@127.0.0.1:1', '--workdir', workdir]);
    expect(gone.code).toBe(4);
    // preflight gives the same advice, and takes the flag it advises.
    const pf = await cli(['preflight', ...t, '--config', config]);
    expect(pf.code).toBe(2);
    expect(pf.stderr).toMatch(/is unknown: SHA256:\S+.*--accept-new-host-key/);
    const accepted = await cli(['preflight', ...t, '--config', config, '--json', '--accept-new-host-key']);
    expect(accepted.stderr).not.toMatch(/cannot reach|unknown option/);
    expect(JSON.parse(accepted.stdout).target).toBe(sshd.alias);
    expect(readFileSync(kh, 'utf8')).toMatch(/^\|1\|/); // the key, written hashed
  });

  it('a secret name the remote shell cannot export is refused before anything is created (exit 2)', async () => {
    const runs = join(workdir, '.awrl', 'runs');
    const before = existsSync(runs) ? readdirSync(runs).length : 0;
    const p = startCli(
      [
        '--launch',
        ...target(),
        '--config',
        config,
        'webgym.cpu_cluster_token_env_var=MY-TOKEN',
        '++trial_name=qa-badname',
      ],
      { 'MY-TOKEN': SECRET },
    );
    expect(await p.done).toBe(2);
    expect(p.stderr).toContain("'MY-TOKEN' is not a usable environment variable name");
    expect(p.stdout + p.stderr).not.toContain(SECRET);
    expect(existsSync(runs) ? readdirSync(runs).length : 0).toBe(before);
  });

  it('two launches of the same experiment+trial at the same moment never both start', async () => {
    const args = [
      '--launch',
      ...target('AWRL_SIM_SPEED=150'),
      '--config',
      config,
      '++trial_name=qa-twin',
      '--skip-preflight',
      '--json',
    ];
    const [a, b] = [start(args), start(args)];
    running.push(a, b);
    const codes = await Promise.all([a.done, b.done]);
    for (const [i, p] of [a, b].entries()) {
      expect([0, 2], p.stderr).toContain(codes[i]);
      if (codes[i] === 2)
        expect(p.stderr).toMatch(
          /^awrl-tui: run qa-twin-\S+ of this trial (was launched at the same time|is already)/m,
        );
    }
    const r = await cli(['runs', ...target(), '--json']);
    const twins = (JSON.parse(r.stdout) as Array<{ runId: string; trial: string; state: string }>).filter(
      (x) => x.trial === 'qa-twin',
    );
    const live = twins.filter((x) => x.state === 'running' || x.state === 'submitted');
    expect(live.length).toBeLessThanOrEqual(1);
    expect(live.length).toBe(codes.filter((c) => c === 0).length);
    for (const x of live) expect((await cli(['stop', x.runId, ...target(), '--grace', '5'])).code).toBe(0);
  });

  it('--follow --json | head: the follower ends quietly when its reader goes, the run goes on', async () => {
    const f = start([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant'),
      '--config',
      config,
      'total_train_epochs=1',
      '++trial_name=qa-pipe',
      '--follow',
      '--json',
    ]);
    running.push(f);
    await waitFor(() => f.stdout.includes('\n'), { timeoutMs: 60_000, what: 'the first event line' });
    f.child.stdout!.destroy(); // like `head -1` exiting
    expect(await f.done).toBe(0);
    expect(f.stderr).not.toMatch(/EPIPE|\n\s+at /);
    const runId = runIdOf(f.stderr);
    await waitFor(async () => (await stateOf(runId)).state === 'finished', {
      timeoutMs: 60_000,
      what: 'the run to finish on its own',
    });
    // `follow RUN --json | head` too: its lines go straight to fd 1, whose EPIPE ends it quietly.
    const again = start(['follow', runId, ...target(), '--json']);
    running.push(again);
    await waitFor(() => again.stdout.includes('\n'), { timeoutMs: 60_000, what: "follow's first line" });
    again.child.stdout!.destroy();
    expect(await again.done).toBe(0);
    expect(again.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('--resume of a run that never checkpointed warns that it starts over, then runs from step 1', async () => {
    const r = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant AWRL_SIM_FAULT=oom@1'),
      '--config',
      config,
      'total_train_epochs=1',
      '++trial_name=qa-nockpt',
      '--follow',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const runId = runIdOf(r.stdout);
    const again = await cli(['--launch', '--resume', runId, ...target('AWRL_SIM_SPEED=instant'), '--follow']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /^WARN +resume +no recover checkpoint for \S+\/qa-nockpt: this resume STARTS OVER from step 1/m,
    );
    expect(again.stdout).toMatch(/^step 1\/8 /m);
    expect(again.stdout).toMatch(/^step 8\/8 /m);
  });
});
