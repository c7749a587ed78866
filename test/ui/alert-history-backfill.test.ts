// Attaching in the morning to a run that went all night: the alert history is rebuilt from the
// backfilled records, with the log's own times and steps (not the cockpit's clock when it noticed),
// live alerts are timed the same way, errors clear once the run resumed and stepped, and one hang is
// one alert.
import { describe, expect, it } from 'vitest';
import type { RunViewContext } from '../../src/session/run-records.js';
import { recordsWithRules } from './records-with-rules.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { isHangAlert } from '../../src/health/index.js';
import { stepEvent } from '../harness/step-event.js';

const BASE = Date.parse('2026-05-25T00:00:00'); // local, like the cockpit reads the log's times
const iso = (s: number) => {
  const d = new Date(BASE + s * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.000`;
};
const local = (s: number) => BASE + s * 1000;

function step(g: number, sec: number, reward = 0.5): TrainerEvent {
  return stepEvent(g, 1000, iso(sec), { 'rollout/reward': reward });
}

const ctx = (state: RunViewContext['summary']['state'] = 'running'): RunViewContext => ({
  summary: { id: 'r', target: 't', state, step: null, totalSteps: null, reward: null, lastStepAt: null },
  connection: { state: 'ready' },
  connectionAt: 0,
  gpus: [],
  trainerLines: { lines: [], startsMidLog: false, dropped: 0 },
  pollingStoppedS: null,
});

const STEP_S = 120;
const at = (g: number) => 3 * 3600 + g * STEP_S; // step g at 03:00 + g×2 min

describe('alert history from a backfill', () => {
  it('a night of records read at 09:00 gives the fired/cleared pairs at the log times and steps', () => {
    const wall = Date.parse('2026-05-25T09:00:00');
    const r = recordsWithRules({ clock: () => wall });
    // Reward 0 from step 10 to step 13: the rule (3 zero steps) fires at 12, clears at 14.
    for (let g = 1; g <= 30; g++) r.ingest(step(g, at(g), g >= 10 && g <= 13 ? 0 : 0.5));
    const v = r.view(ctx());
    expect(v.alerts).toEqual([]);
    const e = v.alertHistory!.find((x) => x.key === 'reward-zero')!;
    expect(e).toMatchObject({
      active: false,
      fired: 1,
      firstStep: 12,
      lastStep: 13,
      firstSeenAt: local(at(12)),
      clearedAt: local(at(14)),
    });
  });

  it('a hang in the night (no step for an hour) is one entry, dated from when the threshold was crossed to the step that ended it', () => {
    const r = recordsWithRules({ clock: () => Date.parse('2026-05-25T09:00:00') });
    for (let g = 1; g <= 10; g++) r.ingest(step(g, at(g)));
    const resumed = at(10) + 3600;
    for (let g = 11; g <= 15; g++) r.ingest(step(g, resumed + (g - 11) * STEP_S));
    const hist = r.view(ctx()).alertHistory!;
    const hangs = hist.filter((x) => isHangAlert(x.alert));
    expect(hangs).toHaveLength(1);
    // 3 × the 120 s median after step 10, to within the dating precision (1 s).
    expect(Math.abs(hangs[0].firstSeenAt - local(at(10) + 3 * STEP_S))).toBeLessThanOrEqual(1000);
    expect(hangs[0]).toMatchObject({ active: false, clearedAt: local(resumed), firstStep: 10 });
  });

  it('live alerts are timed on the log clock too: the last record time plus the wall time since it arrived', () => {
    let wall = Date.parse('2030-01-01T12:00:00'); // the cockpit's clock says nothing about the log's
    const r = recordsWithRules({ clock: () => wall });
    for (let g = 1; g <= 10; g++) r.ingest(step(g, at(g)));
    wall += 10 * 60_000;
    const v = r.view(ctx());
    const hang = v.alertHistory!.find((x) => isHangAlert(x.alert))!;
    expect(hang.active).toBe(true);
    expect(Math.abs(hang.firstSeenAt - local(at(10) + 3 * STEP_S))).toBeLessThanOrEqual(1000);
  });

  it('over the cap, the history says how many entries were dropped', () => {
    const r = recordsWithRules({ clock: () => Date.parse('2026-05-25T09:00:00') });
    // 250 separate errors, each followed by a resume and a step: 250 fired/cleared entries.
    let sec = at(1);
    for (let i = 0; i < 250; i++) {
      r.ingest({ type: 'error', message: `crash ${i}`, detail: '', kind: 'other', time: iso((sec += 10)) });
      r.ingest({ type: 'resume', resumeStep: i + 1, time: iso((sec += 10)) });
      r.ingest(step(i + 1, (sec += 10)));
    }
    const v = r.view(ctx());
    expect(v.alertHistory).toHaveLength(200);
    expect(v.alertHistoryDropped).toBe(50);
  });
});
