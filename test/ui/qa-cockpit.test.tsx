/** @jsxRuntime classic */
// QA of the cockpit as a researcher uses it for days, in small terminals: defects found driving the
// real binary in tmux, each pinned by the frames (or key transitions) that showed it.
import React from 'react';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { simCheckout } from './sim-run.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { SessionState } from '../../src/session/types.js';
import { initialUiState, reduceKey, type KeyContext } from '../../src/ui/ui-state.js';
import { KEYS, maxLineWidth, renderInk, waitForFrame } from './helpers.js';

const NOW = Date.parse('2026-05-25T12:00:00');
const clock = () => NOW;
const LONG_ID = 'intuition-model-20261129-113717-ce92';

const ctx: KeyContext = { runIds: [], configRows: [], launchInProgress: false, configHasErrors: false, page: 10 };

function liveState(): Partial<SessionState> {
  const base = sampleRunView({ steps: 120, now: NOW });
  const run = { ...base, summary: { ...base.summary, id: LONG_ID } };
  // The runs list (polled every 5 s, no time of the last step) lags the followed run.
  const listed = { ...run.summary, step: 118, reward: 0.1, lastStepAt: null };
  return {
    run,
    selectedRunId: LONG_ID,
    targets: [
      {
        name: 'local',
        connection: { state: 'ready' },
        runs: [listed, { ...listed, id: 'intuition-model-20261128-090000-ab12', state: 'finished' }],
      },
    ],
  };
}

describe('log search', () => {
  it('Ctrl-c cancels a search being typed: the previous search comes back', () => {
    let s = initialUiState('dashboard');
    for (const ch of '/oom') s = reduceKey(s, ch, {}, ctx).state;
    s = reduceKey(s, '', { return: true }, ctx).state;
    expect(s.logSearch).toBe('oom');
    s = reduceKey(s, '/', {}, ctx).state;
    for (const ch of 'zzz') s = reduceKey(s, ch, {}, ctx).state;
    expect(s.logSearch).toBe('oomzzz');
    s = reduceKey(s, 'c', { ctrl: true }, ctx).state;
    expect(s.input).toBeNull();
    expect(s.logSearch).toBe('oom');
    // From no search at all, a cancelled one leaves none.
    let t = reduceKey(initialUiState('log'), '/', {}, ctx).state;
    t = reduceKey(t, 'x', {}, ctx).state;
    expect(reduceKey(t, 'g', { ctrl: true }, ctx).state.logSearch).toBe('');
  });
});

describe('help overlay', () => {
  it('lists each place once (no second "dashboard" group)', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(liveState())}
        initialScreen="dashboard"
        size={{ columns: 120, rows: 50 }}
        colors={false}
        clock={clock}
      />,
    );
    r.stdin.write('?');
    const f = await waitForFrame(r, (x) => x.includes('Help — keys'), 'the help');
    const groups = f.split('\n').filter((l) => /^[a-z ,]+$/.test(l.trim()) && !l.startsWith(' '));
    const names = groups.map((l) => l.trim());
    expect(names.slice(0, 5)).toEqual(['everywhere', 'runs', 'dashboard, log', 'dashboard', 'config']);
    expect(new Set(names).size).toBe(names.length);
    r.unmount();
  });

  for (const [columns, rows] of [
    [80, 24],
    [60, 20],
  ] as const) {
    it(`at ${columns}x${rows} every key can be read: ↓/PgDn scroll the help, another key closes it`, async () => {
      const r = renderInk(
        <App
          session={new StaticSession(liveState())}
          initialScreen="dashboard"
          size={{ columns, rows }}
          colors={false}
          clock={clock}
        />,
      );
      r.stdin.write('?');
      const first = await waitForFrame(r, (x) => x.includes('Help — keys'), 'the help');
      expect(first).not.toContain('while typing');
      expect(first).toMatch(/↓ more .* other keys close$/m);
      let f = first;
      for (let i = 0; i < 20 && !f.includes('Press any key to close'); i++) {
        const before = f;
        r.stdin.write(i === 0 ? KEYS.down : '\u001B[6~');
        f = await waitForFrame(r, (x) => x !== before, 'the help to scroll');
      }
      expect(f).toContain('while typing');
      expect(f).toContain('Ctrl-c / Ctrl-g');
      expect(f).toContain('Help — keys');
      expect(maxLineWidth(f)).toBeLessThanOrEqual(columns);
      expect(f.split('\n').length).toBeLessThanOrEqual(rows - 1);
      r.stdin.write('x');
      await waitForFrame(r, (x) => !x.includes('Help — keys') && x.includes('step 120'), 'the dashboard again');
      r.unmount();
    });
  }
});

