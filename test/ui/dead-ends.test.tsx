/** @jsxRuntime classic */
// Dead ends a new user hit (issue #19), each read from the terminal's buffer (@xterm/headless)
// after the painter's bytes: the pinned launch action line at 80x24, one pre-flight summary, the
// log's jump to its end, a key that does nothing saying why, and text cut always ending in '…'.
import React from 'react';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiveSession } from '../../src/session/live-session.js';
import { simCheckout } from './sim-run.js';
import { App } from '../../src/ui/app.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { ConfigView, PreflightPhase, SessionState } from '../../src/session/types.js';
import { KEYS, renderInk, waitForFrame } from './helpers.js';

const NOW = Date.parse('2026-05-25T12:00:00');

function config(): ConfigView {
  return {
    fileName: 'c.yaml',
    overrides: [],
    diagnostics: [],
    hasErrors: false,
    diff: [],
    target: 'gpu-head',
    draft: null,
    argv: [
      'python3',
      'webgym/train.py',
      '--config',
      '/scratch/run/config.yaml',
      ...Array.from({ length: 12 }, (_, i) => `++k${i}=v${i}`),
    ],
    rows: [{ key: 'seed', depth: 0, label: 'seed', value: '1', type: 'int', origin: 'file:1', leaf: true }],
    secrets: [{ name: 'WANDB_API_KEY', present: true, required: false }],
  };
}

/** A pre-flight with many findings: taller than what 80x24 leaves below the argv. */
const LONG_PREFLIGHT: PreflightPhase = {
  phase: 'done',
  target: 'gpu-head',
  errors: 1,
  warnings: 8,
  blocked: true,
  reason: 'gpus',
  overrides: [],
  checks: [
    {
      id: 'gpus',
      result: 'error',
      seen: '2 GPUs busy with another job (PID 4242, 71 GB)',
      todo: 'stop it or choose other GPUs',
    },
    ...Array.from({ length: 8 }, (_, i) => ({
      id: `check${i}`,
      result: 'warning' as const,
      seen: `something worth a look number ${i}`,
      todo: `look at thing ${i}`,
    })),
  ],
};

describe('the launch confirmation at 80x24 (dead end 3)', () => {
  it('keeps its action line on screen when the pre-flight is longer than the room; S launches anyway', async () => {
    const s = new StaticSession({ config: config(), preflight: LONG_PREFLIGHT });
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 80, rows: 24 }} colors={false} clock={() => NOW} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('c.yaml'), 'the config screen');
      r.stdin.write('L');
      const f = await waitForFrame(r, (x) => x.includes('Launch?'), 'the confirmation');
      const rows = r.screen.lines();
      expect(rows[21]).toMatch(/^blocked .*S launch anyway.*n cancel$/);
      expect(f).toContain('more rows of the pre-flight: enlarge the terminal to read them');
      expect(f).toContain('pre-flight on gpu-head: 1 error, 8 warnings: launching is blocked');
      r.stdin.write('S');
      await waitForFrame(r, (x) => !x.includes('Launch?'), 'the confirmation closed');
      expect(s.calls.find((c) => c.action === 'launch')?.args).toEqual([{ skipPreflight: true }]);
    } finally {
      r.unmount();
    }
  });
});

describe('a launch refused by a run of the same trial (found walking the demo)', () => {
  it('offers no S it cannot honour: says why and what to do, and S launches nothing', async () => {
    const twin =
      'run demo-1 of this trial is already running on gpu-head: stop it first (awrl-tui stop demo-1 --target gpu-head) or add the override trial_name=OTHER';
    const refused: PreflightPhase = {
      phase: 'done',
      target: 'gpu-head',
      checks: [],
      errors: 1,
      warnings: 0,
      blocked: true,
      reason: twin,
      failed: twin,
      unskippable: true,
      overrides: [],
    };
    const s = new StaticSession({ config: config(), preflight: refused });
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 120, rows: 40 }} colors={false} clock={() => NOW} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('c.yaml'), 'the config screen');
      r.stdin.write('L');
      const f = await waitForFrame(r, (x) => x.includes('Launch?'), 'the confirmation');
      expect(f).toContain('or add the override trial_name=OTHER');
      expect(f).not.toContain('--force');
      expect(f).not.toContain('S launch anyway');
      expect(r.screen.lines().find((l) => l.startsWith('refused'))).toMatch(
        /^refused: a run of this trial is active\s+p run again\s+n cancel\s*$/,
      );
      r.stdin.write('S');
      await waitForFrame(r, (x) => x.includes('a run of this trial is active; the launch refuses it'), 'why S is off');
      expect(s.calls.filter((c) => c.action === 'launch')).toEqual([]);
    } finally {
      r.unmount();
    }
  });
});

