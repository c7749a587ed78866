// Leftover sweep after a stop or a crash: processes that still carry the run's tag (AWRL_RUN_ID in
// /proc/PID/environ: torchrun and Ray put workers in their own sessions, so a group kill can miss
// them) and processes holding GPU memory. Only TAGGED processes are ever stopped; GPU holders without
// the tag are listed for the user to judge. Nothing is ever matched by a name pattern.
import type { Transport } from '../remote/transport.js';

export interface Leftover {
  pid: number;
  /** The process carries AWRL_RUN_ID=<this run>. */
  tagged: boolean;
  /** Its AWRL_RUN_ID when it has another one (or '?' when its environ is unreadable), else null. */
  otherRunId: string | null;
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
while IFS=', ' read -r pid mem; do
  case $pid in ''|*[!0-9]*) continue;; esac
  gpu[$pid]=$mem
done < <(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null)
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

function parseLines(out: string): { list: Leftover[]; stopped: number[] } {
  const list: Leftover[] = [];
  const stopped: number[] = [];
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line);
    if (typeof o.stopped === 'number') stopped.push(o.stopped);
    else list.push(o as Leftover);
  }
  return { list, stopped };
}

async function sweep(transport: Transport, mode: 'list' | 'stop', runId: string, graceSeconds: number, setup: string): Promise<{ list: Leftover[]; stopped: number[] }> {
  if (!RUN_ID.test(runId)) throw new Error(`'${runId}' is not a run id`);
  const r = await transport.exec(['bash', '-c', SWEEP_SCRIPT, 'awrl-sweep', mode, runId, String(graceSeconds), setup]);
  if (r.code !== 0) throw new Error(`${transport.target}: leftover sweep failed (exit ${r.code}): ${r.stderr.toString().trim().split('\n').pop() ?? ''}`);
  return parseLines(r.stdout.toString('utf8'));
}

/** Processes of run `runId` still alive on the target, plus every process holding GPU memory there. */
export async function findLeftovers(transport: Transport, runId: string, opts: { setup?: string } = {}): Promise<Leftover[]> {
  return (await sweep(transport, 'list', runId, 0, opts.setup ?? '')).list;
}

/**
 * SIGTERM every process tagged with `runId`, wait up to `graceSeconds` for them to go, SIGKILL the
 * rest (each PID re-checked for the tag right before each signal: a reused PID is never hit).
 */
export async function stopLeftovers(transport: Transport, runId: string, opts: { graceSeconds?: number; setup?: string } = {}): Promise<SweepReport> {
  const before = await findLeftovers(transport, runId, opts);
  const { list, stopped } = await sweep(transport, 'stop', runId, opts.graceSeconds ?? 10, opts.setup ?? '');
  const gone = new Set(stopped);
  return { stopped: before.filter((l) => l.tagged && gone.has(l.pid)), remaining: list };
}

/** One line per process, for `stop` and the cockpit. */
export function formatLeftovers(list: readonly Leftover[]): string {
  return list
    .map((l) => {
      const why = l.tagged ? 'tagged with this run' : l.otherRunId === '?' ? `owned by ${l.user || 'another user'}` : l.otherRunId ? `leftover of run ${l.otherRunId}` : 'untagged';
      return `PID ${l.pid} ${l.user ? `(${l.user}) ` : ''}${l.cmd.trim()}${l.gpuMiB !== null ? ` — ${l.gpuMiB} MiB GPU` : ''} [${why}]`;
    })
    .join('\n');
}