describe('runs screen', () => {
  it("the followed run shows its live step, reward and last-step age (the list's are older)", async () => {
    const r = renderInk(
      <App
        session={new StaticSession(liveState())}
        initialScreen="runs"
        size={{ columns: 120, rows: 30 }}
        colors={false}
        clock={clock}
      />,
    );
    const f = await waitForFrame(r, (x) => x.includes(LONG_ID), 'the runs list');
    const row = f.split('\n').find((l) => l.includes(LONG_ID))!;
    expect(row).toMatch(/running\s+120\/1600\s+0\.\d+\s+4 s ago/);
    r.unmount();
  });

  it('at 60 columns run ids stay told apart (their unique end is kept)', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(liveState())}
        initialScreen="runs"
        size={{ columns: 60, rows: 20 }}
        colors={false}
        clock={clock}
      />,
    );
    const f = await waitForFrame(r, (x) => x.includes('running'), 'the runs list');
    expect(f).toContain('ce92');
    expect(f).toContain('ab12');
    // The title's key hints end whole (as many as fit, none cut).
    expect(f.split('\n')[1]).toMatch(/^─ Runs ─+ Enter open · n new launch · s stop · o leftovers ─$/);
    expect(maxLineWidth(f)).toBeLessThanOrEqual(60);
    r.unmount();
  });
});

describe('dashboard header in a narrow terminal', () => {
  it('at 60 columns the run state and the age of the last step are still shown', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(liveState())}
        initialScreen="dashboard"
        size={{ columns: 60, rows: 20 }}
        colors={false}
        clock={clock}
      />,
    );
    const f = await waitForFrame(r, (x) => x.includes('step 120'), 'the dashboard');
    const [, l1, l2] = f.split('\n');
    expect(l1).toMatch(/connected │ running$/);
    expect(l1).toContain('ce92');
    expect(l2).toMatch(/last step 4 s ago/);
    // The note on hidden panels says its key whole.
    expect(f).toMatch(/hidden: .*\(z: zoom\)/);
    expect(maxLineWidth(f)).toBeLessThanOrEqual(60);
    r.unmount();
  });
});

describe('config screen on the real config engine', () => {
  const c = simCheckout();
  afterAll(() => rmSync(c.dir, { recursive: true, force: true }));
  const open = () =>
    createLiveSession({
      targets: [],
      config: { fileName: c.configPath, text: readFileSync(c.configPath, 'utf8') },
      env: { CPU_CLUSTER_TOKEN: 'x' },
    });

  it('an int set to a wrong value and then to a right one is passed as an int again, not quoted', async () => {
    const session = open();
    try {
      session.actions.setValue('seed', 'abc');
      expect(session.getState().config!.hasErrors).toBe(true);
      session.actions.setValue('seed', '7');
      expect(session.getState().config!.overrides).toEqual(['++seed=7']);
      expect(session.getState().config!.hasErrors).toBe(false);
    } finally {
      await session.close();
    }
  });

  it('at 120 columns the key hints are whole and the title keeps its override count and target', async () => {
    const session = open();
    const r = renderInk(
      <App session={session} initialScreen="config" size={{ columns: 120, rows: 40 }} colors={false} />,
    );
    try {
      const f = await waitForFrame(r, (x) => x.includes('0 errors'), 'the evaluated config', 10_000);
      const [, title, hints] = f.split('\n');
      expect(title).toMatch(/0 override\(s\)/);
      // The hint ends in its own column: the launch key is named, and the side panel's text does
      // not run on from it.
      expect(hints).toMatch(/L launch\s/);
    } finally {
      r.unmount();
      await session.close();
    }
  });
});

