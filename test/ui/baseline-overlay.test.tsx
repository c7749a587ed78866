/** @jsxRuntime classic */
// The pinned baseline in the cockpit (issue #33): `b` on the Runs screen pins it, the Reward,
// Staleness and Throughput panels draw it beside the open run by global step in a second colour
// (NO_COLOR: a second glyph) with "Δ reward … at step N", `s` cycles TensorBoard's smoothing with
// the raw line kept, fainter. Read back from @xterm/headless at 80×24 and 200×50; then end to end:
// two simulated runs of different lengths on two local targets, the live session's overlay.
import React from 'react';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { StaticSession } from '../../src/session/static-session.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import type { BaselineOverlay, RunView, StepPoints, TargetSummary } from '../../src/session/types.js';
import { latestCommonStep, REWARD_KEY } from '../../src/metrics/compare.js';
import { samplesConsumed, trainingHours } from '../../src/metrics/run-steps.js';
import { readRunHistory } from '../../src/session/run-history.js';
import { baselineChoice } from '../../src/cli/baseline-option.js';
import { STEP_TIME_SERIES } from '../../src/session/types.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { renderInk, stripSgr, waitForFrame, type Rendered } from './helpers.js';
import { panelOverlay } from '../../src/ui/panels/baseline-overlay.js';
import { launchSim, withSimEnv, type SimRun } from './sim-run.js';
import { waitFor } from '../harness/wait.js';
import { LocalTransport } from '../../src/remote/index.js';

/** The other axes: the open run 36 s a step and 64 samples, the baseline 72 s and 16 samples. */
const scaled = (p: StepPoints, k: number) => ({ steps: p.steps.map((s) => s * k), values: p.values });
const pair = (a: StepPoints, b: StepPoints) => ({
  a,
  b,
  latest: latestCommonStep(a, b),
  axes: { hours: { a: scaled(a, 0.01), b: scaled(b, 0.02) }, samples: { a: scaled(a, 64), b: scaled(b, 16) } },
});
const steps = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
/** The open run: 40 steps of reward rising; the baseline: 60 steps, lower. */
function overlay(): BaselineOverlay {
  const a = { steps: steps(40), values: steps(40).map((s) => 0.2 + 0.005 * s + (s % 4) * 0.01) };
  const b = { steps: steps(60), values: steps(60).map((s) => 0.15 + 0.004 * s + (s % 3) * 0.01) };
  const stale = (k: number) => ({ steps: steps(40), values: steps(40).map((s) => (s % 3) * k) });
  return {
    label: 'gpu-box:base-run',
    runId: 'base-run',
    state: 'finished',
    series: {
      'rollout/reward': pair(a, b),
      'staleness/gap/offpolicy_avg': pair(stale(0.5), stale(0.8)),
      [STEP_TIME_SERIES]: pair(stale(20), stale(30)),
    },
  };
}

function session(withBaseline: boolean): StaticSession {
  const run: RunView = sampleRunView({ steps: 40, now: 0 });
  const targets: TargetSummary[] = [
    {
      name: 'gpu-box',
      connection: { state: 'ready' },
      runs: [run.summary, { ...run.summary, id: 'base-run', state: 'finished' }],
    },
  ];
  return new StaticSession({
    targets,
    selectedRunId: run.summary.id,
    run: withBaseline ? { ...run, baseline: overlay() } : run,
  });
}

/** The chart rows of a frame (a value label, then the axis). */
const chartRows = (frame: string) => frame.split('\n').filter((l) => /\d[┤┼]/.test(l));
/** Rows of the screen that hold `text`. */
const rowsWith = (frame: string, text: string) => frame.split('\n').filter((l) => l.includes(text));

