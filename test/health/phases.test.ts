import { describe, expect, it } from 'vitest';
import { HealthMonitor, PhaseTracker, evaluateHealth } from '../../src/health/index.js';
import { RunBuilder, iso, T0 } from './synth.js';

describe('phase inference from the record sequence', () => {
  it('follows rollout_wait → recompute_logp → compute_advantages → ppo_update → update_weights → save → rollout_wait', () => {
    const b = new RunBuilder().steps(2, { saveS: 3 });
    const seen: string[] = [];
    const tracker = new PhaseTracker();
    for (const e of b.events) {
      tracker.ingest(e);
      seen.push(tracker.phase?.phase ?? '-');
    }
    expect(seen.slice(0, 7)).toEqual([
      'rollout_wait', // start
      'recompute_logp', // batch
      'compute_advantages', // mem recompute logp
      'ppo_update', // mem compute advantages
      'update_weights', // mem ppo update
      'save', // save record
      'rollout_wait', // step done
    ]);
    expect(tracker.phase?.step).toBe(3);
  });

  it('measures each phase from record timestamps', () => {
    const b = new RunBuilder().steps(3, { rolloutS: 600, recomputeS: 40, advS: 12, ppoS: 33, updateS: 22, saveS: 5 });
    const t = new PhaseTracker();
    for (const e of b.events) t.ingest(e);
    expect(t.stats('rollout_wait')).toEqual({ medianS: 600, samples: 3 });
    expect(t.stats('recompute_logp').medianS).toBe(40);
    expect(t.stats('compute_advantages').medianS).toBe(12);
    expect(t.stats('ppo_update').medianS).toBe(33);
    expect(t.stats('update_weights').medianS).toBe(22);
    expect(t.stats('save').medianS).toBe(5);
  });

  it('without a save record, update_weights runs until the step record', () => {
    const b = new RunBuilder().steps(2, { updateS: 30 });
    const t = new PhaseTracker();
    for (const e of b.events) t.ingest(e);
    expect(t.stats('update_weights')).toEqual({ medianS: 30, samples: 2 });
    expect(t.stats('save').samples).toBe(0);
  });

  it('learns a ref logp phase when the run has a reference model', () => {
    const b = new RunBuilder()
      .rollout(500)
      .memory('recompute logp', 30)
      .memory('ref logp', 20)
      .memory('compute advantages', 10);
    b.memory('ppo update', 30);
    const t = new PhaseTracker();
    for (const e of b.events) t.ingest(e);
    expect(t.stats('ref_logp').samples).toBe(1);
    expect(t.phase?.phase).toBe('update_weights');
    // Second step: now known, recompute logp is followed by ref_logp.
    const b2 = new RunBuilder(b.t).rollout(10).memory('recompute logp', 5);
    for (const e of b2.events.slice(1)) t.ingest(e);
    expect(t.phase?.phase).toBe('ref_logp');
  });

  it('ignores memory records of phases that do not close a step phase', () => {
    const b = new RunBuilder().rollout(100).memory('after model creation/loading', 3);
    const t = new PhaseTracker();
    for (const e of b.events) t.ingest(e);
    expect(t.phase?.phase).toBe('recompute_logp');
  });

  it('a controller error stops the clock; a worker error does not', () => {
    const b = new RunBuilder().steps(3).rollout(500).memory('recompute logp', 30);
    const worker = [
      ...b.events,
      { type: 'error' as const, message: 'x', detail: '', kind: 'other' as const, time: iso(b.t), source: 'actor' },
    ];
    const m1 = new HealthMonitor();
    m1.ingestAll(worker);
    expect(m1.currentPhase()?.phase).toBe('compute_advantages');
    const main = [
      ...b.events,
      {
        type: 'error' as const,
        message: 'Training step failed',
        detail: '',
        kind: 'nccl-timeout' as const,
        time: iso(b.t),
      },
    ];
    const m2 = new HealthMonitor();
    m2.ingestAll(main);
    expect(m2.currentPhase()).toBeNull();
    expect(evaluateHealth(main, { now: b.after(5 * 3600) }).filter((a) => a.id.startsWith('health/stall'))).toEqual([]);
  });

  it('resume restarts in rollout_wait at the resume step, and the interrupted phase gives no sample', () => {
    const b = new RunBuilder().steps(6).rollout(500).memory('recompute logp', 30);
    const t = new PhaseTracker();
    for (const e of b.events) t.ingest(e);
    const before = t.stats('compute_advantages').samples;
    t.ingest({ type: 'resume', resumeStep: 7, time: iso(b.t + 7200_000) });
    expect(t.phase).toMatchObject({ phase: 'rollout_wait', step: 7, sinceMs: b.t + 7200_000 });
    t.ingest({ type: 'batch', waitS: 1, totalS: 1, episodes: 128, time: iso(b.t + 7300_000) });
    expect(t.stats('compute_advantages').samples).toBe(before);
  });

  it('finished ends tracking', () => {
    const b = new RunBuilder().steps(3).push({ type: 'finished', time: iso(T0 + 4 * 3600_000) });
    const m = new HealthMonitor();
    m.ingestAll(b.events);
    expect(m.currentPhase()).toBeNull();
    expect(m.evaluate({ now: iso(T0 + 100 * 3600_000) })).toEqual([]);
  });
});
