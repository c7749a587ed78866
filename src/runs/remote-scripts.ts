// The bash scripts the runner executes on the target, each run as `bash -c SCRIPT argv0 ARGS...`
// (the transport quotes ARGS; nothing here is ever pasted into a command line). Patterns follow
// docs/remote.md: secrets arrive as NAME=VALUE lines on stdin and only ever live in the job's
// environment; the job is a setsid group tagged with AWRL_RUN_ID; stop = TERM group, grace, KILL
// group, then sweep /proc/*/environ for the tag.

/** Bash text in a template: write bash's `${...}` as `$\\{...}`; `${x}` includes another piece. */
export function sh(strings: TemplateStringsArray, ...parts: string[]): string {
  return String.raw({ raw: strings.raw.map((s) => s.replaceAll('$\\{', '${')) }, ...parts);
}

/**
 * job_alive PID RUN_ID: the job's leader (PID = PGID = SID) exists, is not a zombie, and carries the
 * run tag, so a PID reused by an unrelated process is never taken for the job (nor signalled).
 * Returns 2 when the process exists but its environ cannot be read (another Unix user's process):
 * whether it is the job cannot be told, and a running run must not be called gone.
 * Bash builtins only: listing hundreds of runs must not fork per run.
 */
export const ALIVE_FN = sh`
job_alive() {
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
  local st kv
  IFS= read -r st < "/proc/$1/stat" || return 1
  st=$\{st##*) }
  [ "$\{st%% *}" != Z ] || return 1
  [ -r "/proc/$1/environ" ] || return 2
  while IFS= read -r -d '' kv; do [ "$kv" = "AWRL_RUN_ID=$2" ] && return 0; done 2>/dev/null < "/proc/$1/environ"
  return 1
}
`;

/** launcher_alive (start-scripts.ts) PID RUN_ID: a start script of RUN_ID (its argv holds the id) still runs. */
export const LAUNCHER_ALIVE_FN = sh`
launcher_alive() {
  [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] || return 1
  local a seen=0
  while IFS= read -r -d '' a; do
    case $a in awrl-start|awrl-submit) seen=1;; esac
    [ "$seen" = 1 ] && [ "$a" = "$2" ] && return 0
  done 2>/dev/null < "/proc/$1/cmdline"
  return 1
}
`;

/** sentinel_alive PID RUN_ID: the run's sentinel (src/sentinel) runs: its argv holds `sentinel-run` then
 *  the run id. Builtins only. */
export const SENTINEL_ALIVE_FN = sh`
sentinel_alive() {
  [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] || return 1
  local a seen=0
  while IFS= read -r -d '' a; do
    [ "$a" = sentinel-run ] && seen=1
    [ "$seen" = 1 ] && [ "$a" = "$2" ] && return 0
  done 2>/dev/null < "/proc/$1/cmdline"
  return 1
}
`;

/**
 * Lists runs. Args: RUNS_ROOT NAME(glob: * or a run id) SETUP TAIL_BYTES.  Output: `@@now ISO-TIME`
 * (the head's clock), then per run: `@@run ID`,
 * `@@json {...}`, `@@alive 0|1|? USER` (?: the process exists, its environ is unreadable as USER), optional `@@exit N`, `@@sexit JOBID N`, `@@aexit ATTEMPT N` (a direct attempt's own exit status), `@@sentinel 0|1 {...}` (its sentinel's
 * sentinel.json and whether its process is alive); then `@@squeue ID STATE`
 * lines when any run uses Slurm (or `@@squeuefailed STATUS MESSAGE`); then `@@tails BASE64` of one `tail -v` over every non-empty log
 * (headers `==> PATH <==` separate them). Tab-separated. Per run only builtins run: no fork.
 */
