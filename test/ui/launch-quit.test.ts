// The cockpit's launch (issue #17 §1-2), on the live session against a local sim checkout: one
// probe per launch (the confirmation's pre-flight is the launch's own), and quitting mid-launch
// either cancels it with nothing on the target or lets a start already sent finish. The hold
// (AWRL_TEST_LAUNCH_HOLD) stops the launch exactly at the step under test.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiveSession } from '../../src/session/live-session.js';
import { LocalTransport } from '../../src/remote/index.js';
import { stopRun, type Target } from '../../src/runs/index.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { simCheckout } from './sim-run.js';

describe("the cockpit's launch", () => {
  const c = simCheckout();
  const transport = new LocalTransport();
  const target: Target = {
    name: 'local',
    host: 'local',
    workdir: c.dir,
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
    setup: `export PATH=${c.dir}/bin:$PATH`,
  };
  const runsDir = join(c.dir, '.awrl', 'runs');
  const runIds = (trial: string) =>
    existsSync(runsDir) ? readdirSync(runsDir).filter((d) => d.startsWith(`${trial}-`)) : [];
  afterAll(async () => {
    if (existsSync(runsDir))
      for (const id of readdirSync(runsDir)) await stopRun(transport, target, id, { graceSeconds: 2 }).catch(() => {});
    await transport.close();
    rmSync(c.dir, { recursive: true, force: true });
  });

  const open = (trial: string, extraEnv: Record<string, string> = {}) =>
    createLiveSession({
      targets: [{ target, transport }],
      config: {
        fileName: c.configPath,
        text: readFileSync(c.configPath, 'utf8'),
        overrides: [`++trial_name=${trial}`],
      },
      env: { ...process.env, CPU_CLUSTER_TOKEN: 'secret-value', ...extraEnv },
      gpuPoller: null,
      runsPollMs: 60_000,
    });

  it("probes the target once per launch: the pre-flight the confirmation ran is the launch's", async () => {
    const session = open('once');
    let probes = 0;
    let last: unknown;
    session.subscribe(() => {
      const p = session.getState().preflight;
      if (p !== last && p?.phase === 'running') probes++;
      last = p;
    });
    try {
      await session.actions.runPreflight(); // what opening the confirmation (L) does
      expect(probes).toBe(1);
      await session.actions.launch();
      const l = session.getState().launch;
      expect(l, JSON.stringify(l)).toMatchObject({ phase: 'launched' });
      expect(probes).toBe(1);
      const record = JSON.parse(readFileSync(join(runsDir, runIds('once')[0], 'run.json'), 'utf8'));
      // The same plan as --launch: the config's node count and the forwarded token.
      expect(record).toMatchObject({
        nodes: 1,
        secretNames: ['CPU_CLUSTER_TOKEN'],
        preflight: { skipped: false, errors: 0 },
      });
    } finally {
      await session.close();
      // Its GPUs free again for the next launch's pre-flight.
      for (const id of runIds('once')) await stopRun(transport, target, id, { graceSeconds: 2 });
    }
  }, 120_000);

  it("a trial already running: the pre-flight's answer is the twin, with the stop command to copy", async () => {
    const first = open('twin');
    const second = open('twin');
    try {
      await first.actions.launch();
      expect(first.getState().launch).toMatchObject({ phase: 'launched' });
      await second.actions.runPreflight(); // what opening the confirmation (L) does
      const p = second.getState().preflight;
      // S (skip the pre-flight) cannot lift it, and the cockpit has no --force: what it can do is said.
      expect(p).toMatchObject({ phase: 'done', blocked: true, checks: [], unskippable: true });
      const reason = p?.phase === 'done' ? p.reason : '';
      expect(reason).toMatch(
        /^run twin-\S+ of this trial is already running on local: stop it first \(awrl-tui stop twin-\S+ .*\) or add the override trial_name=OTHER$/,
      );
      expect(reason).not.toMatch(/GPU memory|kill /);
    } finally {
      await first.close();
      await second.close();
      for (const id of runIds('twin')) await stopRun(transport, target, id, { graceSeconds: 2 });
    }
  }, 120_000);

  it('quitting before the start is sent cancels: nothing on the target, and it says so', async () => {
    const hold = join(c.dir, 'hold-cancel');
    writeFileSync(hold, '');
    const session = open('quit-early', { AWRL_TEST_LAUNCH_HOLD: `before-start:${hold}` });
    const launching = session.actions.launch();
    await waitFor(() => existsSync(`${hold}.reached`) || session.getState().launch.phase === 'failed', {
      timeoutMs: 60_000,
      what: 'the launch to reach the start',
    });
    expect(session.getState().launch.phase).toBe('launching');
    const closing = session.close();
    rmSync(hold);
    await closing;
    await launching;
    expect(session.farewell).toBe('launch cancelled: nothing was started on local');
    expect(runIds('quit-early')).toEqual([]);
  }, 120_000);

  it('quitting while the start runs waits for it: the run is whole and running', async () => {
    const hold = join(c.dir, 'hold-start');
    writeFileSync(hold, '');
    const session = open('quit-late', { AWRL_TEST_LAUNCH_HOLD: `starting:${hold}` });
    const launching = session.actions.launch();
    await waitFor(() => existsSync(`${hold}.reached`) || session.getState().launch.phase === 'failed', {
      timeoutMs: 60_000,
      what: 'the start script to reach the job start',
    });
    expect(session.getState().launch.phase).toBe('launching');
    const closing = session.close();
    rmSync(hold);
    await closing;
    await launching;
    const [id] = runIds('quit-late');
    expect(session.farewell).toMatch(new RegExp(`^run ${id} started on local`));
    const record = JSON.parse(readFileSync(join(runsDir, id, 'run.json'), 'utf8'));
    expect(record.attempts).toHaveLength(1);
    expect(pidAlive(record.attempts[0].pid)).toBe(true);
  }, 120_000);
});
