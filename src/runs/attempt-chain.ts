// The attempt chain of a run (`runs --json`, the table's CHAIN column): each attempt (the launch, a
// `--resume`, an auto-resume job of a Slurm chain) with when and why it ended and the step the
// trainer resumed from, from run.json, the exit-status files, Slurm's accounting and the log.
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { setupInWorkdir, type Target } from './targets.js';
import type { Attempt, RunRecord, RunState } from './run-record.js';
import { parseMarkedLines, toInt } from './remote-scripts.js';
import { parseLogBytes, stepDoneLine } from '../trainer-log/index.js';
import type { ListProbe, RunSummary } from './list.js';

/**
 * One attempt of a run (the launch, a `--resume`, or an auto-resume job of the Slurm chain) as the
 * record, Slurm and the log tell it. null = not known (or, for `ended`/`endedAt`, not ended yet).
 */
export interface AttemptSummary {
  n: number;
  reason: Attempt['reason'];
  jobId: string | null;
  pid: number | null;
  nodes: string[];
  /** When the attempt was recorded as started (ISO 8601 UTC, run.json's). */
  startedAt: string;
  /** When it ended (ISO 8601 UTC): the job's exit-status file, else Slurm's end time, or for a run
   *  of a job Slurm requeued, the requeue (run.json's, from the next run); null while it runs, or
   *  when nothing recorded it (a job killed at its time limit once Slurm forgot it). */
  endedAt: string | null;
  /** Why it ended: Slurm's state (TIMEOUT, PREEMPTED, NODE_FAIL, COMPLETED, CANCELLED, FAILED, …),
   *  `exit N`, `stopped`, or `unknown`; null while it runs. */
  ended: string | null;
  /** The 1-based step the trainer resumed at (its `Recovering from StepInfo` line); null for a
   *  fresh start or when the log cannot be matched to the attempts. */
  resumedFromStep: number | null;
  /** The last `Train step g/G done.` of this attempt, and its time as the log prints it (no zone). */
  lastStep: number | null;
  lastStepAt: string | null;
  /** The nodes Slurm's `Node failure on N` lines in this attempt's part of the log name ([]: none). */
  nodeFailures: string[];
}

/** What the chain script found for one run: exit-file times, Slurm's word on its jobs, log marks. */
export interface ChainFacts {
  /** Slurm job id -> mtime (epoch s) of `slurm-exit.JOB`, written when the trainer exited. */
  slurmExitAt: Record<string, number>;
  /** Direct: mtime of `exit.code` (the latest attempt's exit). */
  exitAt?: number;
  /** Direct: attempt number -> mtime of its own `attempt-exit.N`. */
  attemptExitAt?: Record<number, number>;
  /** Slurm job id -> { state, end (ISO UTC) } from sacct, or scontrol while Slurm remembers the job. */
  jobs: Record<string, { state: string; endedAt: string | null }>;
  /** The log's trainer starts before any `awrl: attempt N` marker (runs launched by versions that
   *  wrote none), in order: each `Recovering from StepInfo` / `Resume info not found`, with the
   *  last step done before the next start. Matched to attempts by count only. */
  starts: LogPart[];
  /** Attempt number -> its part of the log, from the `awrl: attempt N` marker the launcher or the
   *  batch script writes before the trainer starts: the first trainer start after it, the last step. */
  marked: Record<number, LogPart>;
}
export interface LogPart {
  resumedFromStep: number | null;
  lastStep: number | null;
  lastStepAt: string | null;
  /** srun's `Node failure on N` lines of the part (its job was requeued or ended for them). */
  nodeFailures?: string[];
}
export const emptyFacts = (): ChainFacts => ({ slurmExitAt: {}, jobs: {}, starts: [], marked: {} });

/**
 * Args: ROOT SETUP JOBS(comma-separated) SCAN(run ids whose log to read, comma-separated) RUN_ID...
 * Per run: `@@run ID`, `@@sexitat JOB EPOCH`,
 * `@@exitat EPOCH`, `@@marks BASE64` (awk over the whole log: `A<TAB>N` for each `awrl: attempt N`
 * marker, `M<TAB>line` for each trainer start, `S<TAB>line` for the last step done before the next
 * marker or start, and at the end). Then per job, when Slurm
 * still knows it: `@@job ID STATE END_UTC` (sacct when accounting is on, else scontrol).
 */
