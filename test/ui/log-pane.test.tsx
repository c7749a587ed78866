/** @jsxRuntime classic */
// The log pane's trainer view drawn through Ink: the trainer's real lines (run-a's stdout.log through
// the ring), cut to the pane with an ellipsis, colour cues from the level, the mid-log note; and in
// the whole cockpit: L switches to the event view and back, a filters, the help lists L; o on the
// Runs screen opens the leftover check for an ended run (the dashboard's flow and confirmation).
import React from 'react';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { compactHeader, trainerLogLines } from '../../src/ui/panels/log.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import { PaneLines } from './pane-lines.js';
import type { LeftoverPhase, SessionState, TrainerLinesView } from '../../src/session/types.js';
import { SHARED } from '../harness/fixtures.js';
import { KEYS, maxLineWidth, paintLines, renderInk, stripSgr, waitForFrame } from './helpers.js';
import type { XtermScreen } from './xterm-screen.js';

const stdoutLog = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);
const NOW = Date.parse('2026-05-25T17:00:00');

function ringOf(...chunks: (Buffer | string)[]): TrainerLinesView {
  const r = new PaneLines();
  for (const c of chunks) r.push(Buffer.from(c));
  return r.view();
}

let lastScreen: XtermScreen | null = null;

function draw(
  view: TrainerLinesView,
  width: number,
  height: number,
  opts: { colors?: boolean; problemsOnly?: boolean; search?: string; scroll?: number } = {},
): string {
  const lines = trainerLogLines(
    { view, problemsOnly: opts.problemsOnly ?? false, search: opts.search ?? '', scroll: opts.scroll ?? 0 },
    width,
    height,
  );
  const screen = paintLines(lines, width, height, opts.colors ?? false);
  const f = screen.text();
  lastScreen = screen;
  expect(maxLineWidth(f)).toBeLessThanOrEqual(width);
  expect(f.split('\n').length).toBeLessThanOrEqual(height);
  return f;
}

describe('trainer view of the log pane', () => {
  const full = ringOf(stdoutLog);

  it('shows the last lines as printed, without ANSI codes or table lines, long ones cut with an ellipsis', () => {
    const f = draw(full, 70, 8);
    const rows = f.split('\n');
    expect(rows[0]).toMatch(/^─ Log ─+ trainer · all \d+-\d+\/\d+ · L: events ─$/);
    // The header is shown as its time of day: the tag, date and milliseconds would fill the pane.
    expect(rows.at(-1)).toMatch(/^16:40:12 RLTrainer INFO: Training completes! Total time elapsed .*…$/);
    expect([...rows.at(-1)!].length).toBe(70);
    expect(f).toContain('  [stats table: 160 keys]');
    expect(f).toContain('16:40:12 StatsLogger INFO: Epoch 1/10 Step 12/16 Train step 12/16');
    expect(f).not.toMatch(/[╒│├╘]/);
    expect(f).not.toContain('\x1b');
  });

  it('keeps the colour cue: ERROR lines and their traceback red, WARNING yellow, table summaries dim', () => {
    const view = ringOf(
      '\x1b[31m\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[31m20260525-15:12:05.214 RLTrainer ERROR: Training step failed\x1b[0m\n',
      'Traceback (most recent call last):\nRuntimeError: boom\n',
      '\x1b[33m(AReaL)\x1b[0m \x1b[33m20260525-15:12:06.000 Recover WARNING: Resume info not found\x1b[0m\n',
      '(AReaL) 20260525-15:12:07.000 RLTrainer INFO: fine\n',
      '╒═══╤═══╕\n│ a │ 1 │\n╘═══╧═══╛\n',
    );
    const f = draw(view, 60, 8, { colors: true });
    // The colours the terminal drew each row in (palette: 1 red, 3 yellow, 8 grey).
    const row = (needle: string) => lastScreen!.rowColors(f.split('\n').findIndex((l) => l.includes(needle)));
    expect(row('RLTrainer ERROR').has(1)).toBe(true);
    expect(row('RuntimeError: boom').has(1)).toBe(true);
    expect(row('Recover WARNING').has(3)).toBe(true);
    expect([...row('RLTrainer INFO: fine')].some((c) => c === 1 || c === 3)).toBe(false);
    expect(row('[stats table: 1 keys]').has(8)).toBe(true);
    // a: warnings and errors only.
    const problems = stripSgr(draw(view, 60, 8, { problemsOnly: true }));
    expect(problems).toContain('RuntimeError: boom');
    expect(problems).not.toContain('INFO: fine');
    expect(problems).not.toContain('stats table');
  });

  it('says where the lines start mid-log, at the top of what is held; scrolls; searches', () => {
    const r = new PaneLines();
    r.startMidLog(true);
    r.push(Buffer.from('ial line cut by the tail read\nfirst whole line\nsecond\n'));
    const f = draw(r.view(), 60, 6);
    expect(f.split('\n').slice(1, 4)).toEqual(['… earlier lines not loaded', 'first whole line', 'second']);
    // On a long log the note is reached by scrolling up.
    const long = new PaneLines();
    long.startMidLog(false);
    long.push(stdoutLog);
    expect(draw(long.view(), 60, 6)).not.toContain('earlier lines not loaded');
    expect(draw(long.view(), 60, 6, { scroll: 10_000 }).split('\n')[1]).toBe('… earlier lines not loaded');
    const found = draw(full, 80, 6, { search: 'watchdog' });
    expect(found).toContain('RuntimeError: [Rank 3] Watchdog caught collective operation timeout');
    expect(found.split('\n')[0]).toContain('/watchdog 1-1/1');
  });

  it('wide characters are cut by cells: no row is wider than the pane', () => {
    const view = ringOf(
      '(AReaL) 20260525-12:00:00.000 WebGymWorkflow INFO: 任务 完成 任务 完成 任务 完成 任务 完成 任务 完成 任务 完成 🙂🙂🙂\n',
    );
    const f = draw(view, 40, 3);
    const row = f.split('\n')[1];
    const cells = [...row].reduce((n, ch) => n + (/[\u4e00-\u9fff]|\p{Extended_Pictographic}/u.test(ch) ? 2 : 1), 0);
    expect(row.endsWith('…')).toBe(true);
    expect(cells).toBeLessThanOrEqual(40);
    expect(cells).toBeGreaterThanOrEqual(39);
  });
});

