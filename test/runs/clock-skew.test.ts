// Clock skew between the client (a laptop) and the head: every time the run's record keeps must be
// on ONE clock, the head's (the trainer's log, exit-status files, Slurm's end times and the
// auto-resume attempts' startedAt are all the head's), or "ended before it started" and negative
// durations follow. Here the client's clock runs two hours ahead of the head's (this machine).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { launchRun, type LaunchPlan } from '../../src/runs/launch.js';
import { stopRun } from '../../src/runs/stop.js';
import type { Target } from '../../src/runs/targets.js';
import { parseRunRecord } from '../../src/runs/run-record.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';

const AHEAD_MS = 2 * 3600_000;

describe('a client clock two hours ahead of the head', () => {
  let sshd: SshdHandle;
  let t: Transport;
  let workdir: string;
  let target: Target;

  beforeAll(async () => {
    sshd = await startSshd();
    t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
    workdir = mkdtempSync(join(tmpdir(), 'awrl-skew-'));
    target = {
      name: sshd.alias,
      host: sshd.alias,
      workdir,
      python: '/usr/bin/python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it("records the attempt's start on the head's clock", async () => {
    const plan: LaunchPlan = {
      target,
      configText: 'experiment_name: e\ntrial_name: skew\n',
      experiment: 'e',
      trial: 'skew',
      trainerArgv: () => ['/usr/bin/python3', '-c', 'import time; time.sleep(600)'],
      secretNames: [],
      nodes: 1,
    };
    const clientNow = () => new Date(Date.now() + AHEAD_MS);
    const res = await launchRun(plan, t, { env: {}, now: clientNow });
    try {
      const started = Date.parse(res.record.attempts[0].startedAt);
      // The head is this machine: its clock is Date.now() here.
      expect(Math.abs(started - Date.now())).toBeLessThan(10 * 60_000);
    } finally {
      await stopRun(t, target, res.record.runId);
    }
  });

  it("records the stop request on the head's clock", async () => {
    const plan: LaunchPlan = {
      target,
      configText: 'experiment_name: e\ntrial_name: skew-stop\n',
      experiment: 'e',
      trial: 'skew-stop',
      trainerArgv: () => ['/usr/bin/python3', '-c', 'import time; time.sleep(600)'],
      secretNames: [],
      nodes: 1,
    };
    const clientNow = () => new Date(Date.now() + AHEAD_MS);
    const res = await launchRun(plan, t, { env: {}, now: clientNow });
    const report = await stopRun(t, target, res.record.runId, { now: clientNow, graceSeconds: 5 });
    const requested = Date.parse(report.stopRequestedAt ?? '');
    expect(Math.abs(requested - Date.now())).toBeLessThan(10 * 60_000);
    // run.json keeps the same time, and it is not before the attempt started (one clock).
    const record = parseRunRecord((await t.readFile(`${res.runDir}/run.json`)).toString('utf8'));
    expect(record?.stopRequestedAt).toBe(report.stopRequestedAt);
    expect(requested).toBeGreaterThanOrEqual(Date.parse(record!.attempts[0].startedAt));
    expect(report.after).toMatchObject({ state: 'stopped' });
  });
});
