// Leftover sweep after a stop or a crash: processes that still carry the run's tag (AWRL_RUN_ID in
// /proc/PID/environ: torchrun and Ray put workers in their own sessions, so a group kill can miss
// them) and processes holding GPU memory. Only TAGGED processes are ever stopped; GPU holders without
// the tag are listed for the user to judge. Nothing is ever matched by a name pattern.
//
// A run on several nodes (Slurm) leaves processes on its NODES, not on the head: with `nodes` given,
// ONE command on the head fans out to them (src/remote/node-fan-out.ts: `ssh -o BatchMode=yes NODE
// bash -s`, in parallel, a marker line per node, as src/gpu's poller does; never one SSH channel per
// node), each node sweeping (and stopping) its own processes.
import type { Transport } from '../remote/transport.js';
import { otherRunWords, type OtherRunStatus } from './other-runs.js';
import {
  HEAD_NODE,
  NODE_NAME,
  nodeFanOutArgv,
  splitNodeAnswers,
  unreachableReason,
  type NodeFanOutOptions,
} from '../remote/node-fan-out.js';

export interface Leftover {
  /** The node the process runs on (the target's name when the target itself was checked). */
  node: string;
  pid: number;
  /** The process carries AWRL_RUN_ID=<this run>. */
  tagged: boolean;
  /** Its AWRL_RUN_ID when it has another one (or '?' when its environ is unreadable), else null. */
  otherRunId: string | null;
  /** That other run's state, once asked (other-runs.ts `withOtherRuns`): a running run's process
   *  is in use, not a leftover. Absent: not asked. */
  otherRun?: OtherRunStatus;
  user: string;
  cmd: string;
  /** GPU memory it holds on this node (MiB), when nvidia-smi lists it. */
  gpuMiB: number | null;
}

export interface SweepReport {
  /** Tagged processes that were signalled and are gone. */
  stopped: Leftover[];
  /** Tagged processes still alive after SIGKILL (e.g. in uninterruptible sleep), and every untagged GPU holder. */
  remaining: Leftover[];
  /** Nodes that could not be checked (ssh failed, script failed), with why. */
  unreachable: NodeFailure[];
  /** Nodes whose GPU memory could not be checked (nvidia-smi missing or failing). */
  gpuUnchecked: NodeFailure[];
}

export interface NodeFailure {
  node: string;
  error: string;
}

export interface LeftoverOptions {
  setup?: string;
  /**
   * Hostnames to check, as the head resolves them (a Slurm run's recorded node list). Absent or
   * empty: the target itself. `includeHead` adds the target itself to a node list.
   */
  nodes?: readonly string[];
  includeHead?: boolean;
  /**
   * ssh_config file ON THE HEAD for reaching `nodes` (`ssh -F`). Default: the head's
   * AWRL_NODE_SSH_CONFIG environment variable when set, else the head user's ~/.ssh/config.
   */
  sshConfigFile?: string;
  /** Nodes that could not be checked while others could (when none could, the call rejects). */
  onUnreachable?: (failures: NodeFailure[]) => void;
}