describe('log pane scrolled back', () => {
  const lines = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ seq: i + 1, level: 'info' as const, text: `trainer line ${i + 1}` }));
  const withLines = (n: number): Partial<SessionState> => {
    const s = liveState();
    return { ...s, run: { ...s.run!, trainerLines: { lines: lines(n), startsMidLog: false, dropped: 0 } } };
  };

  it('stays on the lines being read while new ones arrive; the keys move from there', async () => {
    const session = new StaticSession(withLines(100));
    const r = renderInk(
      <App session={session} initialScreen="log" size={{ columns: 80, rows: 24 }} colors={false} clock={clock} />,
    );
    await waitForFrame(r, (x) => x.includes('trainer line 100'), 'the newest line');
    for (let i = 0; i < 30; i++) r.stdin.write('k');
    const before = await waitForFrame(
      r,
      (x) => !x.includes('trainer line 100') && /\b70\/100\b/.test(x),
      'the pane scrolled 30 lines up',
    );
    const top = before.split('\n')[2];
    session.update(withLines(110));
    const after = await waitForFrame(r, (x) => x.includes('/110'), 'the new lines counted');
    expect(after.split('\n')[2]).toBe(top);
    r.stdin.write('j');
    const down = await waitForFrame(r, (x) => x.split('\n')[2] !== top, 'one line down');
    expect(down.split('\n')[2]).toBe(top.replace(/\d+$/, (n) => String(Number(n) + 1)));
    // Back at the bottom, the pane follows the tail again.
    for (let i = 0; i < 60; i++) r.stdin.write('j');
    await waitForFrame(r, (x) => x.includes('trainer line 110'), 'the tail');
    session.update(withLines(115));
    await waitForFrame(r, (x) => x.includes('trainer line 115'), 'following the tail');
    r.unmount();
  });
});

describe('alerts panel, small', () => {
  it("a run's fatal error (no step of its own) comes before older warnings, so a short panel shows it", async () => {
    const { alertsLines } = await import('../../src/ui/panels/alerts.js');
    const { lineText } = await import('../../src/ui/lines.js');
    const lines = alertsLines(
      [
        {
          id: 'omniboxes-failed',
          severity: 'warning',
          title: 'Browser environments failing',
          detail: 'rollout/omniboxes_failed = 3',
          advice: 'check the cluster',
          step: 4,
          time: '2026-11-29T11:54:10.000',
        },
        {
          id: 'error:0',
          severity: 'error',
          title: 'nccl-timeout: Training step failed',
          detail: 'Traceback (most recent call last):',
          advice: 'look at the watchdog',
          time: '2026-11-29T11:54:30.000',
        },
      ],
      60,
      4,
    ).map(lineText);
    expect(lines[1]).toContain('nccl-timeout: Training step failed');
  });
});

describe('config screen without a config (the demo, or no --config)', () => {
  it('+ and / open no invisible text field that would swallow q', () => {
    for (const k of ['+', '/']) {
      const s = reduceKey(initialUiState('config'), k, {}, ctx).state;
      expect(s.input).toBeNull();
      expect(reduceKey(s, 'q', {}, ctx).effects).toEqual([{ kind: 'quit' }]);
    }
  });
});

describe('status line at 80 columns', () => {
  it("an ended run's leftover hint is said whole (the parenthesis goes first)", async () => {
    const s = liveState();
    const run = { ...s.run!, summary: { ...s.run!.summary, state: 'stopped' as const } };
    const r = renderInk(
      <App
        session={new StaticSession({ ...s, run })}
        initialScreen="dashboard"
        size={{ columns: 80, rows: 24 }}
        colors={false}
        clock={clock}
      />,
    );
    const f = await waitForFrame(r, (x) => x.includes('o checks'), 'the hint');
    expect(f.split('\n').find((l) => l.includes('o checks'))).toMatch(
      /^run stopped: o checks for leftover processes\s*$/,
    );
    r.unmount();
  });
});

