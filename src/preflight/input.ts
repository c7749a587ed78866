// What the pure evaluation needs besides the probe's facts: the resolved config and the target.
import type { SecretRequirement } from '../runs/forwarding.js';
import type { ProbeFacts } from './types.js';
import type { OtherRunStatus } from './other-runs.js';

export interface PreflightTargetInfo {
  /** Shown in messages and in the commands the user is told to run. */
  name: string;
  backend: 'direct' | 'slurm';
  workdir: string;
  /** `-F`: the ssh config that reaches it (in the commands the user is told to run). */
  sshConfigFile?: string;
  python: string;
  setup?: string;
  slurm: { partition?: string; timeLimit?: string; nodes?: number; gpusPerNode?: number };
}

export interface PreflightInput {
  facts: ProbeFacts;
  /** The config engine's fully resolved config (plain JSON). */
  resolved: Record<string, any>;
  experimentName: string;
  trialName: string;
  target: PreflightTargetInfo;
  /** Total GPUs allocation_mode asks for (null when it does not parse: the config engine reports that). */
  allocationGpus: number | null;
  /** The forwarding decision's names (runs/forwarding.ts: the config's needs, --forward-env, dropped ones). */
  secrets: SecretRequirement[];
  /** Names of environment variables set locally (values are never looked at). */
  envNames: ReadonlySet<string>;
  /** Our own run tag: GPU processes carrying it are not leftovers. */
  runId?: string;
  /** The states of the other runs whose tags GPU processes carry (other-runs.ts): a running run's
   *  processes are in use, only an ended run's are leftovers. Absent: not checked. */
  otherRuns?: ReadonlyMap<string, OtherRunStatus>;
  /** `--launch --resume`: the user expects a resume, so a fresh start is a surprise to flag. */
  resuming?: boolean;
  /** Typical wall time of one train step; default 660 s (the reference config: "~11 min/step"). */
  typicalStepSeconds?: number;
}

export const DEFAULT_STEP_SECONDS = 660;

/** Dotted path into the resolved config; undefined when any part is missing. */
export function cfg(resolved: Record<string, any>, path: string): any {
  let v: any = resolved;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[k];
  }
  return v;
}

/** `1.5 GB`, `48 GB`, `1.2 TB` (decimal units, as disks are sold and df -H prints). */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}