describe('a probe that could not run (dead end 5)', () => {
  it('says one summary: not checked, never "0 errors, 0 warnings"', async () => {
    const failed: PreflightPhase = {
      phase: 'done',
      target: 'gpu-head',
      checks: [],
      errors: 0,
      warnings: 0,
      blocked: true,
      reason: 'probe',
      failed: 'python3: command not found',
      overrides: [],
    };
    const r = renderInk(
      <App
        session={new StaticSession({ config: config(), preflight: failed })}
        initialScreen="config"
        size={{ columns: 140, rows: 40 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      const f = await waitForFrame(r, (x) => x.includes('could not run'), 'the pre-flight');
      // The side panel's pre-flight rows, read from the screen from the column its title starts in.
      const col = r.screen
        .lines()
        .find((l) => l.includes('─ Pre-flight'))!
        .indexOf('─ Pre-flight');
      const panel = r.screen
        .lines()
        .map((l) => l.slice(col).trim())
        .filter(Boolean);
      const pf = panel.slice(
        panel.findIndex((l) => l.startsWith('─ Pre-flight')),
        panel.findIndex((l) => l.startsWith('─ Diff')),
      );
      expect(pf.slice(1).join(' ')).toBe(
        'ERROR the probe could not run on gpu-head: python3: command not found pre-flight on gpu-head: not checked (the probe could not run): launching is blocked',
      );
      expect(pf.join(' ')).not.toMatch(/\d+ errors?, \d+ warnings?/);
      expect(f).not.toContain('…');
    } finally {
      r.unmount();
    }
  });
});

function runState(state: 'running' | 'failed'): Partial<SessionState> {
  const run = sampleRunView({ steps: 300, now: NOW });
  run.summary = { ...run.summary, state };
  return {
    run,
    selectedRunId: run.summary.id,
    targets: [{ name: 'gpu-head', connection: { state: 'ready' }, runs: [run.summary] }],
  };
}

describe('the log pane and o (dead end 7)', () => {
  it('G jumps back to the newest line after scrolling back (End too)', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(runState('running'))}
        initialScreen="log"
        size={{ columns: 100, rows: 30 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('4 Log'), 'the log');
      r.stdin.write('a'); // every line, not only warnings and errors: more than a screen
      const bottom = await waitForFrame(r, (x) => x.includes('─ Log') && !x.includes('warnings+errors'), 'all lines');
      for (let i = 0; i < 40; i++) r.stdin.write('k');
      const back = await waitForFrame(r, (x) => x !== bottom, 'scrolled back');
      expect(back).not.toBe(bottom);
      r.stdin.write('G');
      expect(await waitForFrame(r, (x) => x === bottom, 'the newest line again')).toBe(bottom);
      for (let i = 0; i < 40; i++) r.stdin.write('k');
      await waitForFrame(r, (x) => x !== bottom, 'scrolled back');
      r.stdin.write('\u001B[F'); // End
      expect(await waitForFrame(r, (x) => x === bottom, 'the newest line again (End)')).toBe(bottom);
    } finally {
      r.unmount();
    }
  });

  it('o on a running run says why it does nothing; on an ended one it opens the leftover check', async () => {
    const running = new StaticSession(runState('running'));
    const r = renderInk(
      <App
        session={running}
        initialScreen="dashboard"
        size={{ columns: 140, rows: 45 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('─ Reward'), 'the dashboard');
      r.stdin.write('o');
      const f = await waitForFrame(r, (x) => x.includes('still running'), 'the reason');
      expect(r.screen.lines()[43]).toBe(
        `o: run ${running.getState().run!.summary.id} is still running; leftover processes are checked once it has ended`,
      );
      expect(running.calls.some((c) => c.action === 'checkLeftovers')).toBe(false);
      expect(f).toContain('─ Reward');
      // The next key takes the reason away.
      r.stdin.write('d');
      await waitForFrame(r, (x) => !x.includes('still running'), 'the reason gone');
    } finally {
      r.unmount();
    }
    const ended = new StaticSession(runState('failed'));
    const e = renderInk(
      <App
        session={ended}
        initialScreen="dashboard"
        size={{ columns: 140, rows: 45 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      await waitForFrame(e, (x) => x.includes('o checks for leftover processes'), 'the status hint');
      e.stdin.write('o');
      await waitForFrame(e, () => ended.calls.some((c) => c.action === 'checkLeftovers'), 'the check');
    } finally {
      e.unmount();
    }
  });

  it('the help says what q does in the demo (it stops its own simulated run)', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(runState('running'))}
        initialScreen="runs"
        size={{ columns: 160, rows: 60 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      r.stdin.write('?');
      const f = await waitForFrame(r, (x) => x.includes('Help — keys'), 'the help');
      expect(f.replace(/\s+/g, ' ')).toContain(
        'quit the cockpit (a run keeps running; --demo stops its own simulated run)',
      );
    } finally {
      r.unmount();
    }
  });
});

describe('text cut ends with … (dead end 9)', () => {
  it('a status line longer than the screen ends with …, never mid-word without a mark', async () => {
    const notice = 'stop failed: ' + 'the target said something long about why it could not stop the run '.repeat(3);
    const s = new StaticSession({ ...runState('running'), notice });
    const r = renderInk(
      <App session={s} initialScreen="runs" size={{ columns: 80, rows: 24 }} colors={false} clock={() => NOW} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('stop failed'), 'the notice');
      const status = r.screen.lines()[22];
      expect(status.startsWith('stop failed: the target said')).toBe(true);
      expect(status).toHaveLength(80);
      expect(status.endsWith('…')).toBe(true);
      r.stdin.write(KEYS.down);
    } finally {
      r.unmount();
    }
  });
});

describe('alerts read whole (dead end 4)', () => {
  const ADVICE =
    'lower actor.mb_spec.max_tokens_per_mb or the rollout batch, or add GPUs; the step that failed is in the log above the traceback, and a restart resumes from the last recover checkpoint END';
  const TRACE =
    'Traceback (most recent call last):\n  File "areal/engine/fsdp.py", line 412, in update_weights\n    self._sync()\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB';
  function withAlert(): Partial<SessionState> {
    const st = runState('running');
    const alert = {
      id: 'error:0',
      severity: 'error' as const,
      title: 'cuda-oom: CUDA out of memory',
      detail: TRACE,
      advice: ADVICE,
    };
    st.run = {
      ...st.run!,
      alerts: [alert],
      alertHistory: [
        {
          key: 'error:0',
          alert,
          firstSeenAt: NOW,
          firstStep: 3,
          lastSeenAt: NOW,
          lastStep: 3,
          fired: 1,
          lastFiredAt: NOW,
          lastFiredStep: 3,
          active: true,
          clearedAt: null,
          endedWithRun: false,
        },
      ],
    };
    return st;
  }
  it('the panel cuts with …; zoom and the history wrap the whole advice; the detail is the exception line', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(withAlert())}
        initialScreen="dashboard"
        size={{ columns: 200, rows: 50 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      const f = await waitForFrame(r, (x) => x.includes('cuda-oom'), 'the alert');
      expect(f).toContain('RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB');
      expect(f).not.toContain('Traceback (most recent call last)');
      for (let i = 0; i < 5; i++) r.stdin.write('z'); // reward, staleness, throughput, gpu, alerts
      const zoomed = await waitForFrame(r, (x) => x.includes('zoomed on alerts'), 'the zoomed alerts');
      expect(zoomed.replace(/\s+/g, ' ')).toContain(ADVICE);
      r.stdin.write('z');
      r.stdin.write('h');
      const history = await waitForFrame(r, (x) => x.includes('─ Alert history'), 'the history');
      expect(history.replace(/\s+/g, ' ')).toContain(ADVICE);
      expect(history).toContain('RuntimeError: CUDA out of memory');
    } finally {
      r.unmount();
    }
  });
});

