// Exact per-panel line tables (as lazygit's presentation tests): each panel's lines painted on a
// terminal (@xterm/headless) and read back row by row, whole. A fragment check (toContain) lets a
// cut, a shifted column or a stale cell through; these do not.
import { describe, expect, it } from 'vitest';
import { tabBar } from '../../src/ui/chrome.js';
import type { Line } from '../../src/ui/lines.js';
import type { Alert, ConnectionState } from '../../src/session/types.js';
import { alertsLines } from '../../src/ui/panels/alerts.js';
import { alertHistoryLines } from '../../src/ui/screens/alert-history.js';
import { headerLines } from '../../src/ui/panels/header.js';
import { dashboardHeader } from '../../src/ui/screens/dashboard.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { logLines } from '../../src/ui/panels/log.js';
import { leftoverLines } from '../../src/ui/screens/leftovers.js';
import { preflightLines } from '../../src/ui/screens/preflight.js';
import { runsLines } from '../../src/ui/screens/runs.js';
import { paintLines } from './helpers.js';
import { FIX } from './panel-fixtures.js';

function rows(lines: Line[], width: number, height: number): string[] {
  const s = paintLines(lines, width, height);
  const out = s.lines().slice(0, height);
  s.dispose();
  return out;
}

describe('panels as the terminal shows them', () => {
  it('Alerts (60×9): errors first, the exception line as detail, cleared ones below', () => {
    expect(rows(alertsLines(FIX.alerts, 60, 9, FIX.history), 60, 9)).toEqual([
      '─ Alerts ─────────────────────────────────── 2 · 1 cleared ─',
      '✖ cuda-oom: CUDA out of memory (step 41)',
      '  RuntimeError: CUDA out of memory. Tried to allocate 2.00 …',
      '  → lower max_tokens_per_mb or add GPUs',
      '▲ staleness near the budget (step 40)',
      '  offpolicy max 2 of 2',
      '  → raise max_head_offpolicyness',
      '✓ nan grad norm (step 20)',
      '  cleared 11:30, fired 2× since 11:00',
    ]);
  });
  it('Alerts (60×7) of a run that died in a hang: the hang ended with the run, never "cleared"', () => {
    expect(rows(alertsLines([], 60, 7, FIX.diedHistory), 60, 7)).toEqual([
      '─ Alerts ──────────────── 1 cleared · 1 ended with the run ─',
      'no active alerts',
      '– Stalled waiting for the rollout batch (rollout_wait) (ste…',
      '  ended with the run 11:50, fired 1× since 11:20',
      '✓ nan grad norm (step 20)',
      '  cleared 11:30, fired 2× since 11:00',
      '',
    ]);
  });
  it('Alert history (90×10) of a run that died in a hang: ended with the run, in the title and the entry', () => {
    expect(rows(alertHistoryLines(FIX.diedHistory, 90, 10, 0), 90, 10)).toEqual([
      '─ Alert history ──────────────────────────── 0 active · 1 cleared · 1 ended with the run ─',
      '– Stalled waiting for the rollout batch (rollout_wait)',
      '  05-25 11:20–11:50 (step 42), ended with the run',
      '  rollout_wait has run 40 min (median 9 min); the log has been silent for 40 min',
      '  → check the rollout workers',
      '✓ nan grad norm',
      '  last 05-25 11:26–11:30 (steps 18–20); fired 2× since 05-25 11:00 (step 10)',
      '  ppo_actor/update/grad_norm is nan',
      'Esc or q closes · e episodes at step 42',
      '',
    ]);
  });
  it('Header (100×2) of a run as its next step is due, late, then stalled: the ETA never holds an old figure', () => {
    // Step 10/100 at 60 s a step: 90 steps left, ETA 1 h 30 min at the last step.
    const figures = {
      step: 10,
      totalSteps: 100,
      epoch: 1,
      epochs: 1,
      startedAt: FIX.now - 3_600_000,
      lastStepAt: FIX.now,
      etaS: 5400,
      stepTimeS: 60,
      episodesPerS: null,
      trainTokensPerS: null,
      rolloutWaitS: null,
    };
    const header = (afterS: number, hung = false, connection: ConnectionState = { state: 'ready' }) =>
      rows(
        headerLines({
          runId: 'trial-20260525-110000-ab12',
          target: 'gpu-head',
          connection,
          connectionAt: FIX.now,
          runState: 'running',
          figures,
          now: FIX.now + afterS * 1000,
          width: 100,
          hung,
        }),
        100,
        2,
      );
    // Counting down while the next step is not yet due.
    expect(header(30)).toEqual([
      'trial-20260525-110000-ab12 on gpu-head │ connected │ running',
      'step 10/100  epoch 1/1  elapsed 1 h 00 min  ETA 1 h 29 min  last step 30 s ago',
    ]);
    // The step is late: what is left after it is a lower bound, said as one.
    expect(header(150)[1]).toBe('step 10/100  epoch 1/1  elapsed 1 h 02 min  ETA ≥ 1 h 29 min  last step 2 min ago');
    // Late by many step times, before the stall rules call it a hang: still only a lower bound.
    expect(header(500)[1]).toBe('step 10/100  epoch 1/1  elapsed 1 h 08 min  ETA ≥ 1 h 29 min  last step 8 min ago');
    // A hang alert stands (the Alerts panel's judgement): stalled, the end unknown, however long it lasts.
    expect(header(7200, true)).toEqual([
      'trial-20260525-110000-ab12 on gpu-head │ connected │ running',
      'step 10/100  epoch 1/1  elapsed 3 h 00 min  ETA — (stalled 2 h 00 min)  last step 2 h 00 min ago',
    ]);
    // The log cannot be read: the silence is not the trainer's, so no "stalled"; the lower bound stays.
    const lost: ConnectionState = { state: 'reconnecting', attempt: 2, nextInMs: 5000, lastError: 'ECONNRESET' };
    expect(header(7200, true, lost)[1]).toBe(
      'step 10/100  epoch 1/1  elapsed 3 h 00 min  ETA ≥ 1 h 29 min  last step 2 h 00 min ago',
    );
  });
  it('the dashboard header says stalled exactly when a hang alert stands (the Alerts panel agrees)', () => {
    const base = sampleRunView({ steps: 50, now: FIX.now - 3_600_000 });
    const run = { ...base, summary: { ...base.summary, state: 'running' as const } };
    const hang: Alert = {
      id: 'health/stall/rollout_wait',
      severity: 'warning',
      title: 'Stalled waiting for the rollout batch (rollout_wait)',
      detail: '',
      advice: '',
    };
    const eta = (alerts: Alert[]) =>
      /ETA [^ ]+( [^ ]+)*?(?=  last step)/.exec(
        rows(dashboardHeader({ ...run, alerts }, FIX.now, 120), 120, 2)[1],
      )?.[0];
    expect(eta([])).toMatch(/^ETA ≥ \d/);
    expect(eta([hang])).toBe('ETA — (stalled 1 h 00 min)');
  });
  it('Runs (90×8): hints from the binding table, the cursor on the second run', () => {
    expect(rows(runsLines(FIX.targets, 1, FIX.now, 90, 8), 90, 8)).toEqual([
      '─ Runs ──────────────────── Enter open · n new launch · s stop · o leftovers · r refresh ─',
      '  run                                    state     step        reward    last step',
      'gpu-head  connected  2 runs',
      '  trial-20260525-110000-ab12             running   41/640      0.4567    12 s ago',
      '▸ trial-20260524-090000-ce92             failed    640/640     0.61      1 d 0 h ago',
      '',
      '',
      '',
    ]);
  });
  it("Runs (80×7, 120×7, 80×5): the sentinel on its run's row where it fits, else on a line under it", () => {
    const [t] = FIX.targets;
    const withSentinels = [
      {
        ...t,
        runs: [
          { ...t.runs[0], sentinel: { state: 'running' as const, text: 'sentinel ok, 12 s ago' } },
          {
            ...t.runs[1],
            sentinel: {
              state: 'silent' as const,
              text: 'sentinel silent since 2026-05-25T10:58:00Z (no heartbeat for 120 s)',
            },
          },
        ],
      },
    ];
    expect(rows(runsLines(withSentinels, 1, FIX.now, 80, 7), 80, 7)).toEqual([
      '─ Runs ────────── Enter open · n new launch · s stop · o leftovers · r refresh ─',
      '  run                          state     step        reward    last step',
      'gpu-head  connected  2 runs',
      '  trial-20260525-110000-ab12   running   41/640      0.4567    12 s ago',
      '    sentinel ok, 12 s ago',
      '▸ trial-20260524-090000-ce92   failed    640/640     0.61      1 d 0 h ago',
      '    sentinel silent since 2026-05-25T10:58:00Z (no heartbeat for 120 s)',
    ]);
    // Short of room, the list scrolls so that the cursor's run and its sentinel line both show.
    expect(rows(runsLines(withSentinels, 1, FIX.now, 80, 5), 80, 5).slice(3)).toEqual([
      '▸ trial-20260524-090000-ce92   failed    640/640     0.61      1 d 0 h ago',
      '    sentinel silent since 2026-05-25T10:58:00Z (no heartbeat for 120 s)',
    ]);
    const wide = rows(runsLines(withSentinels, 1, FIX.now, 120, 7), 120, 7);
    expect(wide[3]).toBe(
      '  trial-20260525-110000-ab12               running   41/640      0.4567    12 s ago  sentinel ok, 12 s ago',
    );
    expect(wide[5]).toBe('    sentinel silent since 2026-05-25T10:58:00Z (no heartbeat for 120 s)');
  });
  it('Leftovers (80×9): tagged ones offered, untagged ones only listed', () => {
    expect(rows(leftoverLines(FIX.leftovers, 'r-1', 80), 80, 9)).toEqual([
      '─ Leftovers of r-1 ─ processes still tagged with the run or holding GPU memory ─',
      'PID    4242  python3 -m areal.launcher.l…  61234 MiB GPU  [tagged with this run]',
      'PID     777  python3 serve.py  2048 MiB GPU  [untagged: not stopped from here]',
      'Stop the 1 process tagged with this run (SIGTERM, then SIGKILL)? y/n',
      'untagged processes are only listed: they are never stopped from here',
      '',
      '',
      '',
      '',
    ]);
  });
  it('Pre-flight (70×9): errors, then warnings, passing ones folded, one summary', () => {
    expect(rows(preflightLines(FIX.preflight, [], 70), 70, 9)).toEqual([
      'ERROR gpus: 2 of 8 GPUs busy (PID 4242)',
      '      → stop PID 4242 or wait',
      'WARN  disk: disk 91% full',
      '      → free some space',
      'ok python, model',
      'pre-flight on gpu-head: 1 error, 1 warning: launching is blocked',
      '',
      '',
      '',
    ]);
  });
  it('Log, event view (70×6): a long line cut with …', () => {
    expect(rows(logLines({ lines: FIX.log, showAll: true, search: '', scroll: 0 }, 70, 6), 70, 6)).toEqual([
      '─ Log ──────────────────────────────────────────────────── all 1-3/3 ─',
      '11:59:00 Epoch 1/10 Step 40/64 Train step 40/640 done.',
      '11:59:10 [rollout] [EPISODE_TIMEOUT] episode 7 exceeded 600 s',
      '11:59:30 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB…',
      '',
      '',
    ]);
  });
  it('tab bar (80)', () => {
    expect(rows([tabBar('dashboard', 80)], 80, 1)).toEqual([
      ' 1 Runs  2 Dashboard  3 Config  4 Log  5 Eval  6 RL health  7 Episodes    ? help',
    ]);
  });
});
