// The (re)launch as ONE remote script: all or nothing (issue #17 §1). Before the script is sent,
// nothing exists on the target, so an interrupted launcher leaves nothing. Once it is sent, it runs
// to its end whatever happens to the launcher (a dead connection does not stop a non-tty command;
// nothing is written to the channel until the end, so no SIGPIPE either), and it either starts
// the job and writes run.json with the attempt, or creates nothing that `runs` would take for a
// live run. Its input comes on stdin, in this order, ended by `@@end` (without it the launcher went
// away mid-send and nothing is done):
//   NAME=VALUE            a secret, exported into the job's environment only
//   @@file TAB NAME TAB MODE TAB BASE64   a file of the run dir (config.yaml, job.sbatch, run.json)
//   @@final TAB BASE64    run.json once started, with placeholders for what only the head knows
// Under a lock on the runs root (flock, where the head has it), the script also (a) removes what
// interrupted launches left (never a dir where a job may have started), (b) refuses when a run of
// the same experiment+trial appeared since the launcher looked (two launches at the same moment).
// Exit 3: nothing was started (input cut short, run dir exists); 4: a rival run (`@@rival ID`).
// Output, at the end: `@@cleaned ID` lines, `@@now ISO` (the head's clock), `@@pid PID` or
// `@@job ID` lines. The launcher's liveness is launch.pid (this script's pid and run id in its
// argv), so a dir whose launch died half-way is told from one still being launched.
import { LAUNCHER_ALIVE_FN, sh } from './remote-scripts.js';

/** Placeholders in the final run.json (JSON strings, replaced with the values quotes and all). */
export const PID_MARK = '__AWRL_PID__';
export const NOW_MARK = '__AWRL_NOW__';
export const JOB_MARK = '__AWRL_JOB__';
export const CHAIN_MARK = '__AWRL_CHAIN__';

