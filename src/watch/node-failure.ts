// A Slurm node failure, named as such (pure). What Slurm says about a run's job (`scontrol show job
// -o`) and about the attempt's nodes (`sinfo -N -o '%N|%T|%E|%H'`) becomes one alert that names the
// node and Slurm's verdict, and says what happens next:
//   node n3 failed: Slurm set it DOWN (Not responding) and requeued job 5; the run resumes from its
//   last recover checkpoint when the job starts again
// Measured on the one-machine cluster (test/harness/cluster.ts): ~10-25 s after a node's death sinfo
// shows `mixed*` (not responding, still allocated), then `down*` with reason `Not responding`, and
// the job (JobRequeue, the default) is PENDING with Reason=BeginTime and Restarts=1, same job id.
import type { Alert } from '../metrics/index.js';

export interface SlurmNodeState {
  node: string;
  /** sinfo %T, lower case, `*` = not responding (`down*`, `mixed*`, `idle`). */
  state: string;
  /** sinfo %E: the reason an admin or Slurm gave (`Not responding`), `none` when none. */
  reason: string;
  /** sinfo %H: when the reason was set (cluster local time), null when `Unknown`. */
  since: string | null;
}

export interface SlurmJobFacts {
  jobId: string;
  state: string;
  reason: string;
  restarts: number;
  /** The allocation (`n[1-4]`), '' while pending. */
  nodeList: string;
  /** When a pending job may start (StartTime), null when unknown. */
  startTime: string | null;
}

export interface NodeFacts {
  job: SlurmJobFacts | null;
  /** The job's current allocation, one hostname each ([] while pending or unknown). */
  alloc: string[];
  nodes: SlurmNodeState[];
  /** Why the facts are missing or partial (scontrol/sinfo failed: their message). */
  problems: string[];
}

export const JOB_MARK = '@@job\t';
export const NODE_MARK = '@@node\t';
export const FAIL_MARK = '@@fail\t';
export const ALLOC_MARK = '@@alloc\t';

/** `scontrol show job -o` (one line of Key=Value words) -> the facts kept. */
export function parseScontrolJob(line: string): SlurmJobFacts | null {
  const kv = new Map<string, string>();
  for (const m of line.matchAll(/(?:^|\s)([A-Za-z:]+)=(\S*)/g)) if (!kv.has(m[1])) kv.set(m[1], m[2]);
  const jobId = kv.get('JobId');
  if (!jobId) return null;
  const nodeList = kv.get('NodeList') ?? '';
  const start = kv.get('StartTime') ?? '';
  return {
    jobId,
    state: kv.get('JobState') ?? 'UNKNOWN',
    reason: kv.get('Reason') ?? 'None',
    restarts: Number(kv.get('Restarts') ?? 0) || 0,
    nodeList: nodeList === '(null)' ? '' : nodeList,
    startTime: start && start !== 'Unknown' && start !== 'None' ? start : null,
  };
}

/** The probe's marked lines (node-facts.ts) -> facts. */
export function parseNodeFacts(stdout: string): NodeFacts {
  const facts: NodeFacts = { job: null, alloc: [], nodes: [], problems: [] };
  for (const line of stdout.split('\n')) {
    if (line.startsWith(JOB_MARK)) facts.job = parseScontrolJob(line.slice(JOB_MARK.length)) ?? facts.job;
    else if (line.startsWith(ALLOC_MARK)) facts.alloc.push(line.slice(ALLOC_MARK.length).trim());
    else if (line.startsWith(FAIL_MARK)) facts.problems.push(line.slice(FAIL_MARK.length).trim());
    else if (line.startsWith(NODE_MARK)) {
      const [node, state, reason, since] = line.slice(NODE_MARK.length).split('|');
      if (!node || state === undefined) continue;
      facts.nodes.push({
        node,
        state: state.toLowerCase(),
        reason: reason || 'none',
        since: since && since !== 'Unknown' ? since : null,
      });
    }
  }
  return facts;
}

const BAD_BASE = /^(down|drain|drained|draining|fail|failing|boot_fail|inval|not_responding|unknown)/;

/** Slurm gave up on the node (or it does not answer). */
export function nodeFailed(s: SlurmNodeState): boolean {
  return s.state.endsWith('*') || BAD_BASE.test(s.state);
}

