// The Slurm batch script and sbatch options for a run. All options travel as sbatch argv words (no
// #SBATCH lines to quote), the trainer argv is embedded as a single-quoted bash array.
//
// Auto-resume mechanism (chosen over `--requeue`): at launch, N extra jobs are submitted as an
// afternotok dependency chain with --kill-on-invalid-dep. Slurm starts job k+1 only when job k
// ended badly, with no cockpit connected; the batch script's guard then checks that job k ended in
// TIMEOUT, PREEMPTED or NODE_FAIL (a genuine crash is not retried; when Slurm has forgotten job k,
// the absence of its slurm-exit file, written only when the trainer ended by itself, stands for
// "Slurm ended it": ENDED_BY_SLURM), records the attempt in run.json
// and starts the trainer, which resumes from its recover point. A job that finishes makes the rest
// of the chain unsatisfiable and Slurm drops it. Requeue was rejected: it reuses the job id (attempts
// become invisible to squeue), and a script cannot requeue itself once the time limit has killed it.
//
// A job Slurm requeues anyway (scontrol requeue, a node failure) is recorded as an attempt too, but
// does not count toward --auto-resume N: N is the number of chain jobs, sized by the user to carry a
// long run over its time limits; a requeue is Slurm's or an admin's decision (Slurm bounds it with
// MaxBatchRequeue) and never follows a crash, so letting it use up N would end a run early for an
// interruption that was not its own.
import { shellQuote as q } from '../remote/quote.js';
import type { Target } from './targets.js';
import { RAY_CLUSTER } from './ray-bringup.js';

export interface BatchScriptInput {
  runId: string;
  runDir: string;
  workdir: string;
  setup?: string;
  /** Trainer argv: python, webgym/train.py, --config, path, overrides... */
  argv: string[];
  /** cluster.n_nodes: > 1 starts a Ray cluster (head on the first node) before the trainer. */
  nodes: number;
}

/** The batch script. Args when submitted: ATTEMPT [PREVIOUS_JOB_ID]. */
export function batchScript(b: BatchScriptInput): string {
  const lines = [
    '#!/bin/bash',
    `# awrl-tui run ${b.runId}: generated, do not edit (relaunch with awrl-tui --launch --resume ${b.runId}).`,
    'set -u',
    'attempt=${1:-1}; prev=${2:-}',
    `RUN_DIR=${q(b.runDir)}`,
    `WORKDIR=${q(b.workdir)}`,
    `ARGV=(${b.argv.map(q).join(' ')})`,
    'cd "$RUN_DIR" || exit 1',
    'prev_state=""',
    'if [ -n "$prev" ]; then',
    '  # Only a time limit, a preemption or a node failure is worth another attempt.',
    `  prev_state=$(scontrol show job -o "$prev" 2>/dev/null | sed -n 's/.*JobState=\\([A-Z_]*\\).*/\\1/p')`,
    '  # Slurm forgets an ended job after MinJobAge (300 s by default) while this attempt may have',
    '  # queued for hours: ask accounting, then the run dir. slurm-exit.JOB is written only when the',
    '  # trainer ended by itself; without it Slurm ended the job (time limit, preemption, node failure).',
    `  [ -n "$prev_state" ] || prev_state=$(sacct -n -X -P -o State -j "$prev" 2>/dev/null | sed -n '1s/^\\([A-Z_]*\\).*/\\1/p')`,
    '  if [ -z "$prev_state" ] && [ ! -e "$RUN_DIR/slurm-exit.$prev" ]; then prev_state=ENDED_BY_SLURM; fi',
    '  case $prev_state in',
    '    TIMEOUT|PREEMPTED|NODE_FAIL|ENDED_BY_SLURM) ;;',
    '    *) echo "awrl: attempt $attempt not needed: job $prev ended ${prev_state:-unknown}"; exit 0;;',
    '  esac',
    'fi',
    `export AWRL_RUN_ID=${q(b.runId)} AWRL_RUN_DIR="$RUN_DIR"`,
    '# The setup line runs in the workdir, as for a direct launch and pre-flight (`source ./env.sh`).',
    'cd "$WORKDIR" || exit 1',
    b.setup ? b.setup : ':',
    "# The attempt's nodes go into run.json now: after the job ended only the record knows them (leftover check).",
    'mapfile -t awrl_nodes < <(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" 2>/dev/null)',
    "# A requeued run: Slurm resets the job's SubmitTime to the requeue, when the previous run ended.",
    'awrl_requeued_at=""',
    'if [ "${SLURM_RESTART_COUNT:-0}" != 0 ]; then',
    `  awrl_t=$(scontrol show job -o "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/.* SubmitTime=\\([^ ]*\\).*/\\1/p')`,
    '  [ -z "$awrl_t" ] || awrl_requeued_at=$(date -u -d "$awrl_t" +%Y-%m-%dT%H:%M:%S.000Z 2>/dev/null) || awrl_requeued_at=""',
    'fi',
    '# A requeued job (scontrol requeue, a node failure) runs this script again under the same job id',
    '# and arguments: SLURM_RESTART_COUNT tells the runs apart, each one a new attempt. The record',
    '# answers with the attempt number it recorded, which the marker below writes into the log.',
    'awrl_n=$("${ARGV[0]}" - "$RUN_DIR/run.json" "$attempt" "$SLURM_JOB_ID" "$prev_state" "$prev" "${SLURM_RESTART_COUNT:-0}" "$awrl_requeued_at" "${awrl_nodes[@]}" <<\'PY\'',
    ...RECORD_ATTEMPT_PY,
    'PY',
    ') || { echo "awrl: could not record attempt $attempt in run.json" >&2; awrl_n=$attempt; }',
    "case $awrl_n in ''|*[!0-9]*) awrl_n=$attempt;; esac",
    ...attemptMarker('"$RUN_DIR/stdout.log"', '$awrl_n'),
    ...(b.nodes > 1 ? RAY_CLUSTER : []),
    '"${ARGV[@]}" < /dev/null >> "$RUN_DIR/stdout.log" 2>&1',
    'rc=$?',
    'echo "$rc" > "$RUN_DIR/slurm-exit.$SLURM_JOB_ID"',
    'exit "$rc"',
    '',
  ];
  return lines.join('\n');
}

