// The eval panel, line for line at 80 and 120 columns, from the webgym-shaped fixture's rounds.
import { describe, expect, it } from 'vitest';
import { EvalHistory } from '../../src/metrics/eval-history.js';
import { evalLines, sparkline, type EvalPanelProps } from '../../src/ui/panels/eval.js';
import { lineText } from '../../src/ui/lines.js';
import { wandbLine } from '../../src/ui/screens/eval.js';
import { headerLines } from '../../src/ui/panels/header.js';
import { textCells } from '../../src/ui/text-width.js';
import { parseAll } from '../trainer-log/helpers.js';
import { evalLog } from '../trainer-log/eval-log.js';

function props(h: EvalHistory): EvalPanelProps {
  return {
    rounds: h.rounds,
    dropped: h.dropped,
    running: h.running,
    best: h.best,
    crash: h.crash,
    medianRoundS: h.medianRoundS(),
  };
}
const EMPTY_TITLE = '─ Eval (held-out test rollout) ' + '─'.repeat(49);
const text = (p: EvalPanelProps, w: number, h: number) => evalLines(p, w, h).map(lineText);

describe('eval panel', () => {
  const h = new EvalHistory();
  const events = parseAll(evalLog());
  for (const e of events) h.ingest(e);

  it('at 80 columns: the buckets without their n, the best round marked, the crash in place of a running round', () => {
    expect(text(props(h), 80, 12)).toEqual([
      '─ Eval (held-out test rollout) ────────────────────────────────────── 2 rounds ─',
      'best 46.4% [35.1%, 58.0%] of 69/74 at model step 1 (round 1) · median round 31 …',
      'eval thread crashed at 2026-05-25T13:30:00.000: TimeoutError: Timed out waiting…',
      'reward by round ▄▄',
      '  round model step reward% 95% interval easy   medium hard   failed   time',
      '*     1          1    46.4 [35.1, 58.0] —      —      —        5/74 37m00s',
      '      0          0    41.3 [31.0, 52.3] 60.0   38.5   20.0     2/80 25m29s',
    ]);
  });

  it('at 120 columns: each bucket with its n', () => {
    expect(text(props(h), 120, 12).slice(4)).toEqual([
      '  round  model step  reward%  95% interval  easy         medium       hard         failed    time',
      '*     1           1     46.4  [35.1, 58.0]  —            —            —              5/74  37m00s',
      '      0           0     41.3  [31.0, 52.3]  60.0 n30     38.5 n28     20.0 n20       2/80  25m29s',
    ]);
  });

  it('shows the running round, and never more lines than its height, none wider than its width', () => {
    const g = new EvalHistory();
    const progress = events.filter((e) => e.type === 'eval-progress');
    g.ingest(progress[0]);
    expect(text(props(g), 80, 12)).toEqual([
      EMPTY_TITLE,
      'no round completed yet',
      'round 0 running at model step 0: 8/80 completed, 37.5% so far, 0 failed, 4 min …',
      'reward by round ',
    ]);
    for (const e of events) g.ingest(e);
    for (const [w, ht] of [
      [80, 5],
      [40, 3],
    ])
      for (const l of text(props(g), w, ht)) expect(textCells(l)).toBeLessThanOrEqual(w);
    expect(text(props(g), 80, 5)).toHaveLength(4);
    expect(text(props(g), 80, 6).slice(4)).toEqual([
      '  round model step reward% 95% interval easy   medium hard   failed   time',
      '*     1          1    46.4 [35.1, 58.0] —      —      —        5/74 37m00s',
    ]);
  });

  it('says a run without rounds has none in its log, not zero', () => {
    expect(text(props(new EvalHistory()), 80, 10)).toEqual([
      EMPTY_TITLE,
      "no eval round in this run's log (test_rollout.enabled: true runs them)",
    ]);
  });

  it('draws a round of reward r at height round(7r), newest at the right, within the width', () => {
    expect(sparkline([0, 0.5, 1, Number.NaN, 0.14], 10)).toBe('▁▅█ ▂');
    expect(sparkline([0, 0.5, 1], 2)).toBe('▅█');
  });
});

describe('the wandb run on the Eval screen and in the dashboard header', () => {
  const url = 'https://wandb.ai/webgym/rl/runs/exp_trial0_2026_05_25_12_00_00';

  it('is the URL, the offline dir with its upload command, or a note that the log has none', () => {
    expect(lineText(wandbLine({ url, from: 'log' }))).toBe(`wandb ${url}`);
    expect(lineText(wandbLine({ url, from: 'config' }))).toBe(
      `wandb ${url} (from the config: wandb has not printed it yet)`,
    );
    expect(
      lineText(
        wandbLine({
          url: null,
          from: 'log',
          offline: { dir: '/fr/logs/u/e/t/wandb/offline-run-x', sync: 'wandb sync /fr/logs/u/e/t/wandb/offline-run-x' },
        }),
      ),
    ).toBe(
      'wandb offline: run data in /fr/logs/u/e/t/wandb/offline-run-x; upload it with: wandb sync /fr/logs/u/e/t/wandb/offline-run-x',
    );
    expect(lineText(wandbLine(undefined))).toBe("wandb: no run in this run's log (disabled, or not started yet)");
  });

  it('ends the header second line where the whole URL fits, and is left out where it does not', () => {
    const p = {
      runId: 'r-20260525-120000-abcd',
      target: 'h',
      connection: { state: 'ready' as const },
      runState: 'running' as const,
      figures: {
        step: 12,
        totalSteps: 640,
        epoch: 1,
        epochs: 10,
        startedAt: null,
        lastStepAt: null,
        etaS: null,
        stepTimeS: null,
        episodesPerS: null,
        trainTokensPerS: null,
        rolloutWaitS: null,
      },
      connectionAt: 0,
      now: 0,
      wandbUrl: url,
    };
    expect(lineText(headerLines({ ...p, width: 200 })[1])).toBe(
      `step 12/640  epoch 1/10  elapsed —  ETA —  last step — │ wandb ${url}`,
    );
    expect(lineText(headerLines({ ...p, width: 100 })[1])).toBe(
      'step 12/640  epoch 1/10  elapsed —  ETA —  last step —',
    );
  });
});
