/** @jsxRuntime classic */
// Pre-flight in the cockpit, on the live session against a real local target made by `sim init`
// (its bin/ — fake nvidia-smi — on PATH through the target's setup line): `p` on the Config screen
// runs the same gate as `--launch` and shows the checks; the launch confirmation shows the argv
// and the checks, an error blocks the launch (y does nothing, nothing is created on the target),
// and only an explicit S launches anyway, recorded in run.json like --skip-preflight.
import React from 'react';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { LocalTransport } from '../../src/remote/index.js';
import { stopRun, type Target } from '../../src/runs/index.js';
import { renderInk, waitForFrame } from './helpers.js';
import { waitFor } from '../harness/wait.js';
import { simCheckout } from './sim-run.js';

function localTarget(dir: string): Target {
  return {
    name: 'local',
    host: 'local',
    workdir: dir,
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
    setup: `export PATH=${dir}/bin:$PATH`,
  };
}

function runIds(dir: string): string[] {
  const runs = join(dir, '.awrl', 'runs');
  return existsSync(runs) ? readdirSync(runs) : [];
}

describe('pre-flight in the cockpit (live session, local sim target)', () => {
  const c = simCheckout();
  const transport = new LocalTransport();
  const target = localTarget(c.dir);
  const missing = join(c.dir, 'no-such-model');
  afterAll(async () => {
    for (const id of runIds(c.dir)) await stopRun(transport, target, id, { graceSeconds: 2 }).catch(() => {});
    await transport.close();
    rmSync(c.dir, { recursive: true, force: true });
  });

  function open(overrides: string[]) {
    const session = createLiveSession({
      targets: [{ target, transport }],
      config: { fileName: c.configPath, text: readFileSync(c.configPath, 'utf8'), overrides },
      env: { ...process.env, CPU_CLUSTER_TOKEN: 'secret-value' },
      gpuPoller: null,
      runsPollMs: 60_000,
    });
    const r = renderInk(
      <App session={session} initialScreen="config" size={{ columns: 160, rows: 60 }} colors={false} />,
    );
    return { session, r };
  }

  it('p runs the pre-flight on demand: a clean config shows ok checks and no errors', async () => {
    const { session, r } = open([]);
    try {
      await waitForFrame(r, (x) => x.includes('0 errors'), 'the evaluated config', 10_000);
      r.stdin.write('p');
      const f = await waitForFrame(r, (x) => x.includes('pre-flight on local:'), 'the pre-flight results', 30_000);
      expect(f).toMatch(/─ Pre-flight/);
      expect(f).toContain('pre-flight on local: no errors');
      expect(f).toMatch(/ok\s+.*checkout.*model|ok\s+.*model/s);
      expect(f).not.toContain('ERROR');
    } finally {
      r.unmount();
      await session.close();
    }
  });

  it('a missing model path: the error with what to do, y blocked, S launches with the skip recorded in run.json', async () => {
    const { session, r } = open([`++actor.path=${missing}`]);
    try {
      await waitForFrame(r, (x) => x.includes('0 errors'), 'the evaluated config', 10_000);
      r.stdin.write('p');
      const f = await waitForFrame(r, (x) => x.includes('pre-flight on local:'), 'the pre-flight results', 30_000);
      expect(f).toMatch(/ERROR\s+model: actor\.path \S*no-such-model does not/);
      expect(f).toMatch(/→ Put the model there/);
      expect(f).toContain('launching is blocked');

      // The confirmation runs the pre-flight again: wait for that new result, not the one from p.
      const previous = session.getState().preflight;
      r.stdin.write('L');
      // The earlier result (from p) is never shown as the confirmation's own: it starts as running.
      const opening = await waitForFrame(r, (x) => x.includes('─ Launch?'), 'the confirmation');
      expect(opening).toContain('waiting for the pre-flight');
      expect(opening).not.toContain('blocked by the pre-flight');
      await waitFor(
        () => {
          const p = session.getState().preflight;
          return p !== previous && p?.phase === 'done';
        },
        { timeoutMs: 30_000, what: "the confirmation's own pre-flight" },
      );
      const confirm = await waitForFrame(
        r,
        (x) => x.includes('─ Launch?') && x.includes('blocked by the pre-flight'),
        'the blocked confirmation',
        30_000,
      );
      expect(confirm).toContain('webgym/train.py');
      expect(confirm).toContain(`++actor.path=${missing}`);
      expect(confirm).toMatch(/ERROR\s+model:/);
      expect(confirm).toContain('S launch anyway');
      expect(confirm).not.toContain('secret-value');
      r.stdin.write('y');
      // y does nothing while the pre-flight blocks: still asking, nothing created on the target.
      await waitForFrame(r, (x) => x.includes('blocked by the pre-flight'), 'still the confirmation');
      expect(session.getState().launch.phase).toBe('idle');
      expect(runIds(c.dir)).toEqual([]);

      r.stdin.write('S');
      const launched = await waitForFrame(
        r,
        (x) => /launched \S+ on local/.test(x),
        'the launch despite the pre-flight',
        60_000,
      );
      const runId = /launched (\S+) on local/.exec(launched)![1];
      expect(runIds(c.dir)).toEqual([runId]);
      const record = JSON.parse(readFileSync(join(c.dir, '.awrl', 'runs', runId, 'run.json'), 'utf8'));
      expect(record.preflight).toMatchObject({ skipped: true });
      expect(record.preflight.errors).toBeGreaterThanOrEqual(1);
    } finally {
      r.unmount();
      await session.close();
    }
  });

  it('launching without an explicit skip goes through the gate: an error stops it with the reason', async () => {
    const { session } = open([`++actor.path=${missing}`]);
    try {
      const before = runIds(c.dir);
      await session.actions.launch();
      const s = session.getState();
      expect(s.launch.phase).toBe('failed');
      expect(s.launch.phase === 'failed' && s.launch.message).toMatch(
        /preflight found \d+ errors? on local: nothing was started .*press S/,
      );
      expect(runIds(c.dir)).toEqual(before);
    } finally {
      await session.close();
    }
  });
});
