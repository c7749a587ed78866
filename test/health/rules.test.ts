import { describe, expect, it } from 'vitest';
import { evaluateHealth, formatDuration, HealthMonitor, PHASES, toNaiveMs } from '../../src/health/index.js';
import { RunBuilder, iso, T0 } from './synth.js';

const ids = (alerts: { id: string }[]) => alerts.map((a) => a.id);

describe('per-phase stall', () => {
  it('names a stuck weight sync with its run time and median', () => {
    const b = new RunBuilder()
      .steps(5, { updateS: 22 })
      .rollout(600)
      .memory('recompute logp', 30)
      .memory('compute advantages', 15)
      .memory('ppo update', 30);
    const alerts = evaluateHealth(b.events, { now: b.after(41 * 60) });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      id: 'health/stall/update_weights',
      severity: 'warning',
      step: 6,
      time: iso(b.t),
    });
    expect(alerts[0].detail).toBe(
      'update_weights has run 41 min (median 22 s): likely a stuck weight sync; NCCL would time out after 2 h',
    );
  });

  it('waits for at least 10 minutes even when the median is short', () => {
    const b = new RunBuilder()
      .steps(5, { updateS: 22 })
      .rollout(600)
      .memory('recompute logp', 30)
      .memory('compute advantages', 15)
      .memory('ppo update', 30);
    expect(evaluateHealth(b.events, { now: b.after(9 * 60) })).toEqual([]);
    expect(ids(evaluateHealth(b.events, { now: b.after(10 * 60 + 1) }))).toEqual(['health/stall/update_weights']);
  });

  it('uses 3× the median when that is longer than 10 minutes', () => {
    const b = new RunBuilder().steps(4, { rolloutS: 600 });
    expect(evaluateHealth(b.events, { now: b.after(29 * 60) })).toEqual([]);
    const a = evaluateHealth(b.events, { now: b.after(31 * 60) });
    expect(ids(a)).toEqual(['health/stall/rollout_wait']);
    expect(a[0].detail).toMatch(/^rollout_wait has run 31 min \(median 10 min\): likely stuck rollout workers/);
  });

  it('needs two samples of the phase before judging it', () => {
    const one = new RunBuilder()
      .steps(1, { updateS: 20 })
      .rollout(600)
      .memory('recompute logp', 30)
      .memory('compute advantages', 15)
      .memory('ppo update', 30);
    expect(evaluateHealth(one.events, { now: one.after(3600) })).toEqual([]);
  });

  it.each(PHASES.filter((p) => p !== 'ref_logp'))('detects a stall in %s', (phase) => {
    const b = new RunBuilder().steps(4, { saveS: 4 });
    const order = ['rollout_wait', 'recompute_logp', 'compute_advantages', 'ppo_update', 'update_weights', 'save'];
    const stop = order.indexOf(phase);
    if (stop > 0) b.rollout(560);
    if (stop > 1) b.memory('recompute logp', 30);
    if (stop > 2) b.memory('compute advantages', 15);
    if (stop > 3) b.memory('ppo update', 30);
    if (stop > 4)
      b.push({
        type: 'save',
        time: iso((b.t += 22_000)),
        step: 4,
        what: 'HF + DCP checkpoints (periodic (1200s), step=4)',
      });
    const alerts = evaluateHealth(b.events, { now: b.after(3 * 3600) });
    expect(ids(alerts)).toEqual([`health/stall/${phase}`]);
    expect(alerts[0].detail.startsWith(`${phase} has run 3 h (median `)).toBe(true);
    expect(alerts[0].step).toBe(5);
  });

  it('a phase that ends in time raises nothing', () => {
    const b = new RunBuilder().steps(20);
    for (let s = 0; s < 600; s += 30) expect(evaluateHealth(b.events, { now: b.after(s) })).toEqual([]);
  });
});