export const LIST_SCRIPT = sh`set -u
root=$1; name=$2; setup=$3; tail_bytes=$4; known=$\{5:-}
# The head's clock, first: what a stop records as its request time (the client's clock may be off).
date -u +'@@now %Y-%m-%dT%H:%M:%S.%3NZ' || true
${ALIVE_FN}
${LAUNCHER_ALIVE_FN}
${SENTINEL_ALIVE_FN}
pid_re='"pid":([0-9]+)'
slurm=0
logs=()
all=()
for d in "$root"/$name/; do
  d=$\{d%/}
  [ -f "$d/run.json" ] || continue
  json=""; IFS= read -r json < "$d/run.json"
  printf '@@run\t%s\n@@json\t%s\n' "$\{d##*/}" "$json"
  case $json in *'"backend":"slurm"'*) slurm=1;; esac
  id=$\{d##*/}; pid=""
  [ -f "$d/job.pid" ] && IFS= read -r pid < "$d/job.pid"
  job_alive "$pid" "$id"; a=$?
  case $a in 0) printf '@@alive\t1\n';; 2) printf '@@alive\t?\t%s\n' "$\{USER:-$(id -un)}";; *) printf '@@alive\t0\n';; esac
  # A (re)launch under way (start-scripts.ts): its start script is alive, or died half-way.
  if [ -f "$d/launch.pid" ]; then
    lp=""; IFS= read -r lp < "$d/launch.pid"
    if launcher_alive "$lp" "$id"; then printf '@@launching\t1\n'; else printf '@@launching\t0\n'; fi
  fi
  if [ -f "$d/exit.code" ]; then code=""; IFS= read -r code < "$d/exit.code"; printf '@@exit\t%s\n' "$code"; fi
  for f in "$d"/slurm-exit.*; do
    if [ -f "$f" ]; then code=""; IFS= read -r code < "$f"; printf '@@sexit\t%s\t%s\n' "$\{f##*.}" "$code"; fi
  done
  for f in "$d"/attempt-exit.*; do
    if [ -f "$f" ]; then code=""; IFS= read -r code < "$f"; printf '@@aexit\t%s\t%s\n' "$\{f##*.}" "$code"; fi
  done
  if [ -f "$d/sentinel.json" ]; then
    sj=""; IFS= read -r sj < "$d/sentinel.json"; sp=""
    [[ $sj =~ $pid_re ]] && sp=$\{BASH_REMATCH[1]}
    if sentinel_alive "$sp" "$id"; then sa=1; else sa=0; fi
    printf '@@sentinel\t%s\t%s\n' "$sa" "$sj"
  fi
  [ -s "$d/stdout.log" ] && all+=("$d/stdout.log")
  # wandb's run line (its banner comes early: the first 2 MiB of the log): the run's wandb URL.
  if [ -s "$d/stdout.log" ]; then
    w=$(head -c 2097152 -- "$d/stdout.log" | grep -a -m1 -E 'wandb: .*View run (.+ )?at:? https?://|wandb: Run data is saved locally in .*offline-run-' | tr -d '\r\t')
    [ -n "$w" ] && printf '@@wandb\t%s\n' "$w"
  fi
done
# Each log's size and mtime (one stat for all); a log the caller already has at that size and mtime
# (5th arg: 'ID SIZE MTIME' lines) is not sent again.
if [ "$\{#all[@]}" -gt 0 ]; then
  while read -r size mtime path; do
    id=$\{path%/stdout.log}; id=$\{id##*/}
    printf '@@logstat\t%s\t%s %s\n' "$id" "$size" "$mtime"
    case "
$known
" in *"
$id $size $mtime
"*) ;; *) logs+=("$path") ;; esac
  done < <(stat -c '%s %Y %n' -- "$\{all[@]}" 2>/dev/null)
fi
if [ "$slurm" = 1 ]; then
  eval "$setup" >&2
  # A failed squeue (controller down, not on PATH) must not read as "every job is gone".
  # (stderr joins the answer: a warning line makes a key no job id matches.)
  if q=$(squeue -h -t all -u "$(id -un)" -o '%i %T' 2>&1); then
    [ -z "$q" ] || printf '%s\n' "$q" | while read -r id st; do printf '@@squeue\t%s\t%s\n' "$id" "$st"; done
  else
    st=$?; printf '@@squeuefailed\t%s\t%s\n' "$st" "$(printf '%s\n' "$q" | tail -n 1 | tr '\t' ' ')"
  fi
fi
if [ "$tail_bytes" -gt 0 ] && [ "$\{#logs[@]}" -gt 0 ]; then
  printf '@@tails\t'; tail -v -c "$tail_bytes" -- "$\{logs[@]}" | base64 | tr -d '\n'; printf '\n'
fi
true
`;