/**
 * Records the attempt's node list in run.json atomically (same compact format the cockpit writes):
 * on the attempt the launcher recorded (first launch, --resume), or on a new auto-resume attempt
 * (a chain job, or a requeued run of a job: after REQUEUED, with its restart count, and the
 * previous run's endedAt = the requeue time). Prints the attempt's number.
 * The launcher records its attempt right after sbatch returns, which can be after the job started:
 * wait for it (60 s at most) rather than race its write.
 */
const RECORD_ATTEMPT_PY = [
  'import datetime, json, os, sys, time',
  'path, n, job, after, prev = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]',
  'restart, requeued_at = int(sys.argv[6] or 0), sys.argv[7]',
  'nodes = [x for x in sys.argv[8:] if x]',
  'def save(r):',
  '    with open(path + ".tmp", "w") as f:',
  '        f.write(json.dumps(r, separators=(",", ":")) + "\\n")',
  '    os.replace(path + ".tmp", path)',
  'for _ in range(120):',
  '    with open(path) as f:',
  '        r = json.load(f)',
  '    mine = [a for a in r["attempts"] if a.get("jobId") == job and a.get("restart", 0) == restart]',
  '    if mine:',
  '        if nodes and mine[0].get("nodes") != nodes:',
  '            mine[0]["nodes"] = nodes',
  '            save(r)',
  '        print(mine[0]["n"])',
  '        break',
  '    # A new attempt: a chain job, or a requeued run of a job whose first run is recorded (the',
  '    # launcher writes run.json whole: appending before its record is there would be overwritten).',
  '    if prev or (restart > 0 and any(a.get("jobId") == job for a in r["attempts"])):',
  '        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")',
  '        a = {"n": max([x["n"] for x in r["attempts"]] + [n - 1]) + 1, "reason": "auto-resume", "startedAt": now, "jobId": job}',
  '        if restart > 0:',
  '            a["after"] = "REQUEUED"',
  '            a["restart"] = restart',
  "            # The run before this one ended at the requeue (its exit file and Slurm's end time are this run's).",
  '            for b in r["attempts"]:',
  '                if requeued_at and b.get("jobId") == job and b.get("restart", 0) == restart - 1 and not b.get("endedAt"):',
  '                    b["endedAt"] = requeued_at',
  '        elif after:',
  '            a["after"] = after',
  '        if nodes:',
  '            a["nodes"] = nodes',
  '        r["attempts"].append(a)',
  '        save(r)',
  '        print(a["n"])',
  '        break',
  '    time.sleep(0.5)',
  'else:',
  '    sys.exit("attempt %d (job %s) is not in run.json" % (n, job))',
];

/**
 * Bash lines that append `awrl: attempt N` to the log, on a line of its own (a killed attempt may
 * have left half a line): where each attempt's part of the log starts, for the attempt chain. The
 * trainer-log parser reads it as plain text, never as a record.
 */
export function attemptMarker(log: string, n: string): string[] {
  return [
    `if [ -s ${log} ] && [ -n "$(tail -c 1 ${log})" ]; then echo >> ${log}; fi`,
    `echo "awrl: attempt ${n}" >> ${log}`,
  ];
}

/** sbatch options for the run: job name, output, nodes and the target's Slurm settings. */
export function sbatchArgs(
  t: Target,
  b: { runId: string; runDir: string; nodes: number; gpusPerNode?: number },
): string[] {
  const s = t.slurm;
  const gpus = s.gpusPerNode ?? b.gpusPerNode;
  const args = [
    `--job-name=awrl-${b.runId}`,
    `--chdir=${b.runDir}`,
    `--output=${b.runDir}/slurm-%j.out`,
    '--open-mode=append',
    `--nodes=${s.nodes ?? b.nodes}`,
    '--ntasks-per-node=1',
  ];
  if (gpus !== undefined && gpus > 0) args.push(`--gpus-per-node=${gpus}`);
  if (s.cpusPerTask !== undefined) args.push(`--cpus-per-task=${s.cpusPerTask}`);
  if (s.partition) args.push(`--partition=${s.partition}`);
  if (s.timeLimit) args.push(`--time=${s.timeLimit}`);
  if (s.account) args.push(`--account=${s.account}`);
  return [...args, ...s.extraArgs];
}
