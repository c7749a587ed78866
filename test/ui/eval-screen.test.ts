// The Eval screen (5) as a terminal shows it: the cockpit's whole frame, painted by the one painter
// into @xterm/headless, at 80x24 and 200x50 (the rounds of the webgym-shaped fixture, the wandb run).
import { afterEach, describe, expect, it } from 'vitest';
import { frame } from '../../src/ui/cockpit.js';
import { initialUiState } from '../../src/ui/ui-state.js';
import { emptyState } from '../../src/session/static-session.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { EvalHistory } from '../../src/metrics/eval-history.js';
import { paintLines } from './helpers.js';
import { parseAll } from '../trainer-log/helpers.js';
import { WANDB_URL, evalLog } from '../trainer-log/eval-log.js';
import type { XtermScreen } from './xterm-screen.js';

const NOW = Date.parse('2026-05-25T14:00:00');
let screen: XtermScreen | null = null;
afterEach(() => {
  screen?.dispose();
  screen = null;
});

function evalState(from: 'log' | 'config' = 'log') {
  const evals = new EvalHistory();
  for (const e of parseAll(evalLog())) evals.ingest(e);
  const run = { ...sampleRunView({ steps: 3, now: NOW }), evals, wandb: { url: WANDB_URL, from } };
  return { ...emptyState(), run };
}

describe('the Eval screen in a terminal', () => {
  it('at 80x24: tab bar, the rounds table without the buckets n, the wandb URL cut with …, the status line', async () => {
    const lines = frame(initialUiState('eval'), evalState(), { columns: 80, rows: 24 }, NOW, { colors: true });
    screen = paintLines(lines, 80, 23, true);
    await screen.settled();
    const rows = screen.lines();
    expect(rows[0]).toMatch(/^ 1 Runs {2}2 Dashboard {2}3 Config {2}4 Log {2}5 Eval /);
    expect(rows.slice(1, 9).map((r) => r.trimEnd())).toEqual([
      '─ Eval (held-out test rollout) ────────────────────────────────────── 2 rounds ─',
      'best 46.4% [35.1%, 58.0%] of 69/74 at model step 1 (round 1) · median round 31 …',
      'eval thread crashed at 2026-05-25T13:30:00.000: TimeoutError: Timed out waiting…',
      'reward by round ▄▄',
      '  round model step reward% 95% interval easy   medium hard   failed   time',
      '*     1          1    46.4 [35.1, 58.0] —      —      —        5/74 37m00s',
      '      0          0    41.3 [31.0, 52.3] 60.0   38.5   20.0     2/80 25m29s',
      'wandb https://wandb.ai/webgym/rl/runs/qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-…',
    ]);
    expect(rows).toHaveLength(24);
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(80);
  });

  it('at 200x50: each bucket with its n, and the whole wandb URL', async () => {
    const lines = frame(initialUiState('eval'), evalState(), { columns: 200, rows: 50 }, NOW, { colors: true });
    screen = paintLines(lines, 200, 49, true);
    await screen.settled();
    const rows = screen.lines().map((r) => r.trimEnd());
    expect(rows.slice(5, 9)).toEqual([
      '  round  model step  reward%  95% interval  easy         medium       hard         failed    time',
      '*     1           1     46.4  [35.1, 58.0]  —            —            —              5/74  37m00s',
      '      0           0     41.3  [31.0, 52.3]  60.0 n30     38.5 n28     20.0 n20       2/80  25m29s',
      `wandb ${WANDB_URL}`,
    ]);
  });

  it('the page computed from the config says so, at 200x50 (whole) and 80x24 (cut, the note past the edge)', async () => {
    const wide = frame(initialUiState('eval'), evalState('config'), { columns: 200, rows: 50 }, NOW, { colors: true });
    screen = paintLines(wide, 200, 49, true);
    await screen.settled();
    expect(screen.lines().map((r) => r.trimEnd())[8]).toBe(
      `wandb ${WANDB_URL} (from the config: wandb has not printed it yet)`,
    );
    screen.dispose();
    const narrow = frame(initialUiState('eval'), evalState('config'), { columns: 80, rows: 24 }, NOW, { colors: true });
    screen = paintLines(narrow, 80, 23, true);
    await screen.settled();
    expect(screen.lines()[8].trimEnd()).toBe(
      'wandb https://wandb.ai/webgym/rl/runs/qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-…',
    );
  });
});
