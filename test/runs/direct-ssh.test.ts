// A direct (detached process group) run over a real sshd: launch, survive a cut connection, be found
// again by listRuns, follow its log, stop with nothing left behind, secrets never leak, and an
// override full of shell metacharacters reaches the trainer byte for byte.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, mkdirSync, copyFileSync, readFileSync, readdirSync, existsSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import {
  launchRun,
  listRuns,
  stopRun,
  followRun,
  RunError,
  type LaunchPlan,
  type Target,
} from '../../src/runs/index.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { startSshd, descendants, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const FAKE_TRAINER = new URL('./fixtures/webgym/train.py', import.meta.url).pathname;
const SENTINEL = `sentinel-${process.pid}-${Date.now()}-Zq9`;
const WEIRD = `a'b"c;$(touch PWNED)\`touch PWNED2\`\${oc.env:HOME} | & > <x> \\ {}[],*?~#!`;

function taggedPids(runId: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`).toString('latin1').split('\0').includes(`AWRL_RUN_ID=${runId}`))
        out.push(Number(name));
    } catch {
      /* gone or not ours to read */
    }
  }
  return out.filter(pidAlive);
}

function allCmdlines(): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.push(readFileSync(`/proc/${name}/cmdline`).toString('latin1'));
    } catch {
      /* gone */
    }
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe('direct run over ssh', () => {
  let sshd: SshdHandle;
  let t: Transport;
  let workdir: string;
  let target: Target;
  const cmdlines = new Set<string>();
  let sampler: NodeJS.Timeout;

  beforeAll(async () => {
    sshd = await startSshd();
    t = await openTransport(sshd.alias, {
      sshConfigFile: sshd.sshConfigFile,
      followPollMs: 30,
      reconnect: { baseMs: 100, capMs: 500 },
    });
    workdir = mkdtempSync(join(tmpdir(), 'awrl-runs-direct-'));
    mkdirSync(join(workdir, 'webgym'));
    copyFileSync(FAKE_TRAINER, join(workdir, 'webgym', 'train.py'));
    target = {
      name: sshd.alias,
      host: sshd.alias,
      workdir,
      python: '/usr/bin/python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    // Every process command line seen while the run lives: the secret must be in none of them.
    sampler = setInterval(() => allCmdlines().forEach((c) => cmdlines.add(c)), 25);
  });
  afterAll(async () => {
    clearInterval(sampler);
    await t?.close();
    await sshd?.stop();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  const plan = (steps: number): LaunchPlan => ({
    target,
    configText: 'experiment_name: exp-a\ntrial_name: trial-1\n',
    experiment: 'exp-a',
    trial: 'trial-1',
    trainerArgv: (cfg) => [
      '/usr/bin/python3',
      'webgym/train.py',
      '--config',
      cfg,
      `++fake.steps=${steps}`,
      '++fake.delay=0.15',
      `++fake.evidence=${workdir}/evidence.json`,
      `++weird=${WEIRD}`,
    ],
    secretNames: ['AWRL_SENTINEL'],
    nodes: 1,
  });

  it('refuses to launch when a secret is missing, before touching the target', async () => {
    await expect(launchRun(plan(1), t, { env: {} })).rejects.toThrow(/missing environment variable AWRL_SENTINEL/);
    expect(existsSync(join(workdir, '.awrl'))).toBe(false);
  });

  it('launches, survives a cut connection, follows, is listed, stops cleanly, leaks no secret', async () => {
    const res = await launchRun(plan(100_000), t, { env: { AWRL_SENTINEL: SENTINEL } });
    const pid = res.pid!;
    expect(pid).toBeGreaterThan(0);
    expect(res.runDir).toBe(`${workdir}/.awrl/runs/${res.record.runId}`);
    for (const f of ['config.yaml', 'run.json', 'stdout.log']) expect(existsSync(join(res.runDir, f))).toBe(true);
    expect(readFileSync(join(res.runDir, 'config.yaml'), 'utf8')).toBe('experiment_name: exp-a\ntrial_name: trial-1\n');

    // The trainer got the override byte for byte, the secret in its environment, and the run tag.
    const evidence = await waitFor(
      () =>
        existsSync(join(workdir, 'evidence.json')) && JSON.parse(readFileSync(join(workdir, 'evidence.json'), 'utf8')),
      {
        timeoutMs: 30_000,
        what: 'the trainer to write its evidence',
      },
    );
    expect(evidence.argv).toEqual(res.record.argv.slice(1));
    expect(evidence.argv).toContain(`++weird=${WEIRD}`);
    expect(evidence.sentinel_sha256).toBe(createHash('sha256').update(SENTINEL).digest('hex'));
    expect(evidence.run_id).toBe(res.record.runId);
    expect(evidence.cwd).toBe(workdir);
    expect(existsSync(join(workdir, 'PWNED')) || existsSync(join(workdir, 'PWNED2'))).toBe(false);

    // A second launch of the same experiment+trial is refused while the first runs.
    const again = await launchRun(plan(1), t, { env: { AWRL_SENTINEL: SENTINEL } }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RunError);
    expect(String((again as Error).message)).toContain(res.record.runId);

    // Cut the SSH connection from the server side: every sshd session process dies.
    const sessions = descendants(sshd.pid);
    expect(sessions.length).toBeGreaterThan(0);
    for (const p of sessions) process.kill(p, 'SIGKILL');
    await waitFor(() => t.state.state !== 'ready', { timeoutMs: 10_000, what: 'the transport to notice the cut' });
    await waitFor(() => t.state.state === 'ready', { timeoutMs: 60_000, what: 'the transport to reconnect' });
    expect(pidAlive(pid)).toBe(true);

    const listed = await listRuns(t, target);
    const me = listed.find((r) => r.runId === res.record.runId);
    expect(me?.state).toBe('running');
    expect(me?.record.attempts[0].pid).toBe(pid);

    // Following the log yields step events, in order, each once.
    const steps: number[] = [];
    const f = followRun(t, res.logPath, {
      onEvent: (e: TrainerEvent) => e.type === 'step' && steps.push(e.globalStep),
    });
    await waitFor(() => steps.length >= 3, { timeoutMs: 60_000, what: 'three steps' });
    f.close();
    expect(steps).toEqual(steps.map((_, i) => steps[0] + i));

    const report = await stopRun(t, target, res.record.runId, { graceSeconds: 5 });
    expect(report.terminated).toEqual([pid]);
    expect(report.left).toEqual([]);
    await waitFor(() => !pidAlive(pid) && taggedPids(res.record.runId).length === 0, {
      timeoutMs: 10_000,
      what: 'no process of the run left',
    });
    const after = (await listRuns(t, target)).find((r) => r.runId === res.record.runId);
    expect(after?.state).toBe('stopped');

    // The secret is nowhere: command lines seen during the run, files in the run dir, the sshd log.
    allCmdlines().forEach((c) => cmdlines.add(c));
    expect(cmdlines.size).toBeGreaterThan(10);
    expect([...cmdlines].filter((c) => c.includes(SENTINEL))).toEqual([]);
    for (const file of [
      ...filesUnder(res.runDir),
      ...filesUnder(sshd.dir).filter((p) => statSync(p).size < 10_000_000),
    ]) {
      expect(readFileSync(file).includes(SENTINEL), file).toBe(false);
    }
  }, 300_000);
});
