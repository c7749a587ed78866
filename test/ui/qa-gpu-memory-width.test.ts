// The GPU panel's trainer memory rows at the width a 120-column dashboard gives the panel (60): the
// phase column stayed 24 wide, so every row was cut at its end ("used 64.9/7…"), and the one figure a
// person checks against the limit, the total, was never readable. The phase column gives way first.
import { describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/lines.js';
import { memoryLines } from '../../src/ui/panels/gpu.js';

const fig = (phase: string, usedGB: number) => ({
  phase,
  allocatedGB: 18.51,
  reservedGB: 61.81,
  usedGB,
  totalGB: 79.11,
  time: '2026-12-01T10:00:00.000',
  source: 'main',
});

describe('trainer memory rows in a narrow GPU panel', () => {
  it('at 60 columns each row ends with the whole used/total figure; at 72 the layout is unchanged', () => {
    const memory = [fig('recompute logp', 64.92), fig('compute advantages', 65.61), fig('ppo update', 74.1)];
    expect(memoryLines(memory, 60).map(lineText)).toEqual([
      'trainer (DP head 0):',
      'recompute logp      alloc 18.5  resv 61.8  used 64.9/79.1 GB',
      'compute advantages  alloc 18.5  resv 61.8  used 65.6/79.1 GB',
      'ppo update          alloc 18.5  resv 61.8  used 74.1/79.1 GB',
    ]);
    expect(lineText(memoryLines(memory, 72)[3])).toBe(
      'ppo update               alloc 18.5  resv 61.8  used 74.1/79.1 GB',
    );
  });
});