// Bash's `${…}` is written `$\{…}` here (a template literal would read it), and restored below.
const CHAIN_SCRIPT = String.raw`set -u
root=$1; setup=$2; jobs=$3; scan=$4; shift 4
for id in "$@"; do
  d="$root/$id"
  printf '@@run\t%s\n' "$id"
  for f in "$d"/slurm-exit.*; do [ -f "$f" ] && printf '@@sexitat\t%s\t%s\n' "$\{f##*.}" "$(stat -c %Y "$f")"; done
  [ -f "$d/exit.code" ] && printf '@@exitat\t%s\n' "$(stat -c %Y "$d/exit.code")"
  for f in "$d"/attempt-exit.*; do [ -f "$f" ] && printf '@@aexitat\t%s\t%s\n' "$\{f##*.}" "$(stat -c %Y "$f")"; done
  if [ -s "$d/stdout.log" ] && case ",$scan," in *",$id,"*) true ;; *) false ;; esac; then
    printf '@@marks\t'
    # A SELECTION of lines, not a second reader: every kept line is read back by src/trainer-log's one
    # grammar (parseLogBytes, stepDoneLine: prefix, ANSI, header, time). Not the reader itself on the
    # whole log: a days-long stdout.log is GBs of worker lines and stats tables, and a lone step line
    # carries no stats to read anyway (runs/README.md, 'The attempt chain'). grep first: awk would crawl.
    LC_ALL=C grep -a -E '^awrl: attempt [0-9]+\r?$|Recovering from StepInfo|Resume info not found|Train step [0-9]+/[0-9]+ done|Node failure on ' "$d/stdout.log" |
    LC_ALL=C awk '/^awrl: attempt [0-9]+\r?$/ { if (last != "") print "S\t" last; n = substr($0, 15); sub(/\r$/, "", n); print "A\t" n; last = ""; next }
      /Node failure on / { f = $0; sub(/.*Node failure on /, "", f); sub(/[^A-Za-z0-9_.-].*/, "", f); if (f != "") print "F\t" f; next }
      /Recovering from StepInfo|Resume info not found/ { if (last != "") print "S\t" last; print "M\t" substr($0, 1, 400); last = ""; next }
      /Train step [0-9]+\/[0-9]+ done/ { last = substr($0, 1, 400) }
      END { if (last != "") print "S\t" last }' | base64 | tr -d '\n'
    printf '\n'
  fi
done
[ -n "$jobs" ] || exit 0
eval "$setup" >&2
utc() { [ -n "$1" ] && [ "$1" != Unknown ] && [ "$1" != None ] && date -u -d "$1" +%Y-%m-%dT%H:%M:%S.000Z 2>/dev/null || echo -; }
if out=$(sacct -X -n -P -o JobID,State,End -j "$jobs" 2>/dev/null) && [ -n "$out" ]; then
  printf '%s\n' "$out" | while IFS='|' read -r j st end; do printf '@@job\t%s\t%s\t%s\n' "$j" "$\{st%% *}" "$(utc "$end")"; done
else
  for j in $\{jobs//,/ }; do
    line=$(scontrol show job -o "$j" 2>/dev/null) || continue
    st=$(printf '%s' "$line" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    end=$(printf '%s' "$line" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p')
    printf '@@job\t%s\t%s\t%s\n' "$j" "$st" "$(utc "$end")"
  done
fi
true
`.replaceAll('$\\{', '${');

export async function chainFacts(
  transport: Transport,
  target: Target,
  root: string,
  runs: RunSummary[],
): Promise<Map<string, ChainFacts>> {
  // Only the logs of runs that were resumed are read (for their resume steps): `runs` must not
  // read the logs of a hundred runs that never restarted.
  const scan = runs.filter((r) => r.record.attempts.length > 1).map((r) => r.runId);
  const jobs = [
    ...new Set(
      runs.flatMap((r) =>
        r.record.attempts.map((a) => a.jobId).filter((j): j is string => !!j && /^\d+(_\d+)?$/.test(j)),
      ),
    ),
  ];
  const res = await transport.exec(
    remoteScript(
      CHAIN_SCRIPT,
      [root, setupInWorkdir(target), jobs.join(','), scan.join(','), ...runs.map((r) => r.runId)],
      'awrl-chain',
    ),
  );
  // The chain is extra detail: a failure leaves it to what run.json alone says.
  return res.code === 0 ? parseChainOutput(res.stdout.toString('utf8')) : new Map();
}

