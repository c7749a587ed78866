// The RL health screen (6) as a terminal shows it: the cockpit's frame, painted into @xterm/headless
// at 80x24 and 200x50, over the simulator's log read by the parser (its figures, its missing keys).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { frame } from '../../src/ui/cockpit.js';
import { initialUiState } from '../../src/ui/ui-state.js';
import { emptyState } from '../../src/session/static-session.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { rlView } from '../../src/session/run-records.js';
import { MetricsStore } from '../../src/metrics/store.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { paintLines } from './helpers.js';
import { helpRows } from '../../src/ui/screens/help.js';
import { rlHealthDefinitions } from '../../src/ui/screens/rl-health.js';
import { lineText } from '../../src/ui/lines.js';
import type { XtermScreen } from './xterm-screen.js';
import { simWorkspace, CONFIG_LOCAL } from '../sim/helpers.js';

const NOW = Date.parse('2026-05-25T14:00:00');
const ws = simWorkspace(CONFIG_LOCAL, ['total_train_epochs=1', '+total_train_steps=4']);
afterAll(() => ws.cleanup());
let screen: XtermScreen | null = null;
afterEach(() => {
  screen?.dispose();
  screen = null;
});

async function shown(columns: number, rows: number): Promise<string[]> {
  if (ws.codes.length === 0) expect(await ws.run()).toBe(0);
  const store = new MetricsStore();
  for (const e of parseLogBytes(ws.read('main.log'))) store.ingest(e);
  const run = { ...sampleRunView({ steps: 3, now: NOW }), rl: rlView(store, { maxHeadOffpolicyness: 2 }) };
  const lines = frame(initialUiState('health'), { ...emptyState(), run }, { columns, rows }, NOW, { colors: true });
  screen = paintLines(lines, columns, rows - 1, true);
  await screen.settled();
  return screen.lines().map((l) => l.trimEnd());
}

describe('the RL health screen in a terminal', () => {
  it('at 80x24: grouped by question, each figure with its source key; a missing key says so', async () => {
    const rows = await shown(80, 24);
    expect(rows).toHaveLength(24);
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(80);
    expect(rows[0]).toMatch(/ 6 RL health /);
    expect(rows[1]).toBe('─ RL health ' + '─'.repeat(59) + ' step 4 ─');
    expect(rows[2]).toBe('no early warning (behaviour weight, entropy, failure length)');
    expect(rows[3]).toBe('Is it learning?');
    expect(rows[4]).toMatch(/^ {2}reward \(success rate\) {4}\d\.\d+ +rollout\/reward$/);
    expect(rows[5]).toMatch(/^ {2}reward by tier {11}easy \S+ · medium \S+… rollout\/…dium,hard\}\/reward$/);
    expect(rows[7]).toBe('What do trajectories look like?');
    // The simulator's workflow logs no screenshot comparison: not in the log, never 0.
    expect(rows[9]).toBe("  response tokens per step not in this run's log      rollout/…e_tokens_per_step");
    expect(rows[11]).toBe("  unchanged screenshots    not in this run's log      rollout/…d_screenshot_rate");
    expect(rows[13]).toBe('Is the policy drifting?');
  });

  it('at 120x40: the room the keys do not need goes to the values, every key whole', async () => {
    const rows = await shown(120, 40);
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(120);
    expect(rows[5]).toMatch(
      /^ {2}reward by tier {11}easy \S+ · medium \S+ · hard \S+ +rollout\/\{easy,medium,hard\}\/reward$/,
    );
    expect(rows.find((r) => r.includes('trajectories_{'))).toMatch(
      / staleness\/rollout\/trajectories_\{accepted,rejected\}$/,
    );
  });

  it('at 200x50: every figure with its definition beside its key, the five questions', async () => {
    const rows = await shown(200, 50);
    expect(rows.filter((r) => /^(Is|What|How)/.test(r))).toEqual([
      'Is it learning?',
      'What do trajectories look like?',
      'Is the policy drifting?',
      'How stale are the samples?',
      'Is the environment failing?',
    ]);
    expect(rows.find((r) => r.startsWith('  staleness max'))).toMatch(
      /^ {2}staleness max {14}\S+ \(budget 2\) +staleness\/gap\/offpolicy_max {2}largest policy-version lag of the tokens trained on, against rollout\.max_head_offpolicyness$/,
    );
    expect(rows.find((r) => r.startsWith('  behaviour weight max'))).toMatch(/\(cap: config not known here\)/);
  });
});

describe('? on the RL health screen', () => {
  it("lists every figure's definition and source after the keys; the help elsewhere does not", () => {
    const text = (rows: ReturnType<typeof helpRows>) => rows.map(lineText);
    const on = text(helpRows(80, true));
    const at = on.indexOf('RL health figures (6)');
    expect(at).toBeGreaterThan(0);
    expect(on.slice(at + 1, at + 3)).toEqual([
      "  reward (success rate): mean reward of the step's finished, not blocked",
      '    episodes (0 or 1 each: the success rate) (rollout/reward)',
    ]);
    expect(on.filter((l) => /^ {2}\S/.test(l)).length - on.slice(0, at).filter((l) => /^ {2}\S/.test(l)).length).toBe(
      rlHealthDefinitions().length,
    );
    expect(text(helpRows(80))).not.toContain('RL health figures (6)');
  });
});
