// Attaching to a run that is already hung: its whole log arrives at once, "now". RunAlerts counts
// the silence before we read it once told when the log was last written (logWrittenAt: the
// file's mtime as an age on the target's clock), so the hang shows at the first evaluation, with
// the silence in its detail, and its history entry is dated where the threshold was crossed on
// the log's clock. A log written recently gives no alert; a later write time changes nothing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isHangAlert, naiveMs, RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';

const RUN_A = parseLogBytes(
  readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url)),
);
// run-a hangs in step 7's rollout wait for 2 h before its NCCL crash: cut just before the error.
const HUNG = RUN_A.slice(
  0,
  RUN_A.findIndex((e) => e.type === 'error'),
);
const WALL = 1e12; // our clock when the backlog arrived: says nothing about the log's
const H = 3600_000;

function attach(): RunAlerts {
  const r = new RunAlerts(new MetricsStore());
  for (const e of HUNG) r.ingest(e, WALL);
  return r;
}

describe('attaching to a hung run', () => {
  it("without the log's write time, the backlog reads as fresh: no hang at the first evaluation", () => {
    expect(
      attach()
        .evaluate(WALL + 1000)
        .filter(isHangAlert),
    ).toEqual([]);
  });

  it('silent for 3 h: the stall is active at the first evaluation, says the silence, and is dated where it crossed 3x the median', () => {
    const r = attach();
    r.logWrittenAt(WALL - 3 * H);
    const hangs = r.evaluate(WALL).filter(isHangAlert);
    expect(hangs.map((a) => a.id)).toEqual(['health/stall/rollout_wait']);
    expect(hangs[0].detail).toMatch(/the log has been silent for 3 h$/);
    // The history: one entry, from the second the rules first call it a hang on the log's clock.
    const last = naiveMs(HUNG.at(-1)!.time!)!;
    let crossing = last;
    const probe = attach();
    while (!probe.health.evaluate({ now: crossing, utcOffsetMinutes: 0 }).some(isHangAlert)) crossing += 1000;
    expect(crossing - last).toBeLessThan(3 * H);
    const entries = r.history.entries().filter((e) => isHangAlert(e.alert));
    expect(entries).toHaveLength(1);
    expect(
      Math.abs(entries[0].firstSeenAt - Date.parse(new Date(crossing).toISOString().slice(0, 23))),
    ).toBeLessThanOrEqual(1000);
    expect(entries[0].active).toBe(true);
  });

  it('a log written 5 s ago (a healthy run read just now) gives no alert', () => {
    const r = attach();
    r.logWrittenAt(WALL - 5000);
    expect(r.evaluate(WALL)).toEqual([]);
  });

  it('a write time after the record arrived never makes it newer; before any record it is ignored', () => {
    const r = attach();
    r.logWrittenAt(WALL + 3 * H);
    expect(r.logNow(WALL + 1000)).toBe(naiveMs(HUNG.at(-1)!.time!)! + 1000);
    const empty = new RunAlerts(new MetricsStore());
    empty.logWrittenAt(WALL - 3 * H);
    expect(empty.logNow(WALL)).toBeNull();
    for (const e of HUNG) empty.ingest(e, WALL);
    expect(empty.evaluate(WALL).filter(isHangAlert)).toEqual([]);
  });

  it('records read after the silence was counted re-anchor the clock as usual (the run goes on)', () => {
    const r = attach();
    r.logWrittenAt(WALL - 3 * H);
    expect(r.evaluate(WALL).some(isHangAlert)).toBe(true);
    const next = RUN_A.slice(HUNG.length).find((e) => e.type === 'step')!;
    r.ingest(next, WALL + 1000);
    expect(r.evaluate(WALL + 2000).filter(isHangAlert)).toEqual([]);
  });
});
