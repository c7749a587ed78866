// The sentinel of a Slurm run under a real one-node Slurm behind a real sshd: started with the run
// by `--launch --notify`, it watches the whole chain. `scontrol requeue` makes attempt 2 under the
// same job id; the same sentinel (one process for the run) goes on, and sends the run's end once.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runs/cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startSlurm, requeueJob, type SlurmCluster } from '../harness/slurm.js';
import { slurmTargetArgs } from '../harness/slurm-target.js';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { killSentinelsUnder, sentinelTestCli } from './sentinel-env.js';

const { cli, killAll } = sentinelTestCli(`slurm-sentinel-${process.pid}-Vb3`, 1000);

interface Row {
  runId: string;
  state: string;
  globalStep: number | null;
  attempts: unknown[];
  sentinel: { state: string; pid: number | null; why?: string };
}

/** The processes whose argv is the sentinel's of this run. */
function sentinelsOf(runId: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const argv = readFileSync(`/proc/${n}/cmdline`, 'latin1').split('\0');
        return argv.includes('sentinel-run') && argv.includes(runId);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(pidAlive);
}

describe('a Slurm run’s sentinel across a requeue', () => {
  let sshd: SshdHandle;
  let slurm: SlurmCluster;
  let receiver: HttpReceiver;
  let dir: string;
  let workdir: string;
  let config: string;
  const target = () => slurmTargetArgs({ sshd, slurm, workdir, simSpeed: 300 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-sentinel-slurm-'));
    mkdirSync(join(dir, 'home'));
    [slurm, sshd, receiver] = await Promise.all([
      startSlurm(),
      startSshd({ extraConfig: [`SetEnv SHLVL=1 HOME=${join(dir, 'home')}`] }),
      startReceiver(),
    ]);
    process.env.AWRL_NOTIFY = `json://127.0.0.1:${receiver.port}/chain`;
    workdir = join(dir, 'checkout');
    mkdirSync(workdir);
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    config = sim.config!;
    writeWebgymTasks(sim.trainDataset, 256);
  }, 120_000);
  afterAll(async () => {
    killAll();
    delete process.env.AWRL_NOTIFY;
    await Promise.all([slurm?.stop(), sshd?.stop(), receiver?.stop()]);
    if (dir) {
      killSentinelsUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one sentinel watches both attempts and sends the run’s end once', async () => {
    const launched = await cli([
      '--launch',
      ...target(),
      '--config',
      config,
      'total_train_epochs=2',
      'recover.freq_steps=1',
      'recover.freq_secs=null',
      '++trial_name=sentinel-requeue',
      '--skip-preflight',
      '--json',
    ]);
    expect(launched.code, launched.stderr).toBe(0);
    const { runId, jobIds, sentinel } = JSON.parse(launched.stdout) as {
      runId: string;
      jobIds: string[];
      sentinel: { pid: number; notify: string[] };
    };
    expect(sentinel.notify).toEqual([`json://127.0.0.1:${receiver.port}/***`]);
    const row = async (): Promise<Row | null> => {
      const r = await cli(['runs', runId, ...target(), '--json']);
      return r.code === 0 ? ((JSON.parse(r.stdout) as Row[])[0] ?? null) : null;
    };
    await waitFor(async () => ((await row())?.globalStep ?? 0) >= 2, {
      timeoutMs: 120_000,
      intervalMs: 1000,
      what: 'two steps of the first attempt',
    });
    const { startNow } = await requeueJob(slurm, jobIds[0]);
    startNow();
    await waitFor(
      async () => {
        const r = await row();
        if (r?.state === 'pending') startNow();
        return r && r.attempts.length === 2 && r.state === 'running';
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'attempt 2 to run' },
    );
    expect(sentinelsOf(runId)).toEqual([sentinel.pid]);
    expect((await row())!.sentinel).toMatchObject({ state: 'running', pid: sentinel.pid });

    await waitFor(async () => (await row())?.state === 'finished', {
      timeoutMs: 180_000,
      intervalMs: 2000,
      what: 'the run to finish',
    });
    await waitFor(() => !pidAlive(sentinel.pid), { timeoutMs: 60_000, what: 'the sentinel to stop after the end' });
    const ends = receiver.received.filter(
      (r) => (JSON.parse(r.body) as { awrl: { event: string } }).awrl.event === 'run-end',
    );
    expect(ends).toHaveLength(1);
    expect((await row())!.sentinel).toMatchObject({ state: 'stopped', why: 'the run ended (finished)' });
  }, 420_000);
});
