// QA: a run whose job never started must not stay `submitted` (active) forever: that blocks every
// later launch of its experiment+trial ("already submitted: stop it first"), and even `stop` did not
// clear it. And a secret name the remote script would refuse is refused before anything is created.
import { describe, it, expect } from 'vitest';
import { deriveRunState, collectSecrets, isActive, type RunRecord } from '../../src/runs/index.js';

const never: RunRecord = {
  version: 1, runId: 'r', experiment: 'e', trial: 't', target: 'local', workdir: '/w', runDir: '/w/.awrl/runs/r',
  backend: 'direct', argv: ['python3'], secretNames: [], createdAt: '2026-01-01T00:00:00.000Z', attempts: [],
  chainJobIds: [], autoResume: 0, nodes: 1,
};

describe('a run that never started', () => {
  it('is failed, with the reason, when the start itself failed', () => {
    const d = deriveRunState({ ...never, startError: 'sbatch failed on h: invalid partition' }, {});
    expect(d).toEqual({ state: 'failed', detail: 'could not start: sbatch failed on h: invalid partition' });
    expect(isActive(d.state)).toBe(false);
  });
  it('is stopped once a stop was asked for (a launcher that died between writing run.json and starting)', () => {
    const d = deriveRunState({ ...never, stopRequestedAt: 'T' }, {});
    expect(d.state).toBe('stopped');
    expect(isActive(d.state)).toBe(false);
  });
  it('is still submitted while neither happened (the launcher is starting it)', () => {
    expect(deriveRunState(never, {}).state).toBe('submitted');
  });
});

describe('secret names', () => {
  it('a name the remote shell cannot export is refused locally, before the missing-value check', () => {
    expect(() => collectSecrets(['MY-TOKEN'], { 'MY-TOKEN': 'x' })).toThrow(/'MY-TOKEN' is not a usable environment variable name/);
    expect(() => collectSecrets(['1ABC'], {})).toThrow(/'1ABC' is not a usable environment variable name/);
    expect(collectSecrets(['CPU_CLUSTER_TOKEN'], { CPU_CLUSTER_TOKEN: 'v=1 2' })).toBe('CPU_CLUSTER_TOKEN=v=1 2\n');
  });
});