describe('the baseline overlay on the dashboard', () => {
  const open: Rendered[] = [];
  afterAll(() => open.forEach((r) => r.unmount()));
  const mount = (s: StaticSession, columns: number, rows: number, colors: boolean) => {
    const r = renderInk(
      <App session={s} initialScreen="dashboard" size={{ columns, rows }} colors={colors} clock={() => 0} />,
    );
    open.push(r);
    return r;
  };

  // The latest common step is 40: b − a there.
  const a40 = 0.2 + 0.005 * 40;
  const b40 = 0.15 + 0.004 * 40 + (40 % 3) * 0.01;
  const delta = `Δ reward −${(a40 - b40).toFixed(3)} at step 40`;

  it.each([
    [80, 24],
    [200, 50],
  ])('%i×%i in colour: both runs named, Δ at the latest common step, the baseline in a second colour', async (c, r) => {
    const ink = mount(session(true), c, r, true);
    const f = await waitForFrame(ink, (x) => x.includes('Δ reward'), 'the overlay legend');
    expect(f).toContain(delta);
    expect(rowsWith(f, delta)[0]).toMatch(/── \S+ +── gpu-box:base-run|── .+…/);
    // Chart cells in the open run's colour (cyan, 6) and the baseline's (magenta, 5).
    const colours = new Set<number>();
    for (let row = 0; row < r; row++) for (const x of ink.screen.rowColors(row)) colours.add(x);
    expect(colours.has(6)).toBe(true);
    expect(colours.has(5)).toBe(true);
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(c);
  });

  it.each([
    [80, 24],
    [200, 50],
  ])('%i×%i with NO_COLOR: the baseline drawn with a second glyph; s smooths and keeps the raw line', async (c, r) => {
    const ink = mount(session(true), c, r, false);
    let f = await waitForFrame(ink, (x) => x.includes('Δ reward'), 'the overlay legend');
    expect(rowsWith(f, delta)[0]).toContain('••');
    expect(chartRows(f).some((l) => /[╭╮╰╯─│].*•|•.*[╭╮╰╯─│]/.test(l))).toBe(true);
    expect(chartRows(f).some((l) => l.includes('·'))).toBe(false);
    ink.stdin.write('s');
    f = await waitForFrame(ink, (x) => x.includes('ema 0.6'), 'smoothing 0.6');
    // The raw lines stay, fainter: their own glyph with NO_COLOR.
    expect(chartRows(f).some((l) => l.includes('·'))).toBe(true);
    for (const w of ['0.9', '0.99']) {
      ink.stdin.write('s');
      await waitForFrame(ink, (x) => x.includes(`ema ${w}`), `smoothing ${w}`);
    }
    ink.stdin.write('s');
    f = await waitForFrame(ink, (x) => x.includes('Δ reward') && !x.includes('ema '), 'smoothing off again');
  });

  it('t switches the time axis: training hours, samples consumed, steps again; the Δ stays at the common step', async () => {
    const ink = mount(session(true), 200, 50, false);
    let f = await waitForFrame(ink, (x) => x.includes('Δ reward'), 'the overlay legend');
    expect(f).not.toContain('x: ');
    ink.stdin.write('t');
    f = await waitForFrame(ink, (x) => x.includes('x: training hours'), 'the hours axis');
    // Each panel's legend: the Δ at step 40, both runs, the axis named.
    expect(rowsWith(f, delta)[0]).toMatch(
      /Δ reward −\d\.\d{3} at step 40 {2}── \S+ {2}•• gpu-box:base-run {2}x: training hours/,
    );
    expect(rowsWith(f, 'x: training hours')).toHaveLength(3);
    ink.stdin.write('t');
    f = await waitForFrame(ink, (x) => x.includes('x: samples consumed'), 'the samples axis');
    expect(rowsWith(f, 'x: samples consumed')).toHaveLength(3);
    expect(rowsWith(f, delta)).toHaveLength(1);
    ink.stdin.write('t');
    f = await waitForFrame(ink, (x) => x.includes('Δ reward') && !x.includes('x: '), 'global steps again');
    ink.stdin.write('?');
    f = await waitForFrame(ink, (x) => x.includes("a pinned baseline's time axis"), 'the help');
    expect(f).toMatch(/\bt\b +a pinned baseline's time axis: global steps \/ training hours \/ samples consumed/);
  });

  it.each([
    ['steps', 40 / 60, 1],
    ['hours', 0.4 / 1.2, 1],
    ['samples', 1, 960 / 2560],
  ] as const)('by %s each run ends where its own axis puts its last point', (axis, aEnd, bEnd) => {
    const run = { ...sampleRunView({ steps: 40, now: 0 }), baseline: overlay() };
    const own = () => ({ steps: [], values: [] });
    const o = panelOverlay(run, { key: 'rollout/reward', name: 'reward', own, smoothing: 0, axis }, 120, false)!;
    const rows = o.chart(120, 12).filter((l) => /[┤┼]/.test(l));
    // Plot columns after the value labels; the last column each run's glyph reaches.
    const plot = rows.map((l) => l.slice(l.search(/[┤┼]/) + 1));
    const width = Math.max(...plot.map((l) => l.length));
    const lastOf = (re: RegExp) => Math.max(...plot.map((l) => [...l].findLastIndex((ch) => re.test(ch))));
    expect(lastOf(/[╭╮╰╯─│]/) / (width - 1)).toBeCloseTo(aEnd, 1);
    expect(lastOf(/•/) / (width - 1)).toBeCloseTo(bEnd, 1);
    if (axis !== 'steps')
      expect(stripSgr(o.legend as string)).toContain(`x: ${axis === 'hours' ? 'training hours' : 'samples consumed'}`);
  });

  it('without a baseline the panels draw as before until s turns smoothing on', async () => {
    const ink = mount(session(false), 200, 50, false);
    let f = await waitForFrame(ink, (x) => x.includes('Reward'), 'the dashboard');
    expect(f).not.toContain('Δ reward');
    expect(f).not.toContain('ema ');
    ink.stdin.write('s');
    f = await waitForFrame(ink, (x) => x.includes('ema 0.6 (s: next)'), 'smoothing alone');
  });

  it('b on the Runs screen pins the selected run (marked in the list), b again unpins it', async () => {
    const s = session(false);
    const ink = renderInk(<App session={s} initialScreen="runs" size={{ columns: 120, rows: 30 }} colors={false} />);
    open.push(ink);
    await waitForFrame(ink, (x) => x.includes('base-run'), 'the runs');
    ink.stdin.write('j');
    ink.stdin.write('b');
    const f = await waitForFrame(ink, (x) => rowsWith(x, 'base-run').some((l) => /baseline$/.test(l)), 'the mark');
    expect(rowsWith(f, 'baseline')).toHaveLength(1);
    expect(s.calls.filter((c) => c.action === 'pinBaseline').map((c) => c.args)).toEqual([['base-run']]);
    ink.stdin.write('b');
    await waitForFrame(ink, (x) => !x.includes('baseline'), 'unpinned');
  });
});

describe('a live baseline: two simulated runs on two targets', () => {
  let a: SimRun | undefined;
  let b: SimRun | undefined;
  let live: LiveSession | undefined;
  afterAll(async () => {
    await live?.close();
    await a?.stop();
    await b?.stop();
  });

  const logOf = (s: SimRun) => `${s.dir}/.awrl/runs/${s.runId}/stdout.log`;
  const ended = (s: SimRun) => /Training completes/.test(readFileSync(logOf(s), 'utf8'));

  it('the open run (64 steps) beside a running baseline (another seed) that grows to 128, aligned by step, Δ at step 64', async () => {
    await withSimEnv({ AWRL_SIM_SPEED: 'instant' }, async () => {
      a = await launchSim(['total_train_epochs=1', 'seed=1', '++trial_name=open']);
    });
    // The baseline runs paced (~0.4 s a step): pinned while it runs, its series grows.
    await withSimEnv({ AWRL_SIM_SPEED: '1500' }, async () => {
      b = await launchSim(['total_train_epochs=2', 'seed=9', 'actor.optimizer.lr=1e-5', '++trial_name=base']);
    });
    await waitFor(() => ended(a!), { timeoutMs: 120_000, what: 'the open run to end' });
    live = createLiveSession({
      targets: [
        { target: a!.target, transport: a!.transport },
        { target: { ...b!.target, name: 'other' }, transport: b!.transport },
      ],
      openRunId: a!.runId,
      baselineRunId: b!.runId,
      runsPollMs: 500,
      statePollMs: 500,
      gpuPoller: null,
    });
    const reward = () => live!.getState().run?.baseline?.series['rollout/reward'];
    await waitFor(
      () => {
        const n = reward()?.b.steps.length ?? 0;
        return n > 0 && n < 128 && live!.getState().run?.baseline?.state === 'running';
      },
      { timeoutMs: 60_000, what: 'the running baseline, part of its steps read' },
    );
    await waitFor(() => reward()?.a.steps.length === 64 && reward()?.b.steps.length === 128, {
      timeoutMs: 180_000,
      what: 'both runs read, the baseline to its end',
    });
    const base = live.getState().run!.baseline!;
    expect(base.label).toBe(`other:${b!.runId}`);
    // The baseline's reward at each step is what its log says there.
    const logged = parseLogBytes(readFileSync(logOf(b!))).filter((e) => e.type === 'step');
    expect(reward()!.b.values).toEqual(logged.map((e) => e.stats['rollout/reward']));
    const ink = renderInk(
      <App session={live} initialScreen="dashboard" size={{ columns: 200, rows: 50 }} colors={false} />,
    );
    try {
      const f = await waitForFrame(ink, (x) => /Δ reward [+−]\d\.\d{3} at step 64/.test(x), 'Δ at step 64', 10_000);
      const ra = reward()!.a.values[63]!;
      const rb = reward()!.b.values[63]!;
      expect(f).toContain(`${rb - ra >= 0 ? '+' : '−'}${Math.abs(rb - ra).toFixed(3)} at step 64`);
      expect(f).toMatch(/Δ step time/);
    } finally {
      ink.unmount();
    }
  }, 400_000);
});

describe('a local log file as the baseline (--baseline PATH)', () => {
  let a: SimRun | undefined;
  let b: SimRun | undefined;
  let live: LiveSession | undefined;
  let local: LocalTransport | undefined;
  const tmp = mkdtempSync(join(tmpdir(), 'awrl-baseline-file-'));
  afterAll(async () => {
    await live?.close();
    await local?.close();
    await a?.stop();
    await b?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('--baseline tells a run id from a path, and a path that is no file is a usage error', () => {
    expect(baselineChoice(undefined)).toEqual({ kind: 'none' });
    expect(baselineChoice('run-123')).toEqual({ kind: 'run', runId: 'run-123' });
    expect(baselineChoice('gpu-box:run-123')).toEqual({ kind: 'run', runId: 'gpu-box:run-123' });
    const missing = join(tmp, 'nope.log');
    expect(() => baselineChoice(missing)).toThrow(`--baseline ${missing}: no such log file (${missing})`);
    expect(() => baselineChoice(tmp)).toThrow(/no such log file/);
    const file = join(tmp, 'x.log');
    writeFileSync(file, '');
    expect(baselineChoice(file)).toEqual({ kind: 'file', path: file });
  });

  it('a copied log pinned beside the open run: read by the one watch and backfill, named by its path, on every axis', async () => {
    await withSimEnv({ AWRL_SIM_SPEED: 'instant' }, async () => {
      a = await launchSim(['total_train_epochs=1', 'seed=1', '++trial_name=open']);
      b = await launchSim(['total_train_epochs=1', 'seed=5', '++trial_name=base']);
    });
    const logOf = (s: SimRun) => `${s.dir}/.awrl/runs/${s.runId}/stdout.log`;
    const ended = (s: SimRun) => /Training completes/.test(readFileSync(logOf(s), 'utf8'));
    await waitFor(() => ended(a!) && ended(b!), { timeoutMs: 120_000, what: 'both runs to end' });
    const path = join(tmp, 'baseline run.log');
    copyFileSync(logOf(b!), path);
    local = new LocalTransport();
    live = createLiveSession({
      targets: [{ target: a!.target, transport: a!.transport }],
      openRunId: a!.runId,
      baselineFile: { path, local: { target: { ...a!.target, name: 'local' }, transport: local } },
      runsPollMs: 500,
      statePollMs: 500,
      gpuPoller: null,
    });
    const reward = () => live!.getState().run?.baseline?.series['rollout/reward'];
    // Read to its end: all 64 steps, and the history's read said over (no note left).
    const read = () => live!.getState().run?.baseline?.note === undefined;
    await waitFor(() => reward()?.a.steps.length === 64 && reward()?.b.steps.length === 64 && read(), {
      timeoutMs: 60_000,
      what: 'both logs read',
    });
    const base = live.getState().run!.baseline!;
    expect(base.label).toBe(path);
    expect(base.note).toBeUndefined();
    const logged = parseLogBytes(readFileSync(path)).filter((e) => e.type === 'step');
    expect(reward()!.b.values).toEqual(logged.map((e) => e.stats['rollout/reward']));
    // The other axes are compare's: what readRunHistory and RunSteps make of each log.
    const history = async (p: string) => {
      const h = await readRunHistory(local!, p, { keys: [REWARD_KEY] });
      if (h.log !== 'read') throw new Error(`${p}: ${h.log}`);
      return h.steps;
    };
    const [ha, hb] = [await history(logOf(a!)), await history(path)];
    expect(reward()!.axes.hours.b.steps).toEqual(trainingHours(hb).filter((x) => x !== null));
    expect(reward()!.axes.hours.a.steps).toEqual(trainingHours(ha).filter((x) => x !== null));
    expect(reward()!.axes.samples.b.steps).toEqual(samplesConsumed(hb).filter((x) => x !== null));
    expect(reward()!.axes.samples.b.steps.length).toBe(64);
    const ink = renderInk(
      <App session={live} initialScreen="dashboard" size={{ columns: 200, rows: 50 }} colors={false} />,
    );
    try {
      let f = await waitForFrame(ink, (x) => /Δ reward [+−]\d\.\d{3} at step 64/.test(x), 'Δ at step 64', 10_000);
      // The path cut in its middle when it does not fit: the file's name stays.
      expect(rowsWith(f, 'Δ reward')[0]).toMatch(/•• \/tmp\/\S*…\S* run\.log /);
      ink.stdin.write('t');
      f = await waitForFrame(ink, (x) => x.includes('x: training hours'), 'the hours axis', 10_000);
      expect(rowsWith(f, 'Δ reward')[0]).toMatch(/at step 64 .*x: training hours/);
    } finally {
      ink.unmount();
    }
  }, 300_000);
});