function stateWith(trainerLines: TrainerLinesView | undefined, leftovers?: LeftoverPhase): Partial<SessionState> {
  const run = { ...sampleRunView({ steps: 50, now: NOW }), trainerLines };
  return {
    run,
    selectedRunId: run.summary.id,
    targets: [
      {
        name: 'gpu-head',
        connection: { state: 'ready' },
        runs: [run.summary, { ...run.summary, id: 'crashed-run', state: 'failed' }],
      },
    ],
    ...(leftovers ? { leftovers } : {}),
  };
}

describe('the log pane in the cockpit', () => {
  it('dashboard: trainer lines by default; L switches to the event view and back; a filters the trainer view', async () => {
    const s = new StaticSession(stateWith(ringOf(stdoutLog)));
    const r = renderInk(
      <App session={s} initialScreen="dashboard" size={{ columns: 140, rows: 45 }} colors={false} clock={() => NOW} />,
    );
    try {
      const f = await waitForFrame(r, (x) => x.includes('─ Log'), 'the dashboard');
      expect(f).toContain('trainer · all');
      expect(f).toContain('[stats table: 160 keys]');
      expect(f).toContain('a log filter · / search · L trainer/event log');
      r.stdin.write('L');
      const events = await waitForFrame(r, (x) => x.includes('L: trainer'), 'the event view');
      expect(events).toContain('warnings+errors');
      expect(events).toContain('[EPISODE_TIMEOUT] episode');
      expect(events).not.toContain('[stats table');
      r.stdin.write('L');
      await waitForFrame(
        r,
        (x) => x.includes('trainer · all') && x.includes('[stats table: 160 keys]'),
        'back to trainer lines',
      );
      r.stdin.write('a');
      const problems = await waitForFrame(r, (x) => x.includes('trainer · warnings+errors'), 'the problems filter');
      expect(problems).toContain('RuntimeError: [Rank 3] Watchdog');
      expect(problems).not.toContain('[stats table');
    } finally {
      r.unmount();
    }
  });

  it('Log screen: the trainer lines at full width; without trainer lines (old sessions) the event view and no L', async () => {
    const s = new StaticSession(stateWith(ringOf(stdoutLog)));
    const r = renderInk(
      <App session={s} initialScreen="log" size={{ columns: 100, rows: 30 }} colors={false} clock={() => NOW} />,
    );
    try {
      const f = await waitForFrame(r, (x) => x.includes('Training completes!'), 'the log screen');
      expect(f).toContain('16:40:12 RLTrainer INFO: Training completes! Total time elapsed 1234.56.');
      expect(maxLineWidth(f)).toBeLessThanOrEqual(100);
    } finally {
      r.unmount();
    }
    const old = new StaticSession(stateWith(undefined));
    const o = renderInk(
      <App session={old} initialScreen="log" size={{ columns: 100, rows: 30 }} colors={false} clock={() => NOW} />,
    );
    try {
      const f = await waitForFrame(o, (x) => x.includes('─ Log'), 'the log screen');
      expect(f).toContain('warnings+errors');
      expect(f).not.toContain('L: trainer');
      o.stdin.write('L');
      o.stdin.write('a');
      await waitForFrame(o, (x) => x.includes('─ Log ') && x.includes(' all '), 'a toggles the event view');
    } finally {
      o.unmount();
    }
  });

  it('help lists L for the log pane and o on the Runs screen', async () => {
    const r = renderInk(
      <App
        session={new StaticSession(stateWith(undefined))}
        initialScreen="runs"
        size={{ columns: 140, rows: 60 }}
        colors={false}
        clock={() => NOW}
      />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('crashed-run'), 'the runs screen');
      r.stdin.write('?');
      const help = await waitForFrame(r, (x) => x.includes('Help — keys'), 'the help');
      expect(help).toMatch(/L\s+log pane: the trainer's own lines/);
      expect(help).toMatch(/runs\n(.*\n)*\s+o\s+selected run ended: leftover processes/);
    } finally {
      r.unmount();
    }
  });
});

