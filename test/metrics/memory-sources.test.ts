// Memory-Usage records by who logged them (trainer.md §4–5: workers log their own, with their
// source): the store keeps every writer's latest per phase, the controller's apart as before.
import { describe, expect, it } from 'vitest';
import type { MemoryEvent } from '../../src/trainer-log/index.js';
import { MetricsStore } from '../../src/metrics/index.js';

const mem = (phase: string, allocatedGB: number, source?: string): MemoryEvent => ({
  type: 'memory',
  phase,
  allocatedGB,
  reservedGB: 1,
  usedGB: 2,
  totalGB: 80,
  time: '2026-01-01T00:00:00.000',
  ...(source ? { source } : {}),
});

describe('MetricsStore memory by source', () => {
  it('keeps the latest per source and phase, in first-seen order; the controller also in memoryByPhase', () => {
    const s = new MetricsStore();
    for (const e of [
      mem('ppo update', 1),
      mem('after onload model', 2, 'actor'),
      mem('after model creation/loading', 3, 'rollout'),
      mem('ppo update', 4, 'main'),
      mem('after onload model', 5, 'actor'),
    ])
      s.ingest(e);
    const view = [...s.memoryBySource].map(([src, phases]) => [
      src,
      [...phases.values()].map((m) => [m.phase, m.allocatedGB]),
    ]);
    expect(view).toEqual([
      ['main', [['ppo update', 4]]],
      ['actor', [['after onload model', 5]]],
      ['rollout', [['after model creation/loading', 3]]],
    ]);
    expect([...s.memoryByPhase.values()].map((m) => m.allocatedGB)).toEqual([4]);
  });

  it('is bounded: 128 sources, 32 phases each (a known phase still updates)', () => {
    const s = new MetricsStore();
    for (let i = 0; i < 200; i++) s.ingest(mem('p', i, `w${i}`));
    for (let i = 0; i < 50; i++) s.ingest(mem(`phase ${i}`, i, 'w0'));
    s.ingest(mem('p', 999, 'w0'));
    expect(s.memoryBySource.size).toBe(128);
    expect(s.memoryBySource.get('w0')!.size).toBe(32);
    expect(s.memoryBySource.get('w0')!.get('p')!.allocatedGB).toBe(999);
  });
});
