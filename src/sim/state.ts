// The live state the fake nvidia-smi reads: which phase the simulated trainer is in, on what cluster.
// Written atomically (tmp + rename) on every phase change. Shape shared by trainer and nvidia-smi.
import { renameSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirs } from './make-dirs.js';

export type StatePhase =
  | 'starting'
  | 'rollout_wait'
  | 'recompute_logp'
  | 'ref_logp'
  | 'compute_advantages'
  | 'ppo_update'
  | 'update_weights'
  | 'save'
  | 'finished'
  | 'crashed'
  | 'stopped';

export interface SimState {
  pid: number;
  phase: StatePhase;
  /** 1-based global step in progress. */
  step: number;
  updatedMs: number;
  nNodes: number;
  gpusPerNode: number;
  rolloutGpus: number;
  actorGpus: number;
  seed: number;
  /** Hostname of the trainer's machine: its PID means something there only (multi-node GPU view). */
  host?: string;
}

export function writeState(paths: readonly string[], s: SimState): void {
  const text = JSON.stringify(s) + '\n';
  for (const p of paths) {
    try {
      makeDirs(dirname(p));
      const tmp = `${p}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, p);
    } catch {
      // The GPU view is a nicety: never let it break the run.
    }
  }
}

export function readState(path: string): SimState | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SimState;
  } catch {
    return null;
  }
}
