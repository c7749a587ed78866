// QA: a run whose job never started must not stay `submitted` (active) forever: that blocks every
// later launch of its experiment+trial ("already submitted: stop it first"), and even `stop` did not
// clear it. And a secret name the remote script would refuse is refused before anything is created.
import { describe, it, expect } from 'vitest';
import {
  deriveRunState,
  collectSecrets,
  isActive,
  isTerminal,
  mayBeActive,
  parseListOutput,
  serializeRunRecord,
  resolveTarget,
  loadTargets,
  type RunRecord,
  type Target,
} from '../../src/runs/index.js';

const never: RunRecord = {
  version: 1,
  runId: 'r',
  experiment: 'e',
  trial: 't',
  target: 'local',
  workdir: '/w',
  runDir: '/w/.awrl/runs/r',
  backend: 'direct',
  argv: ['python3'],
  secretNames: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  attempts: [],
  chainJobIds: [],
  autoResume: 0,
  nodes: 1,
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
  it('is running when its job is alive although run.json recorded no start (the launcher was interrupted)', () => {
    expect(deriveRunState({ ...never, startError: 'did not write job.pid within 15 s' }, { alive: true }).state).toBe(
      'running',
    );
  });
  it('is still submitted while its start script runs (launch.pid alive)', () => {
    expect(deriveRunState(never, { launching: true }).state).toBe('submitted');
  });
  it('is an abandoned launch, not active, when no start script runs (died, or an old launcher was killed)', () => {
    for (const p of [{}, { launching: false }]) {
      const d = deriveRunState(never, p);
      expect(d).toMatchObject({ state: 'failed', detail: expect.stringMatching(/^abandoned launch/) });
      expect(isActive(d.state)).toBe(false);
    }
  });
});

describe('secret names', () => {
  it('a name the remote shell cannot export is refused locally, before the missing-value check', () => {
    expect(() => collectSecrets(['MY-TOKEN'], { 'MY-TOKEN': 'x' })).toThrow(
      /'MY-TOKEN' is not a usable environment variable name/,
    );
    expect(() => collectSecrets(['1ABC'], {})).toThrow(/'1ABC' is not a usable environment variable name/);
    expect(collectSecrets(['CPU_CLUSTER_TOKEN'], { CPU_CLUSTER_TOKEN: 'v=1 2' })).toBe('CPU_CLUSTER_TOKEN=v=1 2\n');
  });
});

describe('a Slurm run while squeue fails', () => {
  const slurmRun: RunRecord = {
    ...never,
    runId: 's1',
    backend: 'slurm',
    attempts: [{ n: 1, reason: 'launch', startedAt: 'x', jobId: '10' }],
  };
  const listed = (extra: string) =>
    parseListOutput(
      `@@run\ts1\n@@json\t${serializeRunRecord(slurmRun).trim()}\n@@alive\t0\n${extra}@@squeuefailed\t1\tslurm_load_jobs error: Unable to contact slurm controller\n`,
    );
  it('is unknown (neither active nor ended), not failed, and says why', () => {
    const [r] = listed('');
    expect(r).toMatchObject({
      state: 'unknown',
      detail: 'job 10: squeue failed (slurm_load_jobs error: Unable to contact slurm controller)',
    });
    expect(isTerminal(r.state)).toBe(false);
    expect(isActive(r.state)).toBe(false);
    expect(mayBeActive(r.state)).toBe(true);
  });
  it('an exit status the batch script wrote still decides', () => {
    expect(listed('@@sexit\t10\t0\n')[0]).toMatchObject({ state: 'finished' });
    expect(listed('@@sexit\t10\t1\n')[0]).toMatchObject({ state: 'failed' });
  });
  it('a direct run next to it is not affected', () => {
    expect(
      deriveRunState(
        { ...never, attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 7 }] },
        { alive: true, squeueFailed: 'x' },
      ).state,
    ).toBe('running');
  });
});

describe('a target workdir', () => {
  it('~ or a relative path on a remote target is refused with what to give instead', () => {
    for (const workdir of ['~/AsyncWebRL', 'AsyncWebRL', './x']) {
      expect(resolveTarget({ target: 'me@login', workdir }, {})).toBe(
        `workdir of target 'me@login': '${workdir}' must be an absolute path on the target (~ and relative paths are not expanded there): e.g. /home/<user>/AsyncWebRL`,
      );
    }
    const profiles = {
      h100: { ...(resolveTarget({ target: 'me@login', workdir: '/w' }, {}) as Target), name: 'h100', workdir: '~/w' },
    };
    expect(resolveTarget({ target: 'h100' }, profiles)).toMatch(
      /^workdir of target 'h100': '~\/w' must be an absolute path/,
    );
    // In the profile file: file:line:key, as for any other mistake there.
    expect(() =>
      loadTargets('targets:\n  h100:\n    host: me@login\n    workdir: ~/AsyncWebRL\n', 'targets.yaml'),
    ).toThrow(/^targets\.yaml:4: targets\.h100\.workdir: '~\/AsyncWebRL' must be an absolute path on the target/);
    expect(resolveTarget({ target: 'me@login', workdir: '/home/me/AsyncWebRL' }, {})).toMatchObject({
      workdir: '/home/me/AsyncWebRL',
    });
    expect(resolveTarget({ target: 'local', workdir: 'rel/dir' }, {})).toMatchObject({ workdir: 'rel/dir' });
  });
});