/**
 * Direct stop. Args: RUN_DIR RUN_ID GRACE_SECONDS [SWEEP=1|0].  Output lines: `@@term PGID`, `@@kill PGID`,
 * `@@sweep PID` (tagged leftovers), `@@left PID` (still there after everything).
 */
export const STOP_DIRECT_SCRIPT = sh`set -u
run_dir=$1; run_id=$2; grace=$3; sweep=$\{4:-1}
${ALIVE_FN}
pid=""
[ -f "$run_dir/job.pid" ] && IFS= read -r pid < "$run_dir/job.pid"
if job_alive "$pid" "$run_id"; then
  kill -TERM -- "-$pid" 2>/dev/null && printf '@@term\t%s\n' "$pid"
  n=0
  while job_alive "$pid" "$run_id" && [ "$n" -lt $((grace * 10)) ]; do sleep 0.1; n=$((n + 1)); done
  if job_alive "$pid" "$run_id"; then kill -KILL -- "-$pid" 2>/dev/null && printf '@@kill\t%s\n' "$pid"; fi
fi
# torchrun puts workers in their own sessions: find whatever still carries the run tag.
tagged() {
  # -x -F: the whole environ entry, literally (a run id is never a pattern).
  for f in $(grep -l -s -z -x -F "AWRL_RUN_ID=$run_id" /proc/[0-9]*/environ); do
    p=$\{f#/proc/}; p=$\{p%/environ}
    [ "$p" = "$$" ] || echo "$p"
  done
}
# SWEEP=0: the caller lists what is left and asks before stopping it (awrl-tui stop).
[ "$sweep" = 1 ] || exit 0
for p in $(tagged); do kill -TERM "$p" 2>/dev/null && printf '@@sweep\t%s\n' "$p"; done
n=0
while [ -n "$(tagged)" ] && [ "$n" -lt $((grace * 10)) ]; do sleep 0.1; n=$((n + 1)); done
for p in $(tagged); do kill -KILL "$p" 2>/dev/null; done
n=0
while [ -n "$(tagged)" ] && [ "$n" -lt 20 ]; do sleep 0.1; n=$((n + 1)); done
for p in $(tagged); do printf '@@left\t%s\n' "$p"; done
true
`;

/** Slurm stop. Args: SETUP JOB_IDS...  Cancels every job of the run (attempts and queued chain). */
export const STOP_SLURM_SCRIPT = sh`set -u
setup=$1; shift
eval "$setup" >&2
scancel "$@" && for j in "$@"; do printf '@@scancel\t%s\n' "$j"; done
`;

/** The head's clock as a script read it (`@@now ISO`, see START_DIRECT_SCRIPT): a client's clock may
 *  be hours off, and every other time about a run (log, exit files, Slurm, auto-resume attempts)
 *  is the head's. null when the script printed none (date failed). */
export function headNow(stdout: string): string | null {
  const m = /^@@now (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/m.exec(stdout);
  return m && !Number.isNaN(Date.parse(m[1])) ? m[1] : null;
}

/** A whole number a script printed (a pid, an exit code, an mtime), or null. */
export function toInt(s: string | undefined): number | null {
  const n = Number((s ?? '').trim());
  return s !== undefined && s.trim() !== '' && Number.isInteger(n) ? n : null;
}

/** Parses `@@key<TAB>a<TAB>b` lines into [key, fields] pairs; anything else is ignored. */
export function parseMarkedLines(text: string): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('@@')) continue;
    const [key, ...fields] = line.slice(2).split('\t');
    out.push([key, fields]);
  }
  return out;
}