/** The chain script's output -> facts per run id (pure; exported for tests). */
export function parseChainOutput(text: string): Map<string, ChainFacts> {
  const out = new Map<string, ChainFacts>();
  const jobs: ChainFacts['jobs'] = {};
  let cur: ChainFacts | undefined;
  for (const [key, f] of parseMarkedLines(text)) {
    if (key === 'run') out.set(f[0], (cur = { ...emptyFacts(), jobs }));
    else if (key === 'job') jobs[f[0]] = { state: f[1] ?? '', endedAt: f[2] && f[2] !== '-' ? f[2] : null };
    else if (!cur) continue;
    else if (key === 'sexitat' && toInt(f[1]) !== null) cur.slurmExitAt[f[0]] = toInt(f[1])!;
    else if (key === 'exitat' && toInt(f[0]) !== null) cur.exitAt = toInt(f[0])!;
    else if (key === 'aexitat' && toInt(f[0]) !== null && toInt(f[1]) !== null)
      (cur.attemptExitAt ??= {})[toInt(f[0])!] = toInt(f[1])!;
    else if (key === 'marks') Object.assign(cur, parseMarks(Buffer.from(f[0] ?? '', 'base64')));
  }
  return out;
}

function parseMarks(bytes: Buffer): Pick<ChainFacts, 'starts' | 'marked'> {
  const starts: LogPart[] = [];
  const marked: Record<number, LogPart> = {};
  // The part the next lines belong to: the latest start before any marker, or the marked attempt.
  let part: LogPart | undefined;
  let inMarked = false;
  let started = false;
  for (const line of bytes.toString('utf8').split('\n')) {
    const kind = line.slice(0, 2);
    const body = line.slice(2);
    if (kind === 'A\t' && /^\d+$/.test(body)) {
      part = marked[Number(body)] = { resumedFromStep: null, lastStep: null, lastStepAt: null };
      inMarked = true;
      started = false;
    } else if (kind === 'M\t') {
      // The trainer's own parser reads the start line (resume step, 0-based in the log, 1-based here).
      const e = parseLogBytes(Buffer.from(`${body}\n`)).find((x) => x.type === 'resume' || x.type === 'start');
      const from = e?.type === 'resume' ? e.resumeStep : null;
      if (!inMarked) starts.push((part = { resumedFromStep: from, lastStep: null, lastStepAt: null }));
      else if (!started && part) part.resumedFromStep = from; // later starts in one attempt: its workers' echoes
      started = true;
    } else if (kind === 'F\t' && part && /^[A-Za-z0-9_.-]+$/.test(body)) {
      if (!part.nodeFailures?.includes(body)) (part.nodeFailures ??= []).push(body);
    } else if (kind === 'S\t' && part) {
      // The trainer's grammar reads the line (header, ANSI, time); its tables stayed on the target.
      const step = stepDoneLine(body);
      if (step) Object.assign(part, { lastStep: step.globalStep, lastStepAt: step.time });
    }
  }
  return { starts, marked };
}

const SLURM_ACTIVE = new Set([
  'PENDING',
  'RUNNING',
  'CONFIGURING',
  'COMPLETING',
  'REQUEUED',
  'RESIZING',
  'SUSPENDED',
  'STAGE_OUT',
  'SIGNALING',
]);
const iso = (epochS: number): string => new Date(epochS * 1000).toISOString();

/**
 * The run's attempts with how each ended (pure; exported for tests). An attempt followed by an
 * auto-resume ended as that attempt's guard saw it (`after`); otherwise Slurm's state, the exit
 * file, or (the latest attempt) the run's state. The log's parts are matched to attempts by their
 * `awrl: attempt N` markers. Attempts from before markers were written (an older launcher) are
 * matched to the unmarked trainer starts one to one, and only when they are as many: an attempt that
 * died before the trainer logged its start would otherwise shift every resume step onto the wrong one.
 */
