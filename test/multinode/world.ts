// The multi-node test world: the simulator's checkout (its bin/ with the fake nvidia-smi and ray on
// every node's PATH) and an N-node cluster from test/harness/cluster.ts, plus the Slurm target words
// and a transport to the head. The head is reached by an ssh alias (awrl-cluster-head-PORT) that is
// NOT its hostname (n1), so a test can tell which of the two the code names.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { planFromConfig, launchRun, resolveTarget, type Target, type LaunchResult } from '../../src/runs/index.js';
import { startCluster, type Cluster } from '../harness/cluster.js';

export const ROOT = dirname(dirname(dirname(new URL(import.meta.url).pathname)));
export const TOKEN = `multinode-sentinel-${process.pid}-Zq9`;
export const ENV = { CPU_CLUSTER_TOKEN: TOKEN };

export interface World {
  cluster: Cluster;
  workdir: string;
  config: string;
  t: Transport;
  target(o?: { setupExtra?: string; backend?: 'slurm' | 'direct' }): Target;
  /** The same target as CLI words (`--target … --backend … --setup …`). */
  cliArgs(o?: { setupExtra?: string; backend?: 'slurm' | 'direct' }): string[];
  /** `--launch` with these overrides (plan -> launch, as the CLI does). */
  launch(overrides: string[], o?: { setupExtra?: string; backend?: 'slurm' | 'direct' }): Promise<LaunchResult>;
  stop(): Promise<void>;
}

/** The overrides of an N-node Ray run of the simulator: 8 GPUs a node, rollout on the first half. */
export function rayRunOverrides(nodes: number, trial: string): string[] {
  const half = (nodes * 8) / 2;
  return [
    `cluster.n_nodes=${nodes}`,
    'scheduler.type=ray',
    `allocation_mode='sglang[rollout]:d${half}+fsdp[actor]:d${half}'`,
    `++trial_name=${trial}`,
    'total_train_epochs=1',
  ];
}

export async function startWorld(nodes: number, simSpeed = 300): Promise<World> {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-multinode-'));
  const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
  writeWebgymTasks(sim.trainDataset, 256); // 8 steps per epoch at batch 32
  const cluster = await startCluster({ nodes, path: [join(workdir, 'bin')] });
  let t: Transport;
  try {
    t = await openTransport(cluster.headAlias, { sshConfigFile: cluster.sshConfigFile });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const target = (o: { setupExtra?: string; backend?: 'slurm' | 'direct' } = {}): Target => {
    const r = resolveTarget(
      {
        target: cluster.headAlias,
        sshConfigFile: cluster.sshConfigFile,
        workdir,
        backend: o.backend ?? 'slurm',
        setup: [
          `export PATH=${workdir}/bin:$PATH AWRL_SIM_SPEED=${simSpeed}`,
          ...(o.setupExtra ? [o.setupExtra] : []),
        ].join('; '),
        ...(o.backend === 'direct' ? {} : { partition: cluster.partition, gpusPerNode: 8, cpusPerTask: 1 }),
      },
      {},
    );
    if (typeof r === 'string') throw new Error(r);
    return r;
  };
  const setupOf = (o: { setupExtra?: string }) =>
    [`export PATH=${workdir}/bin:$PATH AWRL_SIM_SPEED=${simSpeed}`, ...(o.setupExtra ? [o.setupExtra] : [])].join('; ');
  const cliArgs = (o: { setupExtra?: string; backend?: 'slurm' | 'direct' } = {}) => [
    '--target',
    cluster.headAlias,
    '-F',
    cluster.sshConfigFile,
    '--workdir',
    workdir,
    '--backend',
    o.backend ?? 'slurm',
    ...(o.backend === 'direct'
      ? []
      : ['--partition', cluster.partition, '--gpus-per-node', '8', '--cpus-per-task', '1']),
    '--setup',
    setupOf(o),
  ];
  const launch = async (overrides: string[], o: { setupExtra?: string; backend?: 'slurm' | 'direct' } = {}) => {
    const planned = planFromConfig({
      target: target(o),
      fileName: sim.config!,
      text: readFileSync(sim.config!, 'utf8'),
      overrides,
      env: ENV,
    });
    if (!planned.ok) throw new Error(planned.messages.join('\n'));
    return launchRun(planned.plan, t, { env: ENV });
  };
  const stop = async () => {
    await t.close().catch(() => undefined);
    await cluster.stop();
    rmSync(workdir, { recursive: true, force: true });
  };
  return { cluster, workdir, config: sim.config!, t, target, cliArgs, launch, stop };
}
