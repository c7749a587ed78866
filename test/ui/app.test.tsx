/** @jsxRuntime classic */
// The whole cockpit rendered with ink-testing-library: screens at several sizes, key handling
// end to end through Ink's input, and the config editor on the real config engine.
import React from 'react';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { SessionState } from '../../src/session/types.js';
import { KEYS, maxLineWidth, renderInk, waitForFrame } from './helpers.js';
import { simCheckout } from './sim-run.js';

const NOW = Date.parse('2026-05-25T12:00:00');
const clock = () => NOW;

function sampleState(): Partial<SessionState> {
  const run = sampleRunView({ steps: 500, nodes: 2, now: NOW });
  return {
    run,
    selectedRunId: run.summary.id,
    targets: [
      {
        name: 'gpu-head',
        connection: { state: 'ready' },
        runs: [
          run.summary,
          { ...run.summary, id: 'older-run', state: 'finished', step: 1600, lastStepAt: NOW - 86_400_000 },
        ],
      },
      {
        name: 'slurm-login',
        connection: { state: 'reconnecting', attempt: 2, nextInMs: 3000, lastError: 'ECONNRESET' },
        runs: [],
      },
    ],
  };
}

const SIZES: [number, number][] = [
  [60, 15],
  [80, 24],
  [120, 40],
  [200, 50],
];

describe('every screen fits the terminal', () => {
  for (const screen of ['runs', 'dashboard', 'config', 'log'] as const) {
    it(`${screen}: never wider than the terminal, never taller than rows-1`, async () => {
      for (const [columns, rows] of SIZES) {
        const s = new StaticSession(sampleState());
        const r = renderInk(
          <App session={s} initialScreen={screen} size={{ columns, rows }} colors={false} clock={clock} />,
        );
        const f = await waitForFrame(r, (x) => x.includes('1 Runs'), `${screen} at ${columns}x${rows}`);
        expect(maxLineWidth(f)).toBeLessThanOrEqual(columns);
        expect(f.split('\n').length).toBeLessThanOrEqual(rows - 1);
        r.unmount();
      }
    });
  }

  it('below the minimum size says so instead of drawing a broken frame', async () => {
    const r = renderInk(
      <App session={new StaticSession(sampleState())} size={{ columns: 50, rows: 10 }} colors={false} />,
    );
    const f = await waitForFrame(r, (x) => x.includes('too small'), 'the size message');
    expect(f).toContain('50×10');
    expect(f).toContain('60×15');
    r.unmount();
  });
});

describe('runs screen', () => {
  it('lists targets with their connection and runs with state, step, reward and age; Enter opens one', async () => {
    const s = new StaticSession(sampleState());
    const r = renderInk(
      <App session={s} initialScreen="runs" size={{ columns: 120, rows: 30 }} colors={false} clock={clock} />,
    );
    const f = await waitForFrame(r, (x) => x.includes('sample-run'), 'the runs list');
    expect(f).toContain('gpu-head  connected  2 runs');
    expect(f).toContain('slurm-login  reconnecting in 3 s (attempt 2)');
    expect(f).toMatch(/sample-run\s+running\s+500\/1600\s+0\.\d+\s+4 s ago/);
    expect(f).toMatch(/older-run\s+finished\s+1600\/1600/);
    r.stdin.write('j');
    r.stdin.write(KEYS.enter);
    await waitForFrame(r, (x) => x.includes('─ Reward'), 'the dashboard');
    expect(s.calls.find((c) => c.action === 'selectRun')?.args).toEqual(['older-run']);
    r.unmount();
  });
});

describe('quitting', () => {
  it('q quits at once, or asks first while a launch is in progress', async () => {
    let quit = 0;
    const busy = new StaticSession({ ...sampleState(), launch: { phase: 'launching' } });
    const r = renderInk(<App session={busy} size={{ columns: 100, rows: 30 }} colors={false} onQuit={() => quit++} />);
    await waitForFrame(r, (x) => x.includes('launching'), 'the launching status');
    r.stdin.write('q');
    await waitForFrame(r, (x) => x.includes('Quit the cockpit anyway'), 'the quit question');
    r.stdin.write('n');
    await waitForFrame(r, (x) => !x.includes('Quit the cockpit anyway'), 'the question to close');
    expect(quit).toBe(0);
    r.stdin.write('q');
    await waitForFrame(r, (x) => x.includes('Quit the cockpit anyway'), 'the quit question again');
    r.stdin.write('y');
    await waitForFrame(r, () => quit === 1, 'quit');
    r.unmount();

    const idle = renderInk(
      <App
        session={new StaticSession(sampleState())}
        size={{ columns: 100, rows: 30 }}
        colors={false}
        onQuit={() => quit++}
      />,
    );
    await waitForFrame(idle, (x) => x.includes('1 Runs'), 'a frame');
    idle.stdin.write('q');
    await waitForFrame(idle, () => quit === 2, 'an immediate quit');
    idle.unmount();
  });
});

