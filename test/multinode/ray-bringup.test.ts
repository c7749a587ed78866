// A Ray worker that cannot join (the fake ray fails `ray start --address` on n3): the batch script
// does not start the trainer on 3 of 4 nodes; it says how far the cluster got and why, the attempt
// fails (exit 1) within the bounds, and `follow` shows the bring-up as it happens.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listRuns } from '../../src/runs/index.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { waitFor } from '../harness/wait.js';
import { sentinelCli } from '../runs/cli-process.js';
import { TOKEN, rayRunOverrides, startWorld, type World } from './world.js';

const { start, killAll } = sentinelCli(TOKEN);

describe('a Ray worker that fails to join', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(4);
  }, 120_000);
  afterAll(async () => {
    killAll();
    await w?.stop();
  }, 60_000);

  it('fails the attempt with the node and its reason, and never starts the trainer', async () => {
    const started = Date.now();
    const res = await w.launch(rayRunOverrides(4, 'mn-ray-fail'), { setupExtra: 'export AWRL_SIM_RAY_FAIL=n3' });
    const follow = start(['follow', res.record.runId, ...w.cliArgs({ setupExtra: 'export AWRL_SIM_RAY_FAIL=n3' })]);
    const code = await follow.done;
    const log = readFileSync(join(res.record.runDir, 'stdout.log'), 'utf8');
    const why = 'RuntimeError: Failed to connect to GCS at address 127.0.0.11:6379 within 60 seconds.';
    expect(log).toContain(`awrl: starting Ray: 3/4 nodes joined, n3 failed: ${why}`);
    expect(log).toContain(`awrl: starting Ray: failed: 3/4 nodes joined, n3 failed: ${why}; not starting the trainer`);
    expect(log).not.toContain('(AReaL)'); // the trainer never ran
    expect(Date.now() - started).toBeLessThan(120_000); // the bounded path, not the 300 s wait
    expect(follow.stdout).toContain(`ray      starting Ray: 3/4 nodes joined, n3 failed: ${why}`);
    expect(code).not.toBe(0);
    const [run] = await listRuns(w.t, w.target(), { only: res.record.runId });
    expect(run.state).toBe('failed');
    expect(run.detail).toBe(`job ${res.jobIds[0]} FAILED`);
    expect(existsSync(join(res.record.runDir, `slurm-exit.${res.jobIds[0]}`))).toBe(true);
    // The cockpit on the same run: the failed bring-up is its alert, naming the node and why.
    const session = createLiveSession({
      targets: [{ target: w.target({ setupExtra: 'export AWRL_SIM_RAY_FAIL=n3' }), transport: w.t }],
      gpuPoller: () => () => {},
      runFacts: async () => ({}),
      runsPollMs: 5_000,
    });
    try {
      session.actions.selectRun(res.record.runId);
      const a = await waitFor(() => session.getState().run?.alerts.find((x) => x.id === 'ray/bringup/failed'), {
        timeoutMs: 30_000,
        what: 'the bring-up alert',
      });
      expect(a.title).toBe(`Ray bring-up failed: 3/4 nodes joined, n3 failed: ${why}; not starting the trainer`);
      expect(a.severity).toBe('error');
      // The header's phase line: the trainer never wrote, so the attempt is still in its bring-up.
      expect(session.getState().run?.rayBringUp).toBe(
        `starting Ray: failed: 3/4 nodes joined, n3 failed: ${why}; not starting the trainer`,
      );
    } finally {
      await session.close();
    }
  }, 240_000);
});
