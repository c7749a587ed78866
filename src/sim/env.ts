// Simulator-only knobs, read from the environment so the trainer's CLI stays exactly the real one.
//   AWRL_SIM_SPEED         nominal trainer seconds per real second (default 150: ~4 s per step), or
//                          `instant` (no waiting at all; for tests)
//   AWRL_SIM_FAULT         faults, see faults.ts
//   AWRL_SIM_SEED          overrides the config's seed for the simulated numbers
//   AWRL_SIM_DATASET_SIZE  tasks in the training set (default 2048: 16 steps/epoch at batch 128)
//   AWRL_SIM_TRUTH         append ground-truth events (JSON lines) to this file
//   AWRL_SIM_WARM_START   1: start-up (~10 nominal minutes) and the first step pass quickly, so a demo
//                          shows its first step within a few seconds; later steps keep the pace
//   AWRL_SIM_HOME          the `sim init` directory (set by its shim): the fake nvidia-smi reads state there
// Pure.
import { parseFaults, type Fault } from './faults.js';

export interface SimEnv {
  speed: number | 'instant';
  faults: Fault[];
  seed: number | null;
  datasetSize: number;
  truthPath?: string;
  home?: string;
  warmStart: boolean;
}

export class SimEnvError extends Error {}

export function readSimEnv(env: Record<string, string | undefined>): SimEnv {
  const rawSpeed = env.AWRL_SIM_SPEED?.trim();
  let speed: number | 'instant' = 150;
  if (rawSpeed) {
    if (rawSpeed === 'instant' || rawSpeed === 'max') speed = 'instant';
    else {
      speed = Number(rawSpeed);
      if (!(speed > 0) || !Number.isFinite(speed))
        throw new SimEnvError(`AWRL_SIM_SPEED='${rawSpeed}' is not a positive number or 'instant'`);
    }
  }
  let faults: Fault[];
  try {
    faults = parseFaults(env.AWRL_SIM_FAULT);
  } catch (e) {
    throw new SimEnvError(`AWRL_SIM_FAULT: ${(e as Error).message}`);
  }
  const seedRaw = env.AWRL_SIM_SEED?.trim();
  const seed = seedRaw ? Number(seedRaw) : null;
  if (seed !== null && !Number.isInteger(seed)) throw new SimEnvError(`AWRL_SIM_SEED='${seedRaw}' is not an integer`);
  const dsRaw = env.AWRL_SIM_DATASET_SIZE?.trim();
  const datasetSize = dsRaw ? Number(dsRaw) : 2048;
  if (!(Number.isInteger(datasetSize) && datasetSize > 0))
    throw new SimEnvError(`AWRL_SIM_DATASET_SIZE='${dsRaw}' is not a positive integer`);
  const warmStart = env.AWRL_SIM_WARM_START === '1';
  return {
    speed,
    faults,
    seed,
    datasetSize,
    truthPath: env.AWRL_SIM_TRUTH || undefined,
    home: env.AWRL_SIM_HOME || undefined,
    warmStart,
  };
}