// $1 mode (list|stop), $2 run id, $3 grace seconds, $4 setup line. Values are argv, never script text.
// `@{` stands for bash`s `${` (a template literal cannot hold it raw).
const SWEEP_SCRIPT = String.raw`
set -u
mode=$1; id=$2; grace=$3; setup=$4
[ -n "$setup" ] && { eval "$setup"; } >/dev/null 2>&1
j() { local s; s=$(printf '%s' "$1" | tr -d '\000-\037\177'); s=@{s//\\/\\\\}; s=@{s//\"/\\\"}; printf '"%s"' "$s"; }
tagged() {
  # -z: environ entries are NUL-separated; -x -F: the whole entry, literally (no regex from the id).
  grep -l -s -z -x -F "AWRL_RUN_ID=$id" /proc/[0-9]*/environ 2>/dev/null | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p' | grep -v -x -e "$$" -e "$BASHPID"
}
is_tagged() { grep -q -s -z -x -F "AWRL_RUN_ID=$id" "/proc/$1/environ"; }
declare -A gpu=()
# GPUs that could not be asked are said so ({"gpuUnchecked":why}): an empty list is not "no GPU memory held".
if ! command -v nvidia-smi >/dev/null 2>&1; then
  printf '{"gpuUnchecked":%s}\n' "$(j "nvidia-smi not found on PATH")"
elif q=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>&1); then
  while IFS=', ' read -r pid mem; do
    case $pid in ''|*[!0-9]*) continue;; esac
    gpu[$pid]=$mem
  done <<< "$q"
else
  rc=$?
  printf '{"gpuUnchecked":%s}\n' "$(j "nvidia-smi failed (exit $rc): $(printf '%s\n' "$q" | tail -n 1)")"
fi
emit() {
  local pid=$1 t=false other=null mem=null
  is_tagged "$pid" && t=true
  if [ "$t" = false ]; then
    if [ -r "/proc/$pid/environ" ]; then
      o=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed -n 's/^AWRL_RUN_ID=//p' | head -n1)
      [ -n "$o" ] && other=$(j "$o")
    else other='"?"'; fi
  fi
  case @{gpu[$pid]:-} in ''|*[!0-9]*) ;; *) mem=@{gpu[$pid]};; esac
  printf '{"pid":%s,"tagged":%s,"otherRunId":%s,"user":%s,"cmd":%s,"gpuMiB":%s}\n' "$pid" "$t" "$other" \
    "$(j "$(stat -c %U "/proc/$pid" 2>/dev/null)")" "$(j "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | head -c 300)")" "$mem"
}
if [ "$mode" = stop ]; then
  pids=$(tagged)
  for p in $pids; do is_tagged "$p" && kill -TERM "$p" 2>/dev/null; done
  # Poll (not sleep-then-hope) until they are gone or the grace period ends, then SIGKILL the rest.
  end=$(( $(date +%s) + grace ))
  while [ -n "$(tagged)" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
  for p in $(tagged); do is_tagged "$p" && kill -KILL "$p" 2>/dev/null; done
  for i in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(tagged)" ] && break; sleep 0.1; done
  for p in $pids; do [ -d "/proc/$p" ] && is_tagged "$p" || printf '{"stopped":%s}\n' "$p"; done
fi
{ tagged; printf '%s\n' "@{!gpu[@]}"; } | sort -un | while read -r p; do
  [ -n "$p" ] && [ -d "/proc/$p" ] && emit "$p"
done
exit 0
`.replaceAll('@{', '${');

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface NodeAnswer {
  list: Leftover[];
  stopped: Array<{ node: string; pid: number }>;
  failures: NodeFailure[];
  /** Nodes that answered but whose GPUs could not be asked (nvidia-smi missing or failing). */
  gpuUnchecked: NodeFailure[];
}

function parseLines(node: string, lines: readonly string[], into: NodeAnswer): void {
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line);
    if (typeof o.stopped === 'number') into.stopped.push({ node, pid: o.stopped });
    else if (typeof o.gpuUnchecked === 'string') into.gpuUnchecked.push({ node, error: `${node}: ${o.gpuUnchecked}` });
    else into.list.push({ node, ...(o as Omit<Leftover, 'node'>) });
  }
}

/** Splits the fan-out's output per node; a node without an answer or with a non-zero exit failed. */
export function parseLeftoverFanOut(
  nodes: readonly string[],
  stdout: string,
  headName: string,
  limitSec = SWEEP_LIMIT_SEC,
): NodeAnswer {
  const answers = splitNodeAnswers(stdout);
  const out: NodeAnswer = { list: [], stopped: [], failures: [], gpuUnchecked: [] };
  for (const n of nodes) {
    const name = n === HEAD_NODE ? headName : n;
    const got = answers.get(n);
    if (!got || got.rc !== 0) {
      const said =
        got?.lines
          .filter((l) => l.trim() && !l.startsWith('{'))
          .pop()
          ?.trim() ?? '';
      const why = unreachableReason(got, limitSec) ?? `the sweep exited with ${got?.rc}`;
      out.failures.push({ node: name, error: `${name}: ${why}${said ? `: ${said}` : ''}` });
      continue;
    }
    parseLines(name, got.lines, out);
  }
  return out;
}

/** The argv of one sweep: the sweep itself on the target, or the fan-out to `nodes` from it. */
export function leftoverCommand(
  mode: 'list' | 'stop',
  runId: string,
  graceSeconds: number,
  setup: string,
  nodes: readonly string[],
  fanOut: NodeFanOutOptions = {},
): string[] {
  const args = [mode, runId, String(graceSeconds), setup];
  if (nodes.length === 0) return ['bash', '-c', SWEEP_SCRIPT, 'awrl-sweep', ...args];
  // A node's sweep may wait out the grace period (then SIGKILL and up to 1 s more) before answering.
  return nodeFanOutArgv('awrl-sweep-nodes', SWEEP_SCRIPT, args, nodes, {
    nodeTimeoutSec: sweepLimit(graceSeconds),
    ...fanOut,
  });
}

const SWEEP_LIMIT_SEC = 30;
const sweepLimit = (graceSeconds: number) => SWEEP_LIMIT_SEC + Math.max(0, graceSeconds);

