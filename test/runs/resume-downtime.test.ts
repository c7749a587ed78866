// A resume after real downtime: a run stopped, 31 minutes pass on the watch's clock (the test moves
// the watch's clock; the sshd, the simulated trainer and the CLI are real), then `--launch --resume`.
// The time between the two attempts is neither the trainer's silence nor a step: the watch raises
// no stall for it (before the new attempt's first record, nor at it), and the first step after the
// resume has no step time (`-`), as `follow` prints it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { RunWatch } from '../../src/watch/run-watch.js';
import { StepProgress } from '../../src/watch/follow-to-end.js';
import type { Target } from '../../src/runs/targets.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { isHangAlert } from '../../src/health/index.js';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { pidAlive, waitFor } from '../harness/wait.js';

const DOWNTIME_MS = 31 * 60_000;

describe('a resume after 31 min of downtime', { timeout: 180_000 }, () => {
  let sim: SimOverSshd;
  let t: Transport | undefined;
  let watch: RunWatch | undefined;
  const procs: CliProcess[] = [];
  const cli = async (args: string[]) => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: 'token' });
    procs.push(p);
    const code = await p.done;
    expect(code, p.stderr).toBe(0);
    return p.stdout;
  };
  beforeAll(async () => {
    sim = await startSimOverSshd('awrl-resume-gap-');
  }, 60_000);
  afterAll(async () => {
    watch?.close();
    await t?.close();
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await sim?.stop();
  });

  it('raises no stall for the time between attempts and gives the first step after it no step time', async () => {
    const flags = sim.target('AWRL_SIM_SPEED=300');
    const launched = await cli([
      '--launch',
      ...flags,
      '--config',
      sim.config,
      'total_train_epochs=2',
      '++trial_name=gap',
      'recover.freq_steps=1',
      '--json',
    ]);
    const runId = /"runId":"([^"]+)"/.exec(launched)![1];
    t = await openTransport(sim.sshd.alias, { sshConfigFile: sim.sshd.sshConfigFile, followPollMs: 50 });
    const target: Target = {
      name: sim.sshd.alias,
      host: sim.sshd.alias,
      sshConfigFile: sim.sshd.sshConfigFile,
      workdir: sim.workdir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    let offset = 0;
    const outs: WatchOutput[] = [];
    const progress = new StepProgress();
    const lines: string[] = [];
    watch = createRunWatch({
      transport: t,
      target,
      runId,
      logPath: join(sim.workdir, '.awrl', 'runs', runId, 'stdout.log'),
      whenEnded: 'pause',
      statePollMs: 300,
      endedStatePollMs: 300,
      tickMs: 200,
      clock: () => Date.now() + offset,
    });
    watch.on((o) => {
      outs.push(o);
      if (o.type === 'record' && o.record.type !== 'save') {
        const line = progress.take(o.record);
        if (line !== null) lines.push(line);
        else if (o.record.type === 'resume' || o.record.type === 'start') lines.push(o.record.type);
      }
    });
    watch.start();
    const w = watch;
    const steps = () => outs.filter((o) => o.type === 'record' && o.record.type === 'step').length;
    await waitFor(() => steps() >= 3, { timeoutMs: 60_000, what: 'three steps' });
    await cli(['stop', runId, ...flags, '--grace', '10']);
    await waitFor(() => w.phase === 'ended', { timeoutMs: 30_000, what: 'the stopped run read to its end' });
    const stepsBefore = steps();

    // The downtime: 31 min pass before the resume.
    offset += DOWNTIME_MS;
    await cli(['--launch', '--resume', runId, ...flags, '--json']);
    await waitFor(() => steps() >= stepsBefore + 2, { timeoutMs: 90_000, what: 'two steps of the new attempt' });

    expect(outs.filter((o) => o.type === 'alert' && isHangAlert(o.alert))).toEqual([]);
    // The first step after the restart has no step time; the next one has its own.
    const restart = lines.findLastIndex((l) => l === 'resume' || l === 'start');
    expect(restart).toBeGreaterThan(0);
    expect(lines[restart + 1]).toMatch(/step time -/);
    const next = /step time ([\d.]+)s/.exec(lines[restart + 2] ?? '');
    expect(next).not.toBeNull();
    expect(Number(next![1])).toBeLessThan(3600);
  });
});
