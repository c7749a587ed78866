/** @jsxRuntime classic */
// QA: a listed run's row showed `—` under "last step" until the run was opened (Enter), though its
// step and reward were known. Over a real local target, the Runs screen, with no run opened, shows
// the age of the last step of a run whose log the trainer's own logging code wrote.
import React from 'react';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/remote/index.js';
import { serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import { parseLogBytes } from '../../src/trainer-log/parser.js';
import { App } from '../../src/ui/app.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';

const FIXTURE = '/work/shared/fixtures/areal-logs/run-a/stdout.log';

describe('Runs screen: the last step of a run not opened', () => {
  let dir: string;
  let transport: LocalTransport;
  let session: LiveSession;
  let r: Rendered;
  const runId = 'laststep-20260525-121000-0001';
  const steps = parseLogBytes(readFileSync(FIXTURE)).flatMap((e) => (e.type === 'step' ? [e] : []));
  const last = steps.at(-1)!;
  const lastAt = Date.parse(last.time);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-ui-laststep-'));
    const runDir = join(dir, '.awrl/runs', runId);
    mkdirSync(runDir, { recursive: true });
    copyFileSync(FIXTURE, join(runDir, 'stdout.log'));
    const startedAt = new Date().toISOString();
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'laststep',
      trial: 'trial0',
      target: 'local',
      workdir: dir,
      runDir,
      backend: 'direct',
      argv: ['python3', 'webgym/train.py', '--config', `${runDir}/config.yaml`],
      secretNames: [],
      createdAt: startedAt,
      attempts: [{ n: 1, reason: 'launch', startedAt, pid: 999_999 }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'exit.code'), '0\n');
    transport = new LocalTransport();
    const target: Target = {
      name: 'here',
      host: 'local',
      workdir: dir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    session = createLiveSession({
      targets: [{ target, transport }],
      gpuPoller: null,
      runFacts: async () => ({}),
      runsPollMs: 60_000,
    });
    // The clock 7 s after the last step: the row must say so without the run being opened.
    r = renderInk(
      <App
        session={session}
        initialScreen="runs"
        size={{ columns: 100, rows: 24 }}
        colors={false}
        frameMs={50}
        clock={() => lastAt + 7000}
      />,
    );
  });

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await transport?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the age of the last step as soon as the step is listed', async () => {
    const f = await waitForFrame(
      r,
      (x) => x.includes(`${last.globalStep}/${last.totalSteps}`),
      'the run listed with its step',
      20_000,
    );
    const row = f.split('\n').find((l) => l.includes(runId.slice(0, 8)))!;
    expect(row).toContain(`${last.globalStep}/${last.totalSteps}`);
    expect(row).toMatch(/7 s ago\s*$/);
    expect(session.getState().run).toBeNull();
  }, 30_000);
});