function nodeList(opts: LeftoverOptions): string[] {
  const nodes = [...new Set(opts.nodes ?? [])];
  for (const n of nodes) if (!NODE_NAME.test(n)) throw new Error(`'${n}' is not a node name`);
  if (nodes.length === 0) return [];
  return opts.includeHead ? [HEAD_NODE, ...nodes] : nodes;
}

async function sweep(
  transport: Transport,
  mode: 'list' | 'stop',
  runId: string,
  graceSeconds: number,
  opts: LeftoverOptions,
): Promise<NodeAnswer> {
  if (!RUN_ID.test(runId)) throw new Error(`'${runId}' is not a run id`);
  const nodes = nodeList(opts);
  const fanOut: NodeFanOutOptions = opts.sshConfigFile ? { sshConfigFile: opts.sshConfigFile } : {};
  const r = await transport.exec(leftoverCommand(mode, runId, graceSeconds, opts.setup ?? '', nodes, fanOut));
  if (r.code !== 0)
    throw new Error(
      `${transport.target}: leftover sweep failed (exit ${r.code}): ${r.stderr.toString().trim().split('\n').pop() ?? ''}`,
    );
  const stdout = r.stdout.toString('utf8');
  if (nodes.length === 0) {
    const one: NodeAnswer = { list: [], stopped: [], failures: [], gpuUnchecked: [] };
    parseLines(transport.target, stdout.split('\n'), one);
    return one;
  }
  const answer = parseLeftoverFanOut(nodes, stdout, transport.target, sweepLimit(graceSeconds));
  if (answer.failures.length === nodes.length)
    throw new Error(`could not check any node for leftovers: ${answer.failures.map((f) => f.error).join('; ')}`);
  if (answer.failures.length > 0) opts.onUnreachable?.(answer.failures);
  return answer;
}

/** What a leftover check found, and what it could not look at. */
export interface LeftoverReport {
  list: Leftover[];
  /** Nodes that could not be reached (their processes are not known). */
  unreachable: NodeFailure[];
  /** Nodes reached whose GPU memory could not be checked (nvidia-smi missing or failing). */
  gpuUnchecked: NodeFailure[];
}

/** findLeftovers with what was not checked: a caller must not say "none" for a node it could not see. */
export async function checkLeftovers(
  transport: Transport,
  runId: string,
  opts: LeftoverOptions = {},
): Promise<LeftoverReport> {
  const a = await sweep(transport, 'list', runId, 0, { ...opts, onUnreachable: undefined });
  return { list: a.list, unreachable: a.failures, gpuUnchecked: a.gpuUnchecked };
}

/** Processes of run `runId` still alive on the target (or on each of `opts.nodes`), plus every process holding GPU memory there. */
export async function findLeftovers(
  transport: Transport,
  runId: string,
  opts: LeftoverOptions = {},
): Promise<Leftover[]> {
  return (await sweep(transport, 'list', runId, 0, opts)).list;
}

/**
 * SIGTERM every process tagged with `runId` (on its own node), wait up to `graceSeconds` for them to
 * go, SIGKILL the rest (each PID re-checked for the tag right before each signal: a reused PID is
 * never hit).
 */
export async function stopLeftovers(
  transport: Transport,
  runId: string,
  opts: LeftoverOptions & { graceSeconds?: number } = {},
): Promise<SweepReport> {
  const before = await findLeftovers(transport, runId, { ...opts, onUnreachable: undefined });
  const { list, stopped, failures, gpuUnchecked } = await sweep(
    transport,
    'stop',
    runId,
    opts.graceSeconds ?? 10,
    opts,
  );
  const gone = new Set(stopped.map((s) => `${s.node}\0${s.pid}`));
  return {
    stopped: before.filter((l) => l.tagged && gone.has(`${l.node}\0${l.pid}`)),
    remaining: list,
    unreachable: failures,
    gpuUnchecked,
  };
}

/** One line per process, for `stop` and the cockpit (the node named when the list spans several). */
/** `withNode`: name each PID's node even when all are on one (several hosts were checked: a bare
 *  PID would read as the head's, and `kill 110` on the head is wrong advice for a PID on n3). */
export function formatLeftovers(list: readonly Leftover[], withNode = false): string {
  const several = withNode || new Set(list.map((l) => l.node)).size > 1;
  return list
    .map((l) => {
      const why = l.tagged
        ? 'tagged with this run'
        : l.otherRunId === '?'
          ? `owned by ${l.user || 'another user'}`
          : l.otherRunId
            ? otherRunWords(l.otherRunId, l.otherRun)
            : 'untagged';
      return `${several ? `${l.node}: ` : ''}PID ${l.pid} ${l.user ? `(${l.user}) ` : ''}${l.cmd.trim()}${l.gpuMiB !== null ? ` — ${l.gpuMiB} MiB GPU` : ''} [${why}]`;
    })
    .join('\n');
}