/** Args: ROOT RUN_ID MODE(new|resume) TWIN_KEY ALLOWED HOLD, then the backend's own. */
const PROLOGUE = sh`set -u
root=$1; run_id=$2; mode=$3; key=$4; allowed=$5; hold=$6; shift 6
run_dir=$root/$run_id
# The lock and the script's own output live beside the runs root (.awrl/), never among the runs.
aux=$\{root%/*}
${LAUNCHER_ALIVE_FN}
# Tests only: stop at step S while FILE exists (HOLD = S:FILE), saying so in FILE.reached.
hold_at() {
  [ -n "$hold" ] && [ "$1" = "$\{hold%%:*}" ] || return 0
  : > "$\{hold#*:}.reached"
  while [ -e "$\{hold#*:}" ]; do sleep 0.05; done
}
names=(); modes=(); datas=(); final=""; got_end=0
while IFS= read -r line || [ -n "$line" ]; do
  case $line in
    @@end) got_end=1; break;;
    @@final$'\t'*) final=$(printf '%s' "$\{line#*$'\t'}" | base64 -d); continue;;
    @@file$'\t'*)
      rest=$\{line#*$'\t'}; names+=("$\{rest%%$'\t'*}"); rest=$\{rest#*$'\t'}
      modes+=("$\{rest%%$'\t'*}"); datas+=("$\{rest#*$'\t'}"); continue;;
    '') continue;;
  esac
  name=$\{line%%=*}
  case $name in ''|[0-9]*|*[!A-Za-z0-9_]*) echo "awrl: refusing a malformed environment variable name: nothing was started" >&2; exit 2;; esac
  export "$name=$\{line#*=}"
done
if [ "$got_end" != 1 ] || [ -z "$final" ]; then
  echo "awrl: the launch's input ended early (the launcher went away): nothing was started" >&2; exit 3
fi
hold_at read
mkdir -p "$root" || exit 3
# One launch at a time per runs root: the rival check below and the run dir are then one step.
exec 9>> "$aux/launch.lock" || exit 3
if command -v flock > /dev/null && ! flock -w 300 9; then
  echo "awrl: another launch on this target has held $aux/launch.lock for 5 minutes: nothing was started" >&2; exit 3
fi
# From here on the channel gets nothing until the end (a launcher gone meanwhile changes nothing).
exec 4>&2 2> "$aux/.launch-$run_id.err"
report() {
  exec 2>&4
  cat "$aux/.launch-$run_id.out" 2>/dev/null; rm -f "$aux/.launch-$run_id.out"
  cat "$aux/.launch-$run_id.err" >&2; rm -f "$aux/.launch-$run_id.err"
}
finish() { report; exit "$1"; }
# What interrupted launches left: a dir with only our files, no live launcher, no job.pid nor
# slurm-submitting (so no job ever started from it: neither file is in only_ours' list), and no
# run.json or one without any attempt, start error or stop.
only_ours() {
  local f
  for f in "$1"/* "$1"/.[!.]*; do
    [ -e "$f" ] || continue
    case $\{f##*/} in config.yaml|run.json|stdout.log|job.sbatch|launch.pid|.*.tmp|run.json.tmp) ;; *) return 1;; esac
  done
}
for d in "$root"/*/; do
  d=$\{d%/}; id=$\{d##*/}
  [ "$id" != "$run_id" ] || continue
  lp=""; [ -f "$d/launch.pid" ] && IFS= read -r lp < "$d/launch.pid"
  ! launcher_alive "$lp" "$id" || continue
  [ ! -e "$d/job.pid" ] || continue
  if [ -f "$d/run.json" ]; then
    j=""; IFS= read -r j < "$d/run.json" || true
    case $j in *'"attempts":[]'*) ;; *) continue;; esac
    case $j in *'"startError"'*|*'"stopRequestedAt"'*) continue;; esac
  elif [ ! -f "$d/config.yaml" ] && [ ! -f "$d/launch.pid" ]; then continue
  fi
  only_ours "$d" || continue
  rm -rf -- "$d" && printf '@@cleaned\t%s\n' "$id" >> "$aux/.launch-$run_id.out"
done
hold_at cleaned
if [ -n "$key" ]; then
  for f in "$root"/*/run.json; do
    [ -f "$f" ] || continue
    d=$\{f%/run.json}; id=$\{d##*/}
    [ "$id" != "$run_id" ] || continue
    j=""; IFS= read -r j < "$f" || true
    case $j in *"$key"*) ;; *) continue;; esac
    lp=""; [ -f "$d/launch.pid" ] && IFS= read -r lp < "$d/launch.pid"
    pid=""; [ -f "$d/job.pid" ] && IFS= read -r pid < "$d/job.pid"
    # Seen ended by the launcher, and still not alive: not a rival.
    case " $allowed " in *" $id "*) launcher_alive "$lp" "$id" || job_alive "$pid" "$id" || continue;; esac
    printf '@@rival\t%s\n' "$id" >> "$aux/.launch-$run_id.out"; finish 4
  done
fi
write_file() { # NAME MODE BASE64
  printf '%s' "$3" | base64 -d > "$run_dir/.$1.tmp" && chmod "$2" "$run_dir/.$1.tmp" && mv -f "$run_dir/.$1.tmp" "$run_dir/$1"
}
if [ "$mode" = new ]; then
  mkdir "$run_dir" || { echo "awrl: $run_dir exists already: nothing was started" >&2; finish 3; }
  echo $$ > "$run_dir/launch.pid"
  : > "$run_dir/stdout.log"
  hold_at created
  # run.json last: a run dir is listed only once it is whole.
  for ((i = 0; i < $\{#names[@]}; i++)); do
    [ "$\{names[$i]}" = run.json ] || write_file "$\{names[$i]}" "$\{modes[$i]}" "$\{datas[$i]}" || finish 3
  done
  for ((i = 0; i < $\{#names[@]}; i++)); do
    [ "$\{names[$i]}" != run.json ] || write_file run.json "$\{modes[$i]}" "$\{datas[$i]}" || finish 3
  done
else
  [ -f "$run_dir/run.json" ] || { echo "awrl: $run_dir/run.json is gone: nothing was started" >&2; finish 3; }
  echo $$ > "$run_dir/launch.pid"
  for ((i = 0; i < $\{#names[@]}; i++)); do write_file "$\{names[$i]}" "$\{modes[$i]}" "$\{datas[$i]}" || finish 3; done
fi
hold_at written
cd "$run_dir" || finish 3
save_final() {
  printf '%s\n' "$final" > run.json.tmp && mv -f run.json.tmp run.json && rm -f launch.pid slurm-submitting
}
`;

/** Bash's replacement of a placeholder: `"MARK"` -> `"value"` (value never holds a quote). */
const FILL_NOW = sh`now=$(date -u +'%Y-%m-%dT%H:%M:%S.%3NZ') || now=""
[ -n "$now" ] || now=1970-01-01T00:00:00.000Z
final=$\{final//${NOW_MARK}/$now}
`;