describe('resume guard', () => {
  const crashed = () => new RunBuilder().steps(6, { rolloutS: 600 }); // ~11.6 min steps

  it('alerts when no step beyond the resume point comes within 3× the median step time', () => {
    const b = crashed();
    const resumeAt = b.t + 3 * 3600_000;
    const events = [...b.events, { type: 'resume' as const, resumeStep: 7, time: iso(resumeAt) }];
    const median = new HealthMonitor();
    median.ingestAll(events);
    const stepS = median.medianStepSeconds()!;
    expect(stepS).toBeCloseTo(697, 0);
    const early = evaluateHealth(events, { now: iso(resumeAt + 2.9 * stepS * 1000) });
    expect(ids(early)).not.toContain('health/resume/no-progress');
    const late = evaluateHealth(events, { now: iso(resumeAt + 3.1 * stepS * 1000) });
    expect(ids(late)).toContain('health/resume/no-progress');
    expect(late.find((a) => a.id === 'health/resume/no-progress')).toMatchObject({ step: 7, time: iso(resumeAt) });
  });

  it('a replayed step at or before the recover point is not progress; the resume step is', () => {
    const b = crashed();
    const r = new RunBuilder(b.t + 3600_000, { resumeStep: 5 }); // recovered from an older checkpoint
    r.steps(2, { rolloutS: 600 }); // logs steps 5 and 6 again
    const events = [...b.events, ...r.events];
    expect(ids(evaluateHealth(events, { now: r.after(60 * 60) }))).not.toContain('health/resume/no-progress');
    const stuck = [
      ...b.events,
      { type: 'resume' as const, resumeStep: 7, time: iso(b.t + 3600_000) },
      ...r.events.slice(1).filter((e) => e.type !== 'step'),
    ];
    expect(ids(evaluateHealth(stuck, { now: iso(b.t + 3 * 3600_000) }))).toContain('health/resume/no-progress');
  });

  it('alerts while every step since the resume exceeds rollout.max_head_offpolicyness; the first step within it ends it', () => {
    const b = crashed();
    const r = new RunBuilder(b.t + 3600_000, { resumeStep: 7 });
    r.steps(2, (i) => ({ stats: { 'staleness/gap/offpolicy_max': [4, 3][i] } }));
    const events = [...b.events, ...r.events];
    const a = evaluateHealth(events, { now: r.after(10), maxHeadOffpolicyness: 2 });
    expect(ids(a)).toEqual(['health/resume/staleness']);
    expect(a[0].step).toBe(8);
    expect(a[0].detail).toContain('every step since resuming at step 7');
    expect(a[0].detail).toContain('staleness/gap/offpolicy_max 3 at step 8 (worst 4 at step 7)');
    expect(evaluateHealth(events, { now: r.after(10), maxHeadOffpolicyness: 4 })).toEqual([]);
    expect(evaluateHealth(events, { now: r.after(10) })).toEqual([]); // budget unknown
    r.addStep({ stats: { 'staleness/gap/offpolicy_max': 1 } });
    expect(evaluateHealth([...b.events, ...r.events], { now: r.after(10), maxHeadOffpolicyness: 2 })).toEqual([]);
  });

  it('an attempt that was within budget once, or a run over budget before the crash, is steady staleness: not this rule', () => {
    const b = crashed();
    const within = new RunBuilder(b.t + 3600_000, { resumeStep: 7 }).steps(2, (i) => ({
      stats: { 'staleness/gap/offpolicy_max': [2, 4][i] },
    }));
    expect(evaluateHealth([...b.events, ...within.events], { now: within.after(10), maxHeadOffpolicyness: 2 })).toEqual(
      [],
    );
    const before = new RunBuilder().steps(3, { rolloutS: 600, stats: { 'staleness/gap/offpolicy_max': 3 } });
    const after = new RunBuilder(before.t + 3600_000, { resumeStep: 4 }).steps(1, {
      stats: { 'staleness/gap/offpolicy_max': 4 },
    });
    expect(
      evaluateHealth([...before.events, ...after.events], { now: after.after(10), maxHeadOffpolicyness: 2 }),
    ).toEqual([]);
  });

  it('a fresh start after a resume ends that resume: its steps 1 to 5 are not "no progress past step 7"', () => {
    const b = crashed();
    const resumeAt = b.t + 3600_000;
    const fresh = new RunBuilder(resumeAt + 600_000).steps(5, { rolloutS: 600 });
    const events = [...b.events, { type: 'resume' as const, resumeStep: 7, time: iso(resumeAt) }, ...fresh.events];
    expect(ids(evaluateHealth(events, { now: fresh.after(60) }))).toEqual([]);
  });

  it('staleness before any resume is not this rule', () => {
    const b = new RunBuilder().steps(3, { stats: { 'staleness/gap/offpolicy_max': 9 } });
    expect(evaluateHealth(b.events, { now: b.after(1), maxHeadOffpolicyness: 2 })).toEqual([]);
  });
});

