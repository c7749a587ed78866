// Slurm checks against a real one-node Slurm (munged + slurmctld + slurmd started by the harness),
// reached over the real sshd: the partition is looked up with sinfo and the generated batch script is
// offered to `sbatch --test-only`, which must reject an impossible request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { evaluateConfig } from '../../src/config/index.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { resolveTarget, type TargetFlags } from '../../src/runs/index.js';
import { runPreflight, type CheckResult } from '../../src/preflight/index.js';
import { CONFIG, makeWorld, type World } from './world.js';

let sshd: SshdHandle;
let slurm: SlurmCluster;
let world: World;
let transport: Transport;

beforeAll(async () => {
  [sshd, slurm] = await Promise.all([startSshd(), startSlurm()]);
  world = makeWorld();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
}, 180_000);

afterAll(async () => {
  await transport?.close();
  await Promise.all([sshd?.stop(), slurm?.stop()]);
  world?.remove();
});

async function slurmChecks(flags: Partial<TargetFlags>): Promise<CheckResult[]> {
  const ev = evaluateConfig({
    fileName: CONFIG,
    text: readFileSync(CONFIG, 'utf8'),
    overrides: world.overrides,
    envNames: ['CPU_CLUSTER_TOKEN'],
  });
  const target = resolveTarget(
    {
      target: sshd.alias,
      sshConfigFile: sshd.sshConfigFile,
      workdir: world.workdir,
      setup: `${slurm.setupLine}; ${world.setup}`,
      backend: 'slurm',
      ...flags,
    },
    {},
  );
  if (typeof target === 'string') throw new Error(target);
  return runPreflight(transport, { evaluation: ev, target, envNames: ['CPU_CLUSTER_TOKEN'] });
}

const by = (checks: CheckResult[], id: string): CheckResult => checks.find((c) => c.id === id)!;

describe('preflight against a real Slurm', () => {
  it('finds the partition and sbatch --test-only rejects an impossible request', async () => {
    const checks = await slurmChecks({ partition: slurm.partition, nodes: 4, timeLimit: '2:00:00' });
    expect(by(checks, 'slurm-partition')).toMatchObject({ result: 'ok' });
    expect(by(checks, 'slurm-partition').seen).toMatch(new RegExp(`^partition '${slurm.partition}' is up, 1 nodes`));
    const submit = by(checks, 'slurm-submit');
    expect(submit.result).toBe('error');
    expect(submit.seen).toMatch(/^sbatch --test-only rejects the job: /);
    expect(submit.seen).not.toMatch(/rejects the job: exit \d+$/); // sbatch's own reason is quoted
    expect(by(checks, 'slurm-time')).toMatchObject({ result: 'ok' });
  });

  it('accepts a request the cluster can hold', async () => {
    // gpusPerNode 0: this test cluster has no GPUs (gres); everything else is the generated job.
    const checks = await slurmChecks({ partition: slurm.partition, nodes: 1, gpusPerNode: 0, timeLimit: '2:00:00' });
    const submit = by(checks, 'slurm-submit');
    expect(submit.result, submit.seen).toBe('ok');
    expect(submit.seen).toMatch(/^sbatch --test-only accepts the job: .*to start at/);
  });

  it('a partition that does not exist is an error naming the real ones', async () => {
    const checks = await slurmChecks({ partition: 'h100-nope' });
    expect(by(checks, 'slurm-partition')).toMatchObject({
      result: 'error',
      seen: `partition 'h100-nope' does not exist (partitions: ${slurm.partition}*)`,
    });
    expect(by(checks, 'slurm-submit').result).toBe('error');
  });

  it('a time limit shorter than recover.freq_secs plus a step is an error', async () => {
    const checks = await slurmChecks({ partition: slurm.partition, timeLimit: '15' });
    expect(by(checks, 'slurm-time')).toMatchObject({ result: 'error' });
    expect(by(checks, 'slurm-time').seen).toContain('the job is killed before its first recover checkpoint');
  });
});
