// The Slurm backend against a real one-node Slurm (munged, slurmctld, slurmd started by the harness),
// reached over a real sshd, with the simulator as the trainer, through the same plan -> launch ->
// list path as `awrl-tui --launch` and `awrl-tui runs`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join, dirname } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import {
  planFromConfig,
  launchRun,
  listRuns,
  stopRun,
  resolveTarget,
  runNodes,
  type Target,
} from '../../src/runs/index.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

const ROOT = dirname(dirname(dirname(new URL(import.meta.url).pathname)));
const TOKEN = `slurm-sentinel-${process.pid}-Qx7`;
const ENV = { CPU_CLUSTER_TOKEN: TOKEN };

describe('slurm backend over ssh', () => {
  let slurm: SlurmCluster;
  let sshd: SshdHandle;
  let workdir: string;
  let config: string;
  let t: Transport;
  let target: (o?: { timeLimit?: string }) => Target;

  beforeAll(async () => {
    [slurm, sshd] = await Promise.all([startSlurm(), startSshd()]);
    workdir = mkdtempSync(join(tmpdir(), 'awrl-runs-slurm-'));
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256); // 8 steps per epoch at batch 32
    // Sourced by every script that runs the setup line (sbatch, squeue, the job): the job records where.
    writeFileSync(
      join(workdir, 'awrl-env.sh'),
      'if [ -n "${AWRL_RUN_DIR:-}" ]; then echo "$PWD" > "$AWRL_RUN_DIR/setup-pwd"; fi\n',
    );
    target = (o = {}) => {
      const r = resolveTarget(
        {
          target: sshd.alias,
          sshConfigFile: sshd.sshConfigFile,
          workdir,
          backend: 'slurm',
          // `. ./awrl-env.sh`: the setup line runs in the workdir, as for a direct launch.
          setup: `${slurm.setupLine}; export AWRL_SIM_SPEED=300; . ./awrl-env.sh`,
          partition: slurm.partition,
          gpusPerNode: 0,
          cpusPerTask: 1,
          timeLimit: o.timeLimit,
        },
        {},
      );
      if (typeof r === 'string') throw new Error(r);
      return r;
    };
    t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([slurm?.stop(), sshd?.stop()]);
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  async function runState(runId: string) {
    return (await listRuns(t, target())).find((x) => x.runId === runId);
  }

  async function launch(overrides: string[], o: { timeLimit?: string; autoResume?: number } = {}) {
    const planned = planFromConfig({
      target: target(o),
      fileName: config,
      text: readFileSync(config, 'utf8'),
      overrides,
      env: ENV,
      autoResume: o.autoResume,
    });
    if (!planned.ok) throw new Error(planned.messages.join('\n'));
    return { res: await launchRun(planned.plan, t, { env: ENV }), messages: planned.messages };
  }

  it('submits; runs shows PENDING, RUNNING, COMPLETED', async () => {
    // Hold both CPUs so the run has to wait in the queue.
    const blocker = execFileSync('sbatch', ['--parsable', '-c', '2', '--wrap', 'sleep 600'], {
      env: slurm.env,
      cwd: slurm.dir,
      encoding: 'utf8',
    }).trim();
    const { res: info } = await launch(['total_train_epochs=1', '++trial_name=slurm-basic']);
    expect(info.jobIds).toHaveLength(1);
    expect(info.record.secretNames).toEqual(['CPU_CLUSTER_TOKEN']);

    const pending = await runState(info.record.runId);
    expect(pending?.state).toBe('pending');
    expect(pending?.detail).toContain(`job ${info.jobIds[0]} PENDING`);

    execFileSync('scancel', [blocker], { env: slurm.env });
    const running = await waitFor(
      async () => ((await runState(info.record.runId))?.state === 'running' ? true : null),
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'the run to be RUNNING',
      },
    );
    expect(running).toBe(true);
    const done = await waitFor(
      async () => {
        const s = await runState(info.record.runId);
        return s && s.state !== 'running' && s.state !== 'pending' ? s : null;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'the run to end' },
    );
    expect(done.state).toBe('finished');
    expect(done.detail).toContain('COMPLETED');
    // The batch script recorded the attempt's node list (this one-node cluster's node) for the leftover check.
    expect(done.record.attempts[0].nodes).toEqual([hostname().split('.')[0]]);
    expect(runNodes(done.record)).toEqual([hostname().split('.')[0]]);

    const log = readFileSync(join(info.runDir, 'stdout.log'));
    expect(parseLogBytes(log).filter((e) => e.type === 'step')).toHaveLength(8);
    expect(readFileSync(join(info.runDir, 'setup-pwd'), 'utf8').trim()).toBe(workdir);
    for (const f of readdirSync(info.runDir)) expect(readFileSync(join(info.runDir, f)).includes(TOKEN), f).toBe(false);
  }, 300_000);

  it('a one-minute time limit with --auto-resume 1 is resubmitted after TIMEOUT and resumes from its recover point', async () => {
    // ~40 steps of ~2.5 s: more than the 60-90 s a one-minute job lives, less than two of them.
    const { res: info, messages } = await launch(
      ['total_train_epochs=5', 'recover.freq_steps=1', '++trial_name=slurm-timeout', 'recover.freq_secs=null'],
      { timeLimit: '1', autoResume: 1 },
    );
    expect(messages.join('\n')).toMatch(/recover\.freq_secs is unset/);
    expect(info.jobIds).toHaveLength(2); // attempt 1 and its afternotok successor

    const end = await waitFor(
      async () => {
        const s = await runState(info.record.runId);
        return s && ['finished', 'failed', 'stopped', 'timeout'].includes(s.state) ? s : null;
      },
      { timeoutMs: 280_000, intervalMs: 2000, what: 'the resubmitted run to end' },
    );
    expect(end.state, end.detail).toBe('finished');
    expect(end.record.attempts).toHaveLength(2);
    expect(end.record.attempts[0].jobId).toBe(info.jobIds[0]);
    expect(end.record.attempts[1]).toMatchObject({
      jobId: info.jobIds[1],
      after: 'TIMEOUT',
      nodes: [hostname().split('.')[0]],
    });

    const events = parseLogBytes(readFileSync(join(info.runDir, 'stdout.log')));
    const resume = events.find((e) => e.type === 'resume');
    expect(resume && resume.type === 'resume' && resume.resumeStep).toBeGreaterThan(1);
    const steps = events.filter((e) => e.type === 'step').map((e) => (e.type === 'step' ? e.globalStep : 0));
    expect(steps[steps.length - 1]).toBe(40);
    expect(events.some((e) => e.type === 'finished')).toBe(true);
  }, 400_000);

  it('stop cancels every job of the run (attempt and queued chain) and the run reads stopped', async () => {
    const { res: info } = await launch(['++trial_name=slurm-stop'], { autoResume: 2 });
    expect(info.jobIds).toHaveLength(3);
    await waitFor(async () => ((await runState(info.record.runId))?.state === 'running' ? true : null), {
      timeoutMs: 60_000,
      intervalMs: 300,
      what: 'RUNNING',
    });
    const report = await stopRun(t, target(), info.record.runId);
    expect(report.cancelledJobs).toEqual(info.jobIds);
    const s = await waitFor(
      async () => {
        const r = await runState(info.record.runId);
        return r && r.state !== 'running' ? r : null;
      },
      { timeoutMs: 30_000, intervalMs: 300, what: 'the run to leave RUNNING' },
    );
    expect(s.state).toBe('stopped');
    const queue = execFileSync('squeue', ['-h', '-o', '%i'], { env: slurm.env, encoding: 'utf8' }).trim();
    expect(queue).toBe('');
  }, 120_000);
});