describe('overrides that cannot be taken (dead end 2)', () => {
  const c = simCheckout();
  afterAll(() => rmSync(c.dir, { recursive: true, force: true }));

  it('are marked with why, can be selected past the keys, and x removes the selected one', async () => {
    const session = createLiveSession({
      targets: [],
      config: { fileName: 'sim_local.yaml', text: readFileSync(c.configPath, 'utf8') },
      env: { CPU_CLUSTER_TOKEN: 'x' },
    });
    const r = renderInk(
      <App session={session} initialScreen="config" size={{ columns: 140, rows: 40 }} colors={false} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('0 errors'), 'the evaluated config', 10_000);
      r.stdin.write('+');
      r.stdin.write('no_such_section.key=1');
      r.stdin.write(KEYS.enter);
      const marked = await waitForFrame(
        r,
        (x) => /✖ 1\. no_such_section\.key=1 {2}\S/.test(x),
        'the marked override',
        10_000,
      );
      expect(marked).toMatch(/Overrides ─+ 1 ─/);
      const selected = () =>
        waitForFrame(
          r,
          () =>
            r.screen
              .lines()
              .some(
                (l, row) =>
                  l.includes('1. no_such_section.key=1') && r.screen.cell(row, l.indexOf('1. no_such')).inverse,
              ),
          'the override selected',
        );
      // The cursor goes to the override just added (issue #32), wherever it was in the tree.
      await selected();
      // x on a key row the override does not set says why, and where the overrides are, and removes nothing.
      r.stdin.write('k');
      r.stdin.write('x');
      await waitForFrame(
        r,
        (x) => x.includes('x: no override sets the selected key; the 1 override(s) are listed after the last key'),
        'the reason',
      );
      r.stdin.write('j');
      await selected();
      r.stdin.write('x');
      await waitForFrame(
        r,
        (x) => /Overrides ─+ 0 ─/.test(x) && x.includes('0 errors'),
        'the override removed',
        10_000,
      );
    } finally {
      r.unmount();
      await session.close();
    }
  });
});