/** The lines the launcher parses, then the collected stderr. */
const REPORT = sh`
report
printf '@@now %s\n' "$now"
`;

/**
 * Direct start. Args: PROLOGUE's, then ATTEMPT WORKDIR SETUP ARGV...  Writes `awrl: attempt N` into
 * stdout.log where this attempt's part of the log starts. The wrapper does not `exec` the trainer so
 * that it can record the exit status (finished vs failed); its TERM trap only defers to the
 * trainer, which receives the group's TERM itself.
 */
export const START_DIRECT_SCRIPT = sh`${PROLOGUE}
attempt=$1; workdir=$2; setup=$3; shift 3
rm -f job.pid job.pid.tmp exit.code
if [ -s stdout.log ] && [ -n "$(tail -c 1 stdout.log)" ]; then echo >> stdout.log; fi
echo "awrl: attempt $attempt" >> stdout.log
# AWRL_ATTEMPT names this attempt's own exit file (attempt-exit.N): a resume rewrites exit.code, and
# the attempt before must keep how it ended.
export AWRL_RUN_ID="$run_id" AWRL_RUN_DIR="$run_dir" AWRL_ATTEMPT="$attempt"
hold_at starting
# 4 (the channel) and 9 (the lock) closed for the job: it must hold neither.
setsid nohup bash -c 'echo $$ > job.pid.tmp && mv job.pid.tmp job.pid; cd "$1" || exit 127; eval "$2"; shift 2; trap : TERM; "$@"; c=$?; echo $c > "$AWRL_RUN_DIR/attempt-exit.$AWRL_ATTEMPT"; echo $c > "$AWRL_RUN_DIR/exit.code"' awrl-job "$workdir" "$setup" "$@" < /dev/null >> stdout.log 2>&1 4>&- 9>&- &
n=0
while [ ! -s job.pid ]; do
  n=$((n + 1))
  if [ "$n" -gt 150 ]; then echo "awrl: the job did not write job.pid within 15 s" >&2; finish 1; fi
  sleep 0.1
done
hold_at started
pid=""; IFS= read -r pid < job.pid
${FILL_NOW}
final=$\{final//\"${PID_MARK}\"/$pid}
save_final || echo "awrl: could not write run.json" >&2
${REPORT}
printf '@@pid %s\n' "$pid"
`;

/**
 * Slurm submit. Args: PROLOGUE's, then FIRST_ATTEMPT CHAIN SETUP SBATCH_ARGS...  The batch script is
 * RUN_DIR/job.sbatch. Submits attempt FIRST_ATTEMPT, then CHAIN jobs chained with afternotok (each
 * guarded in the batch script to run only after TIMEOUT/PREEMPTED/NODE_FAIL). Secrets on stdin
 * reach the jobs through sbatch's default --export=ALL, never a file or argv.
 */
export const SUBMIT_SLURM_SCRIPT = sh`${PROLOGUE}
attempt=$1; chain=$2; setup=$3; shift 3
eval "$setup" >&2
hold_at starting
ids=()
# Jobs may exist from here on: this file keeps the dir from ever being taken for an empty leftover.
: > slurm-submitting
prev=$(sbatch --parsable "$@" job.sbatch "$attempt") || { echo "awrl: sbatch failed" >&2; finish 1; }
prev=$\{prev%%;*}
case $prev in ''|*[!0-9]*) echo "awrl: sbatch answered '$prev', not a job id" >&2; finish 1;; esac
ids+=("$prev")
i=0
while [ "$i" -lt "$chain" ]; do
  i=$((i + 1)); attempt=$((attempt + 1))
  next=$(sbatch --parsable --dependency="afternotok:$prev" --kill-on-invalid-dep=yes "$@" job.sbatch "$attempt" "$prev") || { echo "awrl: sbatch of auto-resume job $i failed" >&2; break; }
  prev=$\{next%%;*}; ids+=("$prev")
done
hold_at started
${FILL_NOW}
final=$\{final//${JOB_MARK}/$\{ids[0]}}
chain_json=""
for j in "$\{ids[@]:1}"; do chain_json+="$\{chain_json:+,}\"$j\""; done
final=$\{final//\"${CHAIN_MARK}\"/$chain_json}
save_final || echo "awrl: could not write run.json" >&2
${REPORT}
for j in "$\{ids[@]}"; do printf '@@job %s\n' "$j"; done
`;