describe('ETA of a stalled run', () => {
  it('counts down only until the next step is due; stalled, it says so instead of holding a figure', async () => {
    const { headerLines } = await import('../../src/ui/panels/header.js');
    const { lineText } = await import('../../src/ui/lines.js');
    const figures = {
      step: 10,
      totalSteps: 100,
      epoch: 1,
      epochs: 1,
      startedAt: NOW - 3_600_000,
      lastStepAt: NOW - 7_200_000,
      etaS: 5400,
      stepTimeS: 60,
      episodesPerS: null,
      trainTokensPerS: null,
      rolloutWaitS: null,
    };
    const l2 = lineText(
      headerLines({
        runId: 'r',
        target: 'local',
        connection: { state: 'ready' },
        connectionAt: NOW,
        runState: 'running',
        figures,
        now: NOW,
        hung: true,
      })[1],
    );
    expect(l2).toContain('ETA — (stalled 2 h 00 min)');
  });
});

describe('launch confirmation at 80 columns', () => {
  it('a blocked pre-flight still names every key, n cancel included', async () => {
    const { confirmLaunchLines } = await import('../../src/ui/screens/config.js');
    const { lineText } = await import('../../src/ui/lines.js');
    const view = {
      fileName: 'c.yaml',
      overrides: [],
      rows: [],
      diagnostics: [],
      hasErrors: false,
      diff: [],
      argv: ['python3', 'webgym/train.py', '--config', '/w/.awrl/runs/<run-id>/config.yaml'],
      secrets: [],
      target: 'local',
      draft: null,
    };
    const pf = {
      phase: 'done' as const,
      target: 'local',
      checks: [{ id: 'gpus', result: 'error' as const, seen: 'nvidia-smi not found', todo: 'run on nodes with GPUs' }],
      errors: 1,
      warnings: 0,
      blocked: true,
      reason: 'preflight found 1 error(s) on local',
      overrides: [],
    };
    for (const width of [80, 60]) {
      const lines = confirmLaunchLines(view, width, pf, 21).map(lineText);
      // The key line is the last one, and the frame cuts whatever is wider than the terminal.
      const keys = lines.at(-1)!.slice(0, width);
      expect(keys).toMatch(/S launch anyway/);
      expect(keys).toMatch(/p run again/);
      expect(keys).toMatch(/n cancel$/);
    }
  });
});

describe('leftovers dialog at 60 columns', () => {
  it('the stop question keeps its y/n keys on screen', async () => {
    const { leftoverLines } = await import('../../src/ui/screens/leftovers.js');
    const { lineText } = await import('../../src/ui/lines.js');
    const list = [
      {
        pid: 4242,
        tagged: true,
        otherRunId: null,
        user: 'me',
        cmd: 'python3 webgym/train.py --config x.yaml',
        gpuMiB: 61000,
      },
      { pid: 4343, tagged: false, otherRunId: null, user: 'me', cmd: 'python3 other.py', gpuMiB: 1000 },
    ];
    const lines = leftoverLines({ phase: 'found', runId: LONG_ID, list }, LONG_ID, 60).map(lineText);
    const ask = lines.find((l) => l.includes('Stop the'))!;
    expect(ask.slice(0, 60)).toMatch(/y\/n$/);
  });
});

describe('quit question at 60 columns', () => {
  it('while a launch is in progress, the question keeps its y/n on screen', async () => {
    const r = renderInk(
      <App
        session={new StaticSession({ ...liveState(), launch: { phase: 'launching' } })}
        initialScreen="runs"
        size={{ columns: 60, rows: 20 }}
        colors={false}
        clock={clock}
      />,
    );
    await waitForFrame(r, (x) => x.includes('launching'), 'the launching status');
    r.stdin.write('q');
    const f = await waitForFrame(
      r,
      (x) => /[Qq]uit/.test(x.split('\n').filter(Boolean).at(-1) ?? ''),
      'the quit question',
    );
    expect(f.split('\n').filter(Boolean).at(-1)).toMatch(/y\/n$/);
    r.unmount();
  });
});