/** `DOWN (Not responding)`, `MIXED, not responding`, `DRAIN (Kill task failed)`. */
export function slurmVerdict(s: SlurmNodeState): string {
  const base = s.state.replace(/[*~#!%$@^-]+$/, '').toUpperCase();
  const noAnswer = s.state.endsWith('*');
  const reason = s.reason && s.reason !== 'none' ? s.reason : noAnswer ? 'Not responding' : '';
  if (
    base === 'DOWN' ||
    base === 'DRAIN' ||
    base === 'DRAINED' ||
    base === 'DRAINING' ||
    base === 'FAIL' ||
    base === 'FAILING'
  ) {
    return reason ? `${base} (${reason})` : base;
  }
  return noAnswer
    ? `${base}, not responding${s.reason && s.reason !== 'none' ? ` (${s.reason})` : ''}`
    : reason
      ? `${base} (${reason})`
      : base;
}

const PENDING = new Set(['PENDING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED']);
const RUNNING = new Set(['RUNNING', 'COMPLETING', 'CONFIGURING']);

export interface NodeFailureInput {
  runId: string;
  /** The nodes of the attempt the job ran on (run.json), and its job id. */
  attemptNodes: readonly string[];
  jobId: string;
  facts: NodeFacts;
  /** The run has a queued auto-resume chain job after this one. */
  chainNext?: boolean;
  /** The run's latest attempt is a requeued run of the same job (run.json after=REQUEUED): n and nodes. */
  requeuedAttempt?: { n: number; nodes: readonly string[] } | null;
}

const nodesWord = (ns: readonly SlurmNodeState[]): string =>
  ns.length === 1
    ? `node ${ns[0].node} failed: Slurm set it ${slurmVerdict(ns[0])}`
    : `nodes ${ns.map((n) => n.node).join(', ')} failed: Slurm set them ${ns.map((n) => `${n.node} ${slurmVerdict(n)}`).join(', ')}`;

/** The alert for a failed node of the run's job, or null when no node of it failed. */
export function nodeFailureAlert(i: NodeFailureInput): Alert | null {
  const failed = i.facts.nodes.filter((n) => i.attemptNodes.includes(n.node) && nodeFailed(n));
  if (failed.length === 0) return null;
  const job = i.facts.job;
  const states = i.facts.nodes
    .filter((n) => i.attemptNodes.includes(n.node))
    .map(
      (n) => `${n.node} ${n.state}${n.reason !== 'none' ? ` (${n.reason}${n.since ? ` since ${n.since}` : ''})` : ''}`,
    )
    .join(', ');
  const id = `slurm/node-failure/${i.jobId}/${failed.map((n) => n.node).join(',')}/${job?.restarts ?? 0}`;
  // One alert per failure and per stage of it (not responding, requeued, running again, ended).
  const base = (stage: string) => ({ id: `${id}/${stage}`, detail: `Slurm's node states: ${states}` });
  const head = nodesWord(failed);
  // Running again after the requeue, on nodes without the failed one.
  const restarted =
    job &&
    RUNNING.has(job.state) &&
    job.restarts > 0 &&
    i.facts.alloc.length > 0 &&
    failed.every((n) => !i.facts.alloc.includes(n.node));
  if (job && restarted) {
    const which = i.requeuedAttempt ? `attempt ${i.requeuedAttempt.n}` : `the job (restart ${job.restarts})`;
    return {
      ...base('restarted'),
      severity: 'info',
      title:
        `${head} and requeued job ${i.jobId}; ${which} runs on ${i.facts.alloc.join(', ')} ` +
        `(Slurm's requeue, not the auto-resume chain) and resumes from its last recover checkpoint`,
      advice: 'nothing to do; the failed node needs an admin before it takes jobs again',
    };
  }
  if (job && PENDING.has(job.state) && job.restarts > 0) {
    const when =
      job.reason === 'BeginTime' && job.startTime ? ` (Slurm lets it start from ${job.startTime})` : ` (${job.reason})`;
    return {
      ...base('requeued'),
      severity: 'warning',
      title: `${head} and requeued job ${i.jobId}; the run resumes from its last recover checkpoint when the job starts again`,
      advice: `nothing to do: job ${i.jobId} is ${job.state}${when} and waits for ${i.attemptNodes.length} free nodes`,
    };
  }
  if (job && job.state === 'NODE_FAIL') {
    return {
      ...base('ended'),
      severity: 'error',
      title:
        `${head} and ended job ${i.jobId} (NODE_FAIL)` +
        (i.chainNext ? "; the auto-resume chain's next job resumes the run from its last recover checkpoint" : ''),
      advice: i.chainNext
        ? 'nothing to do: the next job of the chain starts when nodes are free'
        : `resume it: awrl-tui --launch --resume ${i.runId}`,
    };
  }
  if (
    job &&
    RUNNING.has(job.state) &&
    (i.facts.alloc.length === 0 || failed.some((n) => i.facts.alloc.includes(n.node)))
  ) {
    return {
      ...base('silent'),
      severity: 'warning',
      title: `${failed.length === 1 ? `node ${failed[0].node} does not respond` : `nodes ${failed.map((n) => n.node).join(', ')} do not respond`}: Slurm says ${failed.map(slurmVerdict).join(', ')}; job ${i.jobId} is still ${job.state}`,
      advice:
        'Slurm requeues the job if the node stays silent past SlurmdTimeout; its part of the run is stuck meanwhile',
    };
  }
  return null;
}