describe('frame rate', () => {
  it('a burst of 1,000 session changes becomes a handful of renders', async () => {
    const s = new StaticSession(sampleState());
    const r = renderInk(
      <App session={s} initialScreen="dashboard" size={{ columns: 120, rows: 40 }} colors={false} clock={clock} />,
    );
    await waitForFrame(r, (x) => x.includes('─ Reward'), 'the dashboard');
    const framesBefore = r.cockpit.frames;
    for (let i = 0; i < 1000; i++) s.update({ notice: `n${i}` });
    await waitForFrame(r, (x) => x.includes('n999'), 'the last notice');
    expect(r.cockpit.frames - framesBefore).toBeLessThan(10);
    r.unmount();
  });
});

describe('config editor on the real config engine', () => {
  const c = simCheckout();
  afterAll(() => rmSync(c.dir, { recursive: true, force: true }));

  it('edit a value, see it validated as you type, commit it, see the diff; remove the override', async () => {
    const session = createLiveSession({
      targets: [],
      config: { fileName: 'sim_local.yaml', text: readFileSync(c.configPath, 'utf8') },
      env: { CPU_CLUSTER_TOKEN: 'secret-value' },
    });
    const r = renderInk(
      <App session={session} initialScreen="config" size={{ columns: 140, rows: 40 }} colors={false} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('0 errors'), 'the evaluated config', 10_000);
      r.stdin.write('/max_head');
      await waitForFrame(r, (x) => x.includes('find key: max_head'), 'the finder');
      r.stdin.write(KEYS.enter);
      r.stdin.write(KEYS.enter);
      await waitForFrame(
        r,
        (x) => x.includes('edit rollout.max_head_offpolicyness: 2▏'),
        'the editor with the current value',
      );
      r.stdin.write(KEYS.backspace);
      r.stdin.write('1.5');
      // An int field rejects 1.5: the diagnostic appears before anything is committed.
      const typing = await waitForFrame(
        r,
        (x) => /[1-9]\d* errors?/.test(x) && x.includes('max_head_offpolicyness'),
        'a live error for 1.5',
        10_000,
      );
      expect(typing).toContain('edit rollout.max_head_offpolicyness: 1.5▏');
      expect(typing).toMatch(/Overrides ─+ 0 ─/);
      r.stdin.write(KEYS.backspace);
      r.stdin.write(KEYS.backspace);
      r.stdin.write(KEYS.backspace);
      r.stdin.write('4');
      r.stdin.write(KEYS.enter);
      const done = await waitForFrame(
        r,
        (x) => x.includes('1. ++rollout.max_head_offpolicyness=4') && x.includes('0 errors'),
        'the committed override',
        10_000,
      );
      expect(done).toMatch(/rollout\.max_head_offpolicyness: 2 → 4/);
      expect(done).toMatch(/max_head_offpolicyness: 4\s+int\s+override 1/);
      r.stdin.write('L');
      const confirm = await waitForFrame(r, (x) => x.includes('─ Launch?'), 'the confirmation');
      expect(confirm).toContain('++rollout.max_head_offpolicyness=4');
      expect(confirm).toContain('CPU_CLUSTER_TOKEN set');
      expect(confirm).not.toContain('secret-value');
      r.stdin.write('n');
      await waitForFrame(r, (x) => x.includes('─ Diagnostics'), 'back');
      r.stdin.write('x');
      await waitForFrame(
        r,
        (x) => /Overrides ─+ 0 ─/.test(x) && x.includes('no changes'),
        'the override removed',
        10_000,
      );
    } finally {
      r.unmount();
      await session.close();
    }
  });
});