describe('Slurm wall time', () => {
  // Steps of ~11 min; the last checkpoint was saved during step 4.
  const run = () =>
    new RunBuilder().steps(3, { rolloutS: 600 }).addStep({ rolloutS: 600, saveS: 3 }).steps(2, { rolloutS: 600 });

  it('alerts when the allocation ends before the next recover checkpoint plus one step', () => {
    const b = run();
    const saveMs = Date.parse((b.events.find((e) => e.type === 'save')!.time as string) + 'Z');
    const due = saveMs + 3600_000; // recover.freq_secs = 3600
    const now = b.t;
    const stepMs = 697_000;
    const endOk = iso(due + stepMs + 60_000);
    const endTight = iso(due + stepMs - 60_000);
    expect(evaluateHealth(b.events, { now: iso(now), recoverFreqSecs: 3600, slurmEndTime: endOk })).toEqual([]);
    const a = evaluateHealth(b.events, { now: iso(now), recoverFreqSecs: 3600, slurmEndTime: endTight });
    expect(ids(a)).toEqual(['health/slurm/walltime']);
    expect(a[0].detail).toContain('the steps after step 4 would be lost');
    expect(a[0].severity).toBe('warning');
  });

  it('is an error when not even one step fits', () => {
    const b = run();
    const a = evaluateHealth(b.events, { now: iso(b.t), recoverFreqSecs: 3600, slurmEndTime: iso(b.t + 120_000) });
    expect(a[0]).toMatchObject({ id: 'health/slurm/walltime', severity: 'error' });
    expect(a[0].detail).toMatch(/^the allocation ends in 2 min;/);
  });

  it('says nothing without recover.freq_secs, after the end, or once finished', () => {
    const b = run();
    expect(evaluateHealth(b.events, { now: iso(b.t), slurmEndTime: iso(b.t + 60_000) })).toEqual([]);
    expect(evaluateHealth(b.events, { now: iso(b.t), recoverFreqSecs: 3600, slurmEndTime: iso(b.t - 60_000) })).toEqual(
      [],
    );
    const done = [...b.events, { type: 'finished' as const, time: iso(b.t) }];
    expect(evaluateHealth(done, { now: iso(b.t), recoverFreqSecs: 3600, slurmEndTime: iso(b.t + 60_000) })).toEqual([]);
  });
});

describe('slow drift of timeperf phases', () => {
  const withUpdate = (n: number, f: (i: number) => number) =>
    new RunBuilder().steps(n, (i) => ({
      stats: { 'timeperf/update_weights': f(i), 'timeperf/clear_batches': i < 20 ? 0.5 : 2 },
    }));

  it('alerts when the last 20 steps take twice the first 20', () => {
    const b = withUpdate(60, (i) => (i < 20 ? 17 : i < 40 ? 30 : 61));
    const a = evaluateHealth(b.events, { now: b.after(1) });
    expect(ids(a)).toEqual(['health/drift/update_weights']);
    expect(a[0].detail).toBe(
      'timeperf/update_weights: median 61 s over the last 20 steps vs 17 s over the first 20 (3.6×)',
    );
    expect(a[0].step).toBe(60);
  });

  it('needs 40 distinct steps, a 2× ratio and a real cost', () => {
    expect(evaluateHealth(withUpdate(39, (i) => (i < 20 ? 17 : 61)).events, { now: iso(T0) })).toEqual([]);
    expect(evaluateHealth(withUpdate(40, (i) => (i < 20 ? 17 : 33)).events, { now: iso(T0) })).toEqual([]);
    // clear_batches went 0.5 s → 2 s (4×) but costs 1.5 s: not reported.
    expect(ids(evaluateHealth(withUpdate(40, (i) => (i < 20 ? 17 : 34)).events, { now: iso(T0) }))).toEqual([
      'health/drift/update_weights',
    ]);
  });

  it('replayed steps after a resume replace the old values', () => {
    const b = withUpdate(45, (i) => (i < 20 ? 17 : 61));
    // Resume from step 30: steps 30..45 are logged again, fast this time.
    const r = new RunBuilder(b.t + 60_000, { resumeStep: 30 }).steps(16, { stats: { 'timeperf/update_weights': 18 } });
    const a = evaluateHealth([...b.events, ...r.events], { now: r.after(1) });
    expect(ids(a)).toEqual([]); // recent 20 = steps 26..45: 4 slow + 16 fast
  });
});

