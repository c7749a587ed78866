// The CLI's target words for the Slurm tests: a real sshd in front of a real one-node Slurm, the
// simulator as the trainer (on PATH from the workdir's bin/), CPU-only jobs of one CPU each.
import type { SshdHandle } from './sshd.js';
import type { SlurmCluster } from './slurm.js';

export interface SlurmSimTarget {
  sshd: SshdHandle;
  slurm: SlurmCluster;
  /** The simulated AsyncWebRL checkout (simInit's dir). */
  workdir: string;
  /** AWRL_SIM_SPEED: how many times faster than real time the simulator runs. */
  simSpeed: number;
  /** sbatch --time, in minutes (none: the partition's limit). */
  timeMinutes?: number;
  /** Shell run after Slurm's line and before the simulator's PATH (e.g. a stand-in squeue first on PATH). */
  setupBefore?: string;
}

/** `--target … --backend slurm … --setup …` for `--launch`, `runs`, `stop` and `follow`. */
export function slurmTargetArgs(t: SlurmSimTarget): string[] {
  const setup = [
    t.slurm.setupLine,
    ...(t.setupBefore ? [t.setupBefore] : []),
    `export PATH=${t.workdir}/bin:$PATH AWRL_SIM_SPEED=${t.simSpeed}`,
  ];
  return [
    '--target',
    t.sshd.alias,
    '-F',
    t.sshd.sshConfigFile,
    '--workdir',
    t.workdir,
    '--backend',
    'slurm',
    '--partition',
    t.slurm.partition,
    '--gpus-per-node',
    '0',
    '--cpus-per-task',
    '1',
    ...(t.timeMinutes !== undefined ? ['--time', String(t.timeMinutes)] : []),
    '--setup',
    setup.join('; '),
  ];
}
