// Following a run that finished hours ago replays its log: what it says must come from the log and
// the run's state, never from which answer came first (the state poll or the log's silence). Ten
// `follow --json` of the same finished run (its log last written 3 h ago), over a real sshd, all
// print the same lines, none of them a hang the run "died in", and all exit 0.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliProcess } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { pidAlive } from '../harness/wait.js';

const HANG = /"id":"(stall|health\/stall\/[^"]*|health\/resume\/no-progress)"|endedWithRun/;
const FOLLOWS = 10;

describe('ten follows of a finished run', { timeout: 180_000 }, () => {
  let sim: SimOverSshd;
  const procs: CliProcess[] = [];
  beforeAll(async () => {
    sim = await startSimOverSshd('awrl-replay-');
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) if (p.child.pid && pidAlive(p.child.pid)) p.child.kill('SIGKILL');
    await sim?.stop();
  });

  it('all agree, line for line, and none invents a hang', async () => {
    const target = sim.target('AWRL_SIM_SPEED=instant');
    const launch = startCli(
      [
        '--launch',
        ...target,
        '--config',
        sim.config,
        'total_train_epochs=1',
        '++trial_name=replay',
        '--follow',
        '--json',
      ],
      { CPU_CLUSTER_TOKEN: 'token' },
    );
    procs.push(launch);
    expect(await launch.done, launch.stderr).toBe(0);
    const runId = /"runId":"([^"]+)"/.exec(launch.stdout)![1];
    // It ended 3 h ago: a replay that measured the time since its end would call that a hang.
    const log = join(sim.workdir, '.awrl', 'runs', runId, 'stdout.log');
    const then = (Date.now() - 3 * 3600_000) / 1000;
    utimesSync(log, then, then);

    const follows = Array.from({ length: FOLLOWS }, () => startCli(['follow', runId, ...target, '--json'], {}));
    procs.push(...follows);
    const codes = await Promise.all(follows.map((f) => f.done));
    expect(codes, follows.map((f) => f.stderr).join('\n')).toEqual(Array(FOLLOWS).fill(0));
    const outputs = follows.map((f) => f.stdout);
    expect(outputs[0]).toMatch(/"type":"step"/);
    expect(outputs[0].trim().split('\n').at(-1)).toMatch(/^\{"type":"state","runId":"[^"]+","state":"finished"/);
    for (const out of outputs) {
      expect(out.split('\n').filter((l) => HANG.test(l))).toEqual([]);
      expect(out).toBe(outputs[0]);
    }
  });
});