export function buildChain(
  record: RunRecord,
  state: RunState,
  probe: ListProbe,
  facts: ChainFacts,
  tail: Pick<RunSummary, 'globalStep' | 'lastStepAt'> = {},
): AttemptSummary[] {
  const attempts = record.attempts;
  // A run launched once has its log read by nobody here (chainFacts scans resumed runs only): its
  // one attempt's last step is the one the list's log tail found. Never lent to a resumed run's
  // last attempt: the tail's step may be an earlier attempt's when the log could not be matched.
  const tailPart: LogPart | undefined =
    attempts.length === 1 && tail.globalStep !== undefined
      ? { resumedFromStep: null, lastStep: tail.globalStep, lastStepAt: tail.lastStepAt ?? null }
      : undefined;
  const firstMarked = Math.min(...Object.keys(facts.marked ?? {}).map(Number));
  const unmarked = attempts.filter((a) => a.n < firstMarked);
  const countMatched = facts.starts.length === unmarked.length;
  const logOf = (a: Attempt): LogPart | undefined =>
    facts.marked?.[a.n] ?? (a.n < firstMarked && countMatched ? facts.starts[unmarked.indexOf(a)] : undefined);
  return attempts.map((a, i) => {
    const last = i === attempts.length - 1;
    const next = attempts[i + 1];
    const job = a.jobId ? facts.jobs[a.jobId] : undefined;
    const squeue = a.jobId ? probe.slurm[a.jobId] : undefined;
    const slurmState = job?.state || squeue;
    let ended: string | null;
    if (next?.after) ended = next.after;
    else if (slurmState && SLURM_ACTIVE.has(slurmState)) ended = null;
    else if (slurmState) ended = slurmState;
    else if (a.jobId && probe.slurmExit[a.jobId] !== undefined) ended = `exit ${probe.slurmExit[a.jobId]}`;
    // A direct attempt writes its own exit file: a resume rewrites exit.code, not this one.
    else if (!a.jobId && !last && probe.attemptExit?.[a.n] !== undefined) ended = `exit ${probe.attemptExit[a.n]}`;
    else if (last) ended = endOfRun(state, probe, record);
    else ended = 'unknown';
    let endedAt: string | null = null;
    // A job Slurm ran again (requeued) has one exit file and one end time: the latest run's. An
    // earlier run's end is the requeue, which the next run's batch script wrote into run.json.
    const rerun = attempts.slice(i + 1).some((b) => b.jobId !== undefined && b.jobId === a.jobId);
    if (rerun) endedAt = a.endedAt ?? null;
    else if (ended !== null) {
      const exitAt = a.jobId
        ? facts.slurmExitAt[a.jobId]
        : (facts.attemptExitAt?.[a.n] ?? (last && record.backend === 'direct' ? facts.exitAt : undefined));
      endedAt = exitAt !== undefined ? iso(exitAt) : (job?.endedAt ?? null);
    }
    const log = logOf(a) ?? (last ? tailPart : undefined);
    return {
      n: a.n,
      reason: a.reason,
      jobId: a.jobId ?? null,
      pid: a.pid ?? null,
      nodes: a.nodes ?? [],
      startedAt: a.startedAt,
      endedAt,
      ended,
      resumedFromStep: log?.resumedFromStep ?? null,
      lastStep: log?.lastStep ?? null,
      lastStepAt: log?.lastStepAt ?? null,
      nodeFailures: log?.nodeFailures ?? [],
    };
  });
}

/** How the latest attempt ended, from the run's derived state (null: it has not). */
function endOfRun(state: RunState, probe: ListProbe, record: RunRecord): string | null {
  if (state === 'running' || state === 'pending' || state === 'submitted' || state === 'unknown') return null;
  if (state === 'stopped' || record.stopRequestedAt) return 'stopped';
  if (probe.exitCode !== undefined && probe.exitCode !== null) return `exit ${probe.exitCode}`;
  if (state === 'finished') return 'exit 0';
  return 'unknown';
}

/** The chain in a few words for the table: `17 TIMEOUT > 18 from step 13 running` (the auto-resume
 *  chain: a job after a job). A job Slurm ran again (requeued, same job id) is named by attempt
 *  number, as run.json, the log's markers and `follow` number it: `#1 node failure n3 → requeued by
 *  Slurm → #2 from step 3 running`. */
export function chainShort(chain: readonly AttemptSummary[]): string {
  const jobs = chain.map((a) => a.jobId).filter((j) => j !== null);
  const byNumber = new Set(jobs).size < jobs.length;
  return chain
    .map((a, i) => {
      const who = a.jobId !== null && !byNumber ? a.jobId : `#${a.n}`;
      const from = a.resumedFromStep !== null && a.resumedFromStep > 1 ? ` from step ${a.resumedFromStep}` : '';
      const last = i === chain.length - 1;
      if (a.ended !== 'REQUEUED') return `${who}${from} ${a.ended ?? 'running'}${last ? '' : ' >'}`;
      const why = a.nodeFailures.length ? ` node failure ${a.nodeFailures.join(', ')}` : '';
      return `${who}${from}${why} → requeued by Slurm${last ? '' : ' →'}`;
    })
    .join(' ');
}
