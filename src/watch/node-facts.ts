// Asking Slurm, on the head, about a run's job and its attempt's nodes (one exec): the I/O half of
// node-failure.ts. The target's setup line runs first (it may put Slurm on PATH or set SLURM_CONF).
import type { Transport } from '../remote/transport.js';
import { checkNodeNames } from '../remote/node-fan-out.js';
import type { Alert } from '../metrics/index.js';
import { parseRunRecord, type RunRecord } from '../runs/run-record.js';
import { setupInWorkdir, type Target } from '../runs/targets.js';
import {
  ALLOC_MARK,
  FAIL_MARK,
  JOB_MARK,
  NODE_MARK,
  nodeFailureAlert,
  parseNodeFacts,
  type NodeFacts,
} from './node-failure.js';

const RECORD_MARK = '@@record\t';

// $1 job id, $2 setup line, $3 run.json ('' for none), then the nodes. A failing command is a @@fail
// line, never facts. run.json comes along: the batch script records a requeued run's attempt after
// the state the caller holds was read, and the alert names that attempt.
const NODE_FACTS_SCRIPT = [
  'j=$1; s=$2; r=$3; shift 3',
  `[ -n "$r" ] && [ -r "$r" ] && printf '${RECORD_MARK}%s\\n' "$(head -c 1000000 "$r" | tr -d '\\n')"`,
  '[ -n "$s" ] && { eval "$s"; } >/dev/null 2>&1 </dev/null',
  `if o=$(scontrol show job -o "$j" 2>&1); then printf '${JOB_MARK}%s\\n' "$(printf '%s\\n' "$o" | head -n 1)"; ` +
    `else printf '${FAIL_MARK}scontrol show job %s: %s\\n' "$j" "$(printf '%s' "$o" | tail -n 1)"; fi`,
  `a=$(squeue -h -j "$j" -o %N 2>/dev/null) && [ -n "$a" ] && scontrol show hostnames "$a" 2>/dev/null | sed 's/^/${ALLOC_MARK}/'`,
  'if [ $# -gt 0 ]; then',
  `  if o=$(sinfo -h -N -n "$(IFS=,; echo "$*")" -o '%N|%T|%E|%H' 2>&1); then printf '%s\\n' "$o" | sed 's/^/${NODE_MARK}/'; ` +
    `else printf '${FAIL_MARK}sinfo: %s\\n' "$(printf '%s' "$o" | tail -n 1)"; fi`,
  'fi',
].join('\n');

export async function slurmNodeFacts(
  transport: Transport,
  target: Target,
  jobId: string,
  nodes: readonly string[],
  runJson = '',
): Promise<NodeFacts & { record: RunRecord | null }> {
  checkNodeNames(nodes);
  if (!/^[0-9_]+$/.test(jobId)) throw new Error(`'${jobId}' is not a Slurm job id`);
  const r = await transport.exec([
    'bash',
    '-c',
    NODE_FACTS_SCRIPT,
    'awrl-node-facts',
    jobId,
    setupInWorkdir(target),
    runJson,
    ...nodes,
  ]);
  const text = r.stdout.toString('utf8');
  const facts = parseNodeFacts(text);
  if (r.code !== 0 && facts.problems.length === 0)
    facts.problems.push(`exit ${r.code}: ${r.stderr.toString('utf8').trim().split('\n').pop() ?? ''}`);
  const line = text.split('\n').find((l) => l.startsWith(RECORD_MARK));
  return { ...facts, record: line ? parseRunRecord(line.slice(RECORD_MARK.length)) : null };
}

/** The job and nodes to ask about for a run: its latest Slurm attempt's, and the attempt before it
 *  when that is the same job (a requeued run: the failed node is in the earlier attempt's list). */
export function nodeFailureScope(
  r: RunRecord,
): { jobId: string; nodes: string[]; requeued: { n: number; nodes: string[] } | null } | null {
  const last = r.attempts.at(-1);
  if (r.backend !== 'slurm' || !last?.jobId) return null;
  const prev = r.attempts.length > 1 ? r.attempts[r.attempts.length - 2] : undefined;
  if (last.after === 'REQUEUED' && prev?.jobId === last.jobId) {
    return { jobId: last.jobId, nodes: prev.nodes ?? [], requeued: { n: last.n, nodes: last.nodes ?? [] } };
  }
  return { jobId: last.jobId, nodes: last.nodes ?? [], requeued: null };
}

/** Asks Slurm and says what failed (null: no node of the run failed, or nothing is known). */
export async function checkNodeFailure(
  transport: Transport,
  target: Target,
  r: RunRecord,
): Promise<{ alert: Alert | null; facts: NodeFacts | null }> {
  const scope = nodeFailureScope(r);
  if (!scope || scope.nodes.length === 0) return { alert: null, facts: null };
  const facts = await slurmNodeFacts(
    transport,
    target,
    scope.jobId,
    [...new Set([...scope.nodes, ...(scope.requeued?.nodes ?? [])])],
    `${r.runDir}/run.json`,
  );
  // The record as it is now: a requeued run of the job may have recorded its attempt since.
  const fresh = facts.record?.runId === r.runId ? facts.record : r;
  const now = nodeFailureScope(fresh);
  const requeued = now && now.jobId === scope.jobId ? now.requeued : scope.requeued;
  const next = fresh.chainJobIds[fresh.chainJobIds.indexOf(scope.jobId) + 1];
  return {
    alert: nodeFailureAlert({
      runId: r.runId,
      attemptNodes: requeued && now ? now.nodes : scope.nodes,
      jobId: scope.jobId,
      facts,
      chainNext: !!next,
      requeuedAttempt: requeued,
    }),
    facts,
  };
}

/**
 * Watches a Slurm run's nodes for `follow` and the cockpit: asked when the run's state changes and
 * every `everyMs` while it is active; `onAlert` gets an alert once per failure (its id: job, nodes,
 * restart count), and not at all for a run on one node that never failed.
 */
export class NodeFailureWatch {
  private record: RunRecord | null = null;
  private active = false;
  private timer: NodeJS.Timeout | null = null;
  private said = new Set<string>();
  private busy = false;

  constructor(
    private readonly transport: Transport,
    private readonly target: Target,
    private readonly onAlert: (a: Alert) => void,
    private readonly everyMs = 20_000,
  ) {}

  /** The run's record and whether it is active (pending/running), from the state the caller polls. */
  update(record: RunRecord, active: boolean): void {
    const changed = this.active !== active || this.record?.attempts.length !== record.attempts.length;
    this.record = record;
    this.active = active;
    if (record.backend !== 'slurm') return;
    if (active && !this.timer) {
      this.timer = setInterval(() => void this.check(), this.everyMs);
      this.timer.unref?.();
    } else if (!active && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    if (changed) void this.check();
  }

  async check(): Promise<Alert | null> {
    if (!this.record || this.busy) return null;
    this.busy = true;
    try {
      const { alert } = await checkNodeFailure(this.transport, this.target, this.record);
      if (alert && !this.said.has(alert.id)) {
        this.said.add(alert.id);
        this.onAlert(alert);
      }
      return alert;
    } catch {
      return null; // the connection's own trouble is reported by the follower
    } finally {
      this.busy = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
