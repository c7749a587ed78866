/** @jsxRuntime classic */
// After a run ended, the dashboard offers a leftover check (live session, a real finished sim run on
// the local target): processes still tagged with the run and processes holding GPU memory are listed
// with PID and command; after a y only the TAGGED ones are stopped; an untagged GPU holder is listed
// and never offered for stopping. The same check is reachable from the Runs screen (`o` on an ended run). The GPU holder is reported by a stand-in nvidia-smi on the
// target's PATH (through its setup line), naming a real process of this test.
import React from 'react';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { listRuns } from '../../src/runs/index.js';
import { pidAlive, waitFor } from '../harness/wait.js';
import { KEYS, renderInk, waitForFrame } from './helpers.js';
import { launchSim, withSimEnv, type SimRun } from './sim-run.js';

function sleeper(env: NodeJS.ProcessEnv): ChildProcess {
  const p = spawn('sleep', ['600'], { env, stdio: 'ignore' });
  if (!p.pid) throw new Error('could not start sleep');
  return p;
}

describe('leftover check after a run ended (live session, local sim run)', () => {
  let sim: SimRun;
  let tagged: ChildProcess;
  let untagged: ChildProcess;
  let session: LiveSession;

  beforeAll(async () => {
    sim = await withSimEnv({ AWRL_SIM_SPEED: 'instant' }, () => launchSim());
    await waitFor(
      async () =>
        (await listRuns(sim.transport, sim.target, { tailBytes: 0 })).find((r) => r.runId === sim.runId)?.state ===
        'finished',
      {
        timeoutMs: 60_000,
        what: 'the simulated run to finish',
      },
    );
    // A process the run left behind (it carries the run's tag), and someone else's GPU holder.
    const env = { ...process.env };
    delete env.AWRL_RUN_ID;
    tagged = sleeper({ ...env, AWRL_RUN_ID: sim.runId });
    untagged = sleeper(env);
    const bin = join(sim.dir, 'leftover-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'nvidia-smi'), `#!/bin/bash\necho "${untagged.pid}, 1234"\n`);
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    session = createLiveSession({
      targets: [{ target: { ...sim.target, setup: `export PATH=${bin}:$PATH` }, transport: sim.transport }],
      openRunId: sim.runId,
      gpuPoller: null,
      runsPollMs: 60_000,
    });
  });

  afterAll(async () => {
    await session?.close();
    for (const p of [tagged, untagged]) if (p?.pid && pidAlive(p.pid)) p.kill('SIGKILL');
    await sim?.stop();
  });

  it('lists the tagged leftover and the untagged GPU holder with PID and command; y stops only the tagged one', async () => {
    const r = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 140, rows: 45 }} colors={false} />,
    );
    try {
      await waitForFrame(
        r,
        (x) => x.includes('run finished: o checks for leftover processes'),
        'the ended run with the offer',
        30_000,
      );
      r.stdin.write('o');
      const found = await waitForFrame(
        r,
        (x) => x.includes('─ Leftovers of') && x.includes('Stop the 1 process tagged'),
        'the leftover list',
        30_000,
      );
      expect(found).toMatch(new RegExp(`PID\\s+${tagged.pid}\\s+sleep 600\\s+\\[tagged with this run\\]`));
      expect(found).toMatch(
        new RegExp(`PID\\s+${untagged.pid}\\s+sleep 600\\s+1234 MiB GPU\\s+\\[untagged: not stopped from here\\]`),
      );
      expect(found).toContain('untagged processes are only listed');

      r.stdin.write('y');
      const stopped = await waitForFrame(r, (x) => x.includes('stopped 1 tagged process'), 'the stop result', 30_000);
      expect(stopped).toMatch(new RegExp(`stopped 1 tagged process\\s*\\n.*PID\\s+${tagged.pid}`));
      expect(stopped).toMatch(new RegExp(`still there \\(1\\):\\s*\\n.*PID\\s+${untagged.pid}`));
      await waitFor(() => !pidAlive(tagged.pid!), { timeoutMs: 10_000, what: 'the tagged leftover to be gone' });
      expect(pidAlive(untagged.pid!)).toBe(true);

      // Again: only the untagged holder is left, and nothing is offered for stopping.
      r.stdin.write(KEYS.enter);
      await waitForFrame(r, (x) => !x.includes('─ Leftovers of'), 'the list closed');
      r.stdin.write('o');
      const again = await waitForFrame(
        r,
        (x) => x.includes('─ Leftovers of') && x.includes('nothing to stop from here'),
        'the second check',
        30_000,
      );
      expect(again).toContain(`PID ${String(untagged.pid).padStart(7)}`);
      expect(again).not.toContain(`PID ${String(tagged.pid).padStart(7)}`);
      expect(again).not.toContain('Stop the');
      r.stdin.write('y');
      await waitForFrame(r, (x) => !x.includes('─ Leftovers of'), 'y only closes');
      expect(session.getState().leftovers?.phase).toBe('found');
      expect(pidAlive(untagged.pid!)).toBe(true);
    } finally {
      r.unmount();
    }
  });

  it('the same check from the Runs screen, for the run under the cursor: lists, asks, y stops only the tagged one', async () => {
    const env = { ...process.env };
    delete env.AWRL_RUN_ID;
    const another = sleeper({ ...env, AWRL_RUN_ID: sim.runId });
    const r = renderInk(
      <App session={session} initialScreen="runs" size={{ columns: 140, rows: 45 }} colors={false} />,
    );
    try {
      await waitForFrame(
        r,
        (x) => x.includes(`${sim.runId} finished: o checks for leftover processes`),
        'the finished run under the cursor',
        30_000,
      );
      r.stdin.write('o');
      const found = await waitForFrame(
        r,
        (x) => x.includes(`─ Leftovers of ${sim.runId}`) && x.includes('Stop the 1 process tagged'),
        'the leftover list',
        30_000,
      );
      expect(found).toMatch(new RegExp(`PID\\s+${another.pid}\\s+sleep 600\\s+\\[tagged with this run\\]`));
      expect(found).toMatch(new RegExp(`PID\\s+${untagged.pid}\\s+sleep 600\\s+1234 MiB GPU`));
      r.stdin.write('y');
      await waitForFrame(r, (x) => x.includes('stopped 1 tagged process'), 'the stop result', 30_000);
      await waitFor(() => !pidAlive(another.pid!), { timeoutMs: 10_000, what: 'the tagged leftover to be gone' });
      expect(pidAlive(untagged.pid!)).toBe(true);
      r.stdin.write(KEYS.enter);
      const back = await waitForFrame(r, (x) => !x.includes('─ Leftovers of'), 'the list closed');
      expect(back).toContain('─ Runs');
    } finally {
      r.unmount();
      if (another.pid && pidAlive(another.pid)) another.kill('SIGKILL');
    }
  });
});