describe('leftover check from the Runs screen', () => {
  it('o on an ended run opens the same check and confirmation; on a running run it does nothing', async () => {
    const found: LeftoverPhase = {
      phase: 'found',
      runId: 'crashed-run',
      list: [{ pid: 4242, tagged: true, otherRunId: null, user: 'me', cmd: 'python3 webgym/train.py', gpuMiB: 512 }],
    };
    const s: StaticSession = new StaticSession(stateWith(undefined), {
      checkLeftovers: async () => s.update({ leftovers: found }),
    });
    const r = renderInk(
      <App session={s} initialScreen="runs" size={{ columns: 120, rows: 30 }} colors={false} clock={() => NOW} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('crashed-run'), 'the runs list');
      r.stdin.write('o'); // the cursor is on the running sample run
      r.stdin.write('j');
      const sel = await waitForFrame(r, (x) => x.includes('▸ crashed-run'), 'the cursor on the failed run');
      expect(s.calls.filter((c) => c.action === 'checkLeftovers')).toEqual([]);
      expect(sel).toContain('crashed-run failed: o checks for leftover processes');
      r.stdin.write('o');
      const list = await waitForFrame(
        r,
        (x) => x.includes('─ Leftovers of crashed-run') && x.includes('Stop the 1 process tagged'),
        'the leftover list',
      );
      expect(list).toMatch(/PID\s+4242\s+python3 webgym\/train\.py\s+512 MiB GPU\s+\[tagged with this run\]/);
      expect(s.calls.filter((c) => c.action === 'checkLeftovers').map((c) => c.args)).toEqual([['crashed-run']]);
      r.stdin.write('y');
      await waitForFrame(r, () => s.calls.some((c) => c.action === 'stopLeftovers'), 'the stop action');
      expect(s.calls.find((c) => c.action === 'stopLeftovers')?.args).toEqual(['crashed-run']);
      s.update({ leftovers: { phase: 'stopped', runId: 'crashed-run', stopped: found.list, remaining: [] } });
      await waitForFrame(r, (x) => x.includes('nothing of this run is left'), 'the stop result');
      r.stdin.write(KEYS.enter);
      const back = await waitForFrame(r, (x) => !x.includes('─ Leftovers of'), 'the list closed');
      expect(back).toContain('─ Runs');
    } finally {
      r.unmount();
    }
  });
});

describe('compactHeader', () => {
  it('shows an AReaL header as its time of day, after any role or Ray prefix; other lines as they are', () => {
    expect(compactHeader('(AReaL) 20260525-16:40:12.885 RLTrainer INFO: done')).toBe('16:40:12 RLTrainer INFO: done');
    expect(compactHeader('[main]    (AReaL) 20260525-16:40:12.885 RLTrainer INFO: x')).toBe(
      '[main]    16:40:12 RLTrainer INFO: x',
    );
    expect(compactHeader('(RayRPCServer pid=1, ip=10.0.0.1) (AReaL) 20260525-16:40:12 W INFO: y')).toBe(
      '(RayRPCServer pid=1, ip=10.0.0.1) 16:40:12 W INFO: y',
    );
    expect(compactHeader('worker said (AReaL) 2026 not a header')).toBe('worker said (AReaL) 2026 not a header');
    expect(compactHeader('  File "x.py", line 1')).toBe('  File "x.py", line 1');
  });
});
