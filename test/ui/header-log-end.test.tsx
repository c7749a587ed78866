/** @jsxRuntime classic */
// The header of an ended run no longer followed says how far its log was read, truthfully: "log read
// to its end" only when every byte was read; a log that could not be read says so, and so do one
// that was not read to its end (the wait gave up) and one that does not exist. First the header as
// drawn (pure), then a real ended run on this machine whose log is a directory (cannot be read):
// the dashboard's frame says `log unreadable`, never `log read to its end`.
import React from 'react';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/remote/index.js';
import { serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import { App } from '../../src/ui/app.js';
import { lineText } from '../../src/ui/lines.js';
import { headerLines, type HeaderProps } from '../../src/ui/panels/header.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';
import { waitFor } from '../harness/wait.js';

const figures = {
  step: 12,
  totalSteps: 100,
  epoch: 1,
  epochs: 1,
  startedAt: null,
  lastStepAt: null,
  etaS: null,
  stepTimeS: null,
  episodesPerS: null,
  trainTokensPerS: null,
  rolloutWaitS: null,
  endedAt: null,
};
const props = (log?: 'read' | 'unreadable' | 'incomplete' | 'missing'): HeaderProps => ({
  runId: 'r-1',
  target: 'gpu',
  connection: { state: 'ready' },
  runState: 'failed',
  figures,
  connectionAt: 0,
  now: 0,
  width: 160,
  pollingStopped: { statePollS: 60, ...(log ? { log } : {}) },
});
const head = (p: HeaderProps) => lineText(headerLines(p)[0]);

describe('header: an ended run no longer followed', () => {
  it('says the log was read to its end only when it was', () => {
    expect(head(props('read'))).toContain('polling stopped (log read to its end; state and GPUs every 60 s)');
    expect(head(props('unreadable'))).toContain('polling stopped (log unreadable; state and GPUs every 60 s)');
    expect(head(props('incomplete'))).toContain('polling stopped (log not read to its end; state and GPUs every 60 s)');
    expect(head(props('missing'))).toContain('polling stopped (no log; state and GPUs every 60 s)');
    for (const log of ['unreadable', 'incomplete', 'missing'] as const)
      expect(head(props(log))).not.toContain('(log read to its end');
    // Narrow: the short form, for every case (the status line says the rest).
    expect(head({ ...props('unreadable'), width: 60 })).toMatch(/│ polling stopped$/);
  });
});

describe('dashboard: an ended run whose log cannot be read', () => {
  let dir: string;
  let transport: LocalTransport;
  let session: LiveSession;
  let r: Rendered;
  const runId = 'unreadable-20261129-120000-0001';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-ui-log-end-'));
    const runDir = join(dir, '.awrl/runs', runId);
    // The log path is a directory: stat sees it, nothing can read it.
    mkdirSync(join(runDir, 'stdout.log'), { recursive: true });
    const startedAt = new Date().toISOString();
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'log-end',
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
    writeFileSync(join(runDir, 'exit.code'), '1\n');
    transport = new LocalTransport();
    const target: Target = {
      name: 'box',
      host: 'local',
      workdir: dir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    session = createLiveSession({
      targets: [{ target, transport }],
      openRunId: runId,
      gpuPoller: null,
      runFacts: async () => ({}),
      runsPollMs: 60_000,
      statePollMs: 200,
    });
    r = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 160, rows: 40 }} colors={false} frameMs={50} />,
    );
  });

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await transport?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the header says the log is unreadable, not that it was read to its end', async () => {
    const f = await waitForFrame(r, (x) => x.includes('polling stopped'), 'polling stopped', 40_000);
    const header = f.split('\n').find((l) => l.includes('polling stopped'))!;
    expect(header).toContain('failed');
    expect(header).toContain('polling stopped (log unreadable; state and GPUs every 60 s)');
    expect(f).not.toContain('log read to its end');
  }, 60_000);

  it('its follow problem says following is paused, not "still retrying"', async () => {
    await waitFor(() => session.getState().run?.followProblem, { timeoutMs: 40_000, what: 'the follow problem' });
    const text = session.getState().run!.followProblem!.text;
    expect(text).toContain('not retrying: the run has ended');
    expect(text).not.toContain('still retrying');
  }, 60_000);
});