describe('time handling', () => {
  it('reads a Date now on the trainer clock with the given UTC offset', () => {
    const instant = new Date('2026-05-25T10:00:00Z');
    expect(toNaiveMs(instant, 120)).toBe(Date.UTC(2026, 4, 25, 12, 0, 0));
    expect(toNaiveMs('2026-05-25T12:00:00+02:00', 0)).toBe(Date.UTC(2026, 4, 25, 10, 0, 0));
    expect(toNaiveMs('2026-05-25T12:00:00')).toBe(Date.UTC(2026, 4, 25, 12, 0, 0));
    expect(toNaiveMs('yesterday')).toBeNull();
  });

  it('a Date now works end to end', () => {
    const b = new RunBuilder().steps(4, { rolloutS: 600 });
    const now = new Date(b.t + 31 * 60_000); // naive ms read as UTC, offset 0
    expect(ids(evaluateHealth(b.events, { now, utcOffsetMinutes: 0 }))).toEqual(['health/stall/rollout_wait']);
    expect(() => evaluateHealth(b.events, { now: 'soon' })).toThrow(/not a time/);
  });

  it('formats durations for people', () => {
    expect([formatDuration(22.4), formatDuration(41 * 60), formatDuration(7200), formatDuration(7500)]).toEqual([
      '22 s',
      '41 min',
      '2 h',
      '2 h 5 min',
    ]);
  });
});

describe('bounded memory for a run of days', () => {
  it('keeps medians on a recent window: a run that sped up is judged by its recent speed', () => {
    const m = new HealthMonitor();
    const b = new RunBuilder().steps(300, { rolloutS: 3000 }).steps(300, { rolloutS: 300 });
    m.ingestAll(b.events);
    expect(m.medianStepSeconds()).toBeCloseTo(397, 0);
    // 3× of 300 s = 15 min: a 20 min wait is a stall now, though the old median was 50 min.
    expect(ids(m.evaluate({ now: b.after(20 * 60) }))).toEqual(['health/stall/rollout_wait']);
  });
});

describe('bounded state over a very long run', () => {
  it('keeps fixed-size windows after 20,000 steps with timeperf keys', () => {
    const m = new HealthMonitor();
    let t = T0;
    const stats = (i: number) => ({
      'timeperf/update_weights': 17 + (i % 7),
      'timeperf/rollout': 600,
      'staleness/gap/offpolicy_max': 1,
    });
    m.ingest({ type: 'resume', resumeStep: 1, time: iso(t) });
    for (let i = 1; i <= 20_000; i++) {
      t += 60_000;
      m.ingest({ type: 'batch', waitS: 50, totalS: 54, episodes: 128, time: iso(t) });
      t += 1000;
      m.ingest({
        type: 'step',
        epoch: 1,
        epochs: 1,
        step: i,
        stepsPerEpoch: 20_000,
        globalStep: i,
        totalSteps: 20_000,
        time: iso(t),
        stats: stats(i),
      });
    }
    const inner = m as unknown as {
      stepGaps: { size: number };
      phases: { durations: Map<string, { size: number }> };
      drift: { keys: Map<string, { first: unknown[]; recent: unknown[] }> };
    };
    expect(inner.stepGaps.size).toBe(256);
    for (const w of inner.phases.durations.values()) expect(w.size).toBeLessThanOrEqual(256);
    for (const w of inner.drift.keys.values()) {
      expect(w.first.length).toBe(20);
      expect(w.recent.length).toBe(20);
    }
    expect(m.medianStepSeconds()).toBe(61);
  });
});
