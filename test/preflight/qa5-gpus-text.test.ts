// QA pass 5: the gpus check's text when a node could not be asked. On a box without nvidia-smi it
// said "gpu-head: nvidia-smi not found; allocation_mode needs 8 GPUs but 1 nodes like gpu-head
// have 0; allocation_mode needs 8": a count for a node nobody asked, and the need said twice.
import { describe, expect, it } from 'vitest';
import { evaluatePreflight, type CheckResult } from '../../src/preflight/index.js';
import { facts, gpuCsv, input, resolved } from './synth.js';

const gpus = (checks: CheckResult[]): CheckResult => checks.find((c) => c.id === 'gpus')!;
const NO_SMI = { ok: false, rc: 127, out: 'nvidia-smi: command not found' };

describe('gpus check text', () => {
  it('names the node it could not ask and what is needed, once, with no made-up count', () => {
    const c = gpus(
      evaluatePreflight(input({ facts: facts({ gpuNodes: [{ node: '', gpus: NO_SMI, apps: NO_SMI }] }) })),
    );
    expect(c.result).toBe('error');
    expect(c.seen).toBe('gpu-head: nvidia-smi not found; allocation_mode needs 8');
  });

  it('says the need once when the target has too few GPUs', () => {
    const four = facts({
      gpuNodes: [{ node: '', gpus: { ok: true, rc: 0, out: gpuCsv(4) }, apps: { ok: true, rc: 0, out: '' } }],
    });
    const c = gpus(evaluatePreflight(input({ facts: four })));
    expect(c.seen.match(/allocation_mode needs/g)).toHaveLength(1);
    expect(c.seen).toContain('allocation_mode needs 8 GPUs but the target has 4');
    expect(c.seen).toContain('gpu-head: 4 × ');
  });

  it('counts only the nodes that answered when one of several could not be asked', () => {
    const f = facts({
      gpuNodes: [
        { node: '', gpus: { ok: true, rc: 0, out: gpuCsv(8) }, apps: { ok: true, rc: 0, out: '' } },
        { node: 'gpu-2', gpus: NO_SMI, apps: NO_SMI },
      ],
    });
    const c = gpus(
      evaluatePreflight(input({ facts: f, resolved: resolved({ 'cluster.n_nodes': 2 }), allocationGpus: 16 })),
    );
    expect(c.result).toBe('error');
    expect(c.seen).toContain('gpu-2: nvidia-smi not found');
    expect(c.seen).not.toMatch(/nodes like/);
  });
});
