// run.json: the run's record on the target, next to its config.yaml and stdout.log. Written by the
// launcher, and by the Slurm batch script when an auto-resume attempt starts (so the record stays
// true while no cockpit is connected). Compact one-line JSON: the list script relies on it.
import { z } from 'zod';

// `unknown`: a Slurm run while squeue does not answer; neither active nor ended (nothing may be
// concluded from it: a follower keeps following, a launch of the same trial is refused).
export const RUN_STATES = [
  'submitted',
  'pending',
  'running',
  'finished',
  'failed',
  'timeout',
  'stopped',
  'unknown',
] as const;
export type RunState = (typeof RUN_STATES)[number];

const attemptSchema = z.object({
  n: z.number().int().positive(),
  reason: z.enum(['launch', 'resume', 'auto-resume']),
  startedAt: z.string(),
  pid: z.number().int().positive().optional(),
  jobId: z.string().optional(),
  /** How the previous attempt ended, as the auto-resume guard saw it (TIMEOUT, PREEMPTED, NODE_FAIL, or
   *  ENDED_BY_SLURM: Slurm no longer remembered the job and the trainer left no exit status), or
   *  REQUEUED: Slurm ran the same job again (scontrol requeue, a node failure). */
  after: z.string().optional(),
  /** Slurm: the job's restart count (SLURM_RESTART_COUNT) when this attempt is a requeued run of a
   *  job another attempt already ran under the same job id. */
  restart: z.number().int().positive().optional(),
  /** The attempt's nodes (hostnames): Slurm's, written by the batch script when it starts; a direct
   *  multi-node run's, head first, given at launch (--node) or discovered from its Ray cluster. */
  nodes: z.array(z.string()).optional(),
  /** A direct multi-node attempt whose nodes could not be discovered: why (readers say "unknown"). */
  nodesUnknown: z.string().optional(),
  /** When the attempt ended, when only the record can say: a job's run that Slurm requeued (the
   *  requeue time, written by the next run's batch script; the job's exit file and Slurm's end
   *  time belong to its latest run). ISO 8601 UTC. */
  endedAt: z.string().optional(),
});
export type Attempt = z.infer<typeof attemptSchema>;

const preflightSchema = z.object({
  /** --skip-preflight was given: the launch went ahead whatever the checks said. */
  skipped: z.boolean(),
  errors: z.number().int().nonnegative(),
  warnings: z.number().int().nonnegative(),
  /** The probe itself could not run (only with --skip-preflight: otherwise nothing is launched). */
  failed: z.string().optional(),
});
export type PreflightSummary = z.infer<typeof preflightSchema>;

const recordSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  experiment: z.string(),
  trial: z.string(),
  target: z.string(),
  workdir: z.string(),
  runDir: z.string(),
  backend: z.enum(['direct', 'slurm']),
  /** The trainer's argv, as started (python, webgym/train.py, --config, overrides...). */
  argv: z.array(z.string()),
  /** Names of the forwarded environment variables (never their values). */
  secretNames: z.array(z.string()),
  createdAt: z.string(),
  attempts: z.array(attemptSchema),
  /** Slurm: jobs submitted ahead for `--auto-resume` (afternotok chain), in order. */
  chainJobIds: z.array(z.string()).default([]),
  autoResume: z.number().int().nonnegative().default(0),
  /** Slurm sizing, kept so that a resume asks for the same allocation. */
  nodes: z.number().int().positive().default(1),
  gpusPerNode: z.number().int().nonnegative().optional(),
  /** A direct run's nodes as given once at launch (--node), for every attempt (a resume too). */
  nodeNames: z.array(z.string()).optional(),
  stopRequestedAt: z.string().optional(),
  /** The launch wrote the run dir but could not start the job (setup line, sbatch, start script):
   *  the run is `failed`, not forever `submitted` (which would block the next launch of its trial). */
  startError: z.string().optional(),
  /** The pre-flight of the latest launch or resume: counts, and whether --skip-preflight overrode it. */
  preflight: preflightSchema.optional(),
});
export type RunRecord = z.infer<typeof recordSchema>;

export function parseRunRecord(text: string): RunRecord | null {
  try {
    const r = recordSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export function serializeRunRecord(r: RunRecord): string {
  return `${JSON.stringify(r)}\n`;
}

/** Every Slurm job id the run has used or queued (what `scancel` and `squeue` are asked about). */
export function runJobIds(r: RunRecord): string[] {
  const ids = r.attempts.map((a) => a.jobId).filter((x): x is string => !!x);
  return [...new Set([...ids, ...r.chainJobIds])];
}

/** Every node any attempt of the run ran on, in order of first use ([] when none was recorded). */
export function runNodes(r: RunRecord): string[] {
  return [...new Set(r.attempts.flatMap((a) => a.nodes ?? []))];
}

/** `<trial>-<yyyymmdd-HHMMSS>-<4 hex>`: sortable, readable, safe as a directory and tmux name. */
export function makeRunId(trial: string, now: Date, random: () => number = Math.random): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const slug =
    trial
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'run';
  const hex = Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${slug}-${stamp}-${hex}`;
}

/** Run ids arrive from users and become paths: allow only what makeRunId produces. */
export function isValidRunId(id: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(id) && !id.includes('..');
}

/** The run's log: the controller's stdout and stderr (and, with Ray, every worker's lines). */
export function runLogPath(record: Pick<RunRecord, 'runDir'>): string {
  return `${record.runDir}/stdout.log`;
}
