// The one probe script, run on the target in a single `exec` (bash -c SCRIPT awrl-preflight ARGS…).
// Every value arrives as an argument (`--name value` pairs) and the Slurm batch script on stdin:
// nothing from the config or the target is ever pasted into the script text, so a path with quotes,
// `$(…)` or newlines is just data. Output: one JSON object (ProbeFacts) on stdout.
//
// Written for bash ≥ 4 and coreutils; every external tool is optional (a missing nvidia-smi, sinfo
// or df becomes a fact, not a failure of the probe).
// Written with `@{` for bash's `${` (a template literal cannot hold `${` raw); restored below.
import { withSetupLimit } from '../runs/index.js';

export const PROBE_SCRIPT = String.raw`
set -u
workdir=; python=python3; setup=; model=; fileroot=; exp=; trial=; slurm=0; partition=; parallel=8
limit=60; token=
datasets=(); nodes=(); sbatch_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --workdir) workdir=$2;; --python) python=$2;; --setup) setup=$2;; --model) model=$2;;
    --fileroot) fileroot=$2;; --experiment) exp=$2;; --trial) trial=$2;; --slurm) slurm=$2;;
    --partition) partition=$2;; --dataset) datasets+=("$2");; --node) nodes+=("$2");;
    --sbatch-arg) sbatch_args+=("$2");; --parallel) parallel=$2;;
    --step-limit) limit=$2;; --token) token=$2;;
    *) echo "awrl-preflight: unknown argument $1" >&2; exit 64;;
  esac
  shift 2
done
batch=$(cat)
# A step that may hang (a setup line on a stuck NFS, a python, nvidia-smi, sbatch): at most $limit s,
# rc 124 when it did not finish (coreutils timeout ends the step's process group; without timeout,
# no limit). No background watchdog here: ask_nodes' 'wait' would wait for it too. A cancel finds
# this probe by its --token and ends its session (probe.ts probeCancelArgv).
if command -v timeout >/dev/null 2>&1; then lim() { timeout -k 5 "$limit" "$@"; }; else lim() { "$@"; }; fi
late() { printf 'did not finish in %s s (stopped)' "$limit"; }

# JSON string from arbitrary bytes: escape \ and ", spell out control characters.
j() {
  local s
  s=$(printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037\177')
  s=@{s//\\/\\\\}; s=@{s//\"/\\\"}; s=@{s//$'\n'/\\n}; s=@{s//$'\r'/\\r}; s=@{s//$'\t'/\\t}
  printf '"%s"' "$s"
}
b() { if "$@"; then printf true; else printf false; fi; }
num() { case $1 in ''|*[!0-9]*) printf null;; *) printf '%s' "$1";; esac; }
# Runs a command; prints {"ok":…,"rc":…,"out":…} with output capped.
cmd() {
  local out rc
  out=$(lim "$@" 2>&1); rc=$?
  [ $rc -eq 124 ] && out=$(late)
  out=@{out:0:8000}
  printf '{"ok":%s,"rc":%s,"out":%s}' "$([ $rc -eq 0 ] && echo true || echo false)" "$rc" "$(j "$out")"
}

# Each node's GPUs and their processes, asked over ssh from here, several nodes at once (at most
# $parallel: a 64-node job must not wait for 64 ssh logins one after another, nor open 64 at once);
# printed as JSON objects, comma-separated, in the order given.
ask_nodes() {
  local dir n i=0 running=0 sep=
  if ! dir=$(mktemp -d 2>/dev/null); then
    for n in "$@"; do printf '%s' "$sep"; ask_node "$n" </dev/null; sep=,; done
    return 0
  fi
  for n in "$@"; do
    i=$((i+1))
    ask_node "$n" >"$dir/$i" </dev/null &
    running=$((running+1))
    if [ "$running" -ge "$parallel" ]; then wait -n 2>/dev/null || wait; running=$((running-1)); fi
  done
  wait
  i=0
  for n in "$@"; do i=$((i+1)); printf '%s' "$sep"; cat "$dir/$i"; sep=,; done
  rm -rf "$dir"
}
ask_node() {
  printf '{"node":%s,"gpus":%s,"apps":%s}' "$(j "$1")" \
    "$(cmd ssh -o BatchMode=yes -o ConnectTimeout=10 "$1" nvidia-smi "@{Q_GPU[@]}")" \
    "$(cmd ssh -o BatchMode=yes -o ConnectTimeout=10 "$1" nvidia-smi "@{Q_APP[@]}")"
}

# The host's name without relying on one command (a minimal image may lack hostname).
host=$(hostname 2>/dev/null || uname -n 2>/dev/null); [ -n "$host" ] || { IFS= read -r host < /proc/sys/kernel/hostname; } 2>/dev/null
printf '{"host":%s,"user":%s' "$(j "$host")" "$(j "$(id -un 2>/dev/null || echo "@{USER:-}")")"

printf ',"workdir":{"path":%s,"exists":%s,"trainPy":%s}' "$(j "$workdir")" "$(b test -d "$workdir")" "$(b test -f "$workdir/webgym/train.py")"

# The setup line is the user's own shell line (conda activate, module load, export SLURM_CONF=…):
# tried in a subshell first so an 'exit' in it cannot end the probe, then applied for what follows.
# It runs in the workdir, as a direct launch runs it (source .venv/bin/activate is relative to it).
cd "$workdir" 2>/dev/null || cd /
if [ -n "$setup" ]; then
  setup_out=$(lim bash -c 'eval "$1"' awrl-setup "$setup" 2>&1); setup_rc=$?
  late_setup=false
  [ $setup_rc -eq 124 ] && { late_setup=true; setup_out=$(late); }
  setup_out=@{setup_out:0:8000}
  printf ',"setup":{"given":true,"ok":%s,"rc":%s,"out":%s,"timedOut":%s}' "$([ $setup_rc -eq 0 ] && echo true || echo false)" "$setup_rc" "$(j "$setup_out")" "$late_setup"
  # Applied here for what follows (its exports, PATH), bounded as well: it may hang the second time.
  if [ $setup_rc -eq 0 ]; then
${withSetupLimit('eval "$setup" >/dev/null 2>&1', '$limit')}
  fi
else
  printf ',"setup":{"given":false,"ok":true,"rc":0,"out":""}'
fi

# The trainer's working directory: relative model and dataset paths are looked up from here.
cd "$workdir" 2>/dev/null || cd /
printf ',"python":{"command":%s,' "$(j "$python")"
cmd "$python" -c 'import sys; print(sys.version.split()[0])' | sed 's/^{//'

cfg=null
[ -f "$model/config.json" ] && cfg=$(j "$(head -c 65536 "$model/config.json")")
st=$(grep -o '"total_size": *[0-9]*' "$model/model.safetensors.index.json" 2>/dev/null | head -n1 | tr -dc '0-9')
printf ',"model":{"path":%s,"exists":%s,"isDir":%s,"configJson":%s,"safetensorsBytes":%s}' \
  "$(j "$model")" "$(b test -e "$model")" "$(b test -d "$model")" "$cfg" "$(num "$st")"

printf ',"datasets":['
sep=
for d in @{datasets[@]+"@{datasets[@]}"}; do
  lines=
  [ -f "$d" ] && lines=$(wc -l < "$d" 2>/dev/null | tr -dc '0-9')
  printf '%s{"path":%s,"exists":%s,"lines":%s}' "$sep" "$(j "$d")" "$(b test -f "$d")" "$(num "$lines")"
  sep=,
done
printf ']'

Q_GPU=(--query-gpu=index,uuid,name,memory.used,memory.total --format=csv,noheader,nounits)
Q_APP=(--query-compute-apps=pid,gpu_uuid,used_memory,process_name --format=csv,noheader,nounits)
printf ',"gpuNodes":[{"node":"","gpus":%s,"apps":%s}' "$(cmd nvidia-smi "@{Q_GPU[@]}")" "$(cmd nvidia-smi "@{Q_APP[@]}")"
[ @{#nodes[@]} -eq 0 ] || printf ',%s' "$(ask_nodes "@{nodes[@]}")"
printf ']'

# Who holds the head node's GPUs, and whether they carry a run tag (leftovers of another run).
printf ',"processes":['
sep=
for pid in $(lim nvidia-smi --query-compute-apps=pid --format=csv,noheader,nounits 2>/dev/null | tr -dc '0-9\n' | sort -un); do
  [ -d "/proc/$pid" ] || continue
  if [ -r "/proc/$pid/environ" ]; then
    tag=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed -n 's/^AWRL_RUN_ID=//p' | head -n1)
    tagj=null; [ -n "$tag" ] && tagj=$(j "$tag")
  else
    tagj='"?"'
  fi
  printf '%s{"pid":%s,"runId":%s,"user":%s,"cmd":%s}' "$sep" "$pid" "$tagj" \
    "$(j "$(stat -c %U "/proc/$pid" 2>/dev/null)")" "$(j "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | head -c 300)")"
  sep=,
done
printf ']'

# The trainer creates fileroot itself: test the nearest existing ancestor for writing and space.
t=$fileroot
while [ -n "$t" ] && [ ! -d "$t" ]; do t=$(dirname "$t"); done
# Written with the shell's own redirection (noclobber: never an existing file), so a missing or
# BusyBox mktemp cannot pass for a permission problem.
writable=false
f="$t/.awrl-preflight.$$.$RANDOM"
if [ -n "$t" ] && (set -C; : > "$f") 2>/dev/null; then writable=true; rm -f "$f"; fi
avail=$(lim df -P "$t" 2>/dev/null | awk 'NR==2 {print $4}')
printf ',"fileroot":{"path":%s,"exists":%s,"testedDir":%s,"writable":%s,"availKB":%s}' \
  "$(j "$fileroot")" "$(b test -d "$fileroot")" "$(j "$t")" "$writable" "$(num "$avail")"

rp="$fileroot/checkpoints/$(id -un)/$exp/$trial/recover_info/step_info.json"
rc=null
[ -f "$rp" ] && rc=$(j "$(head -c 4096 "$rp")")
printf ',"recover":{"path":%s,"content":%s}' "$(j "$rp")" "$rc"

if [ "$slurm" = 1 ]; then
  printf ',"slurm":{"asked":true,"sinfo":%s' "$(cmd sinfo -h -o '%P|%a|%l|%D|%G')"
  tf=$(mktemp 2>/dev/null || echo /tmp/awrl-preflight.$$)
  printf '%s' "$batch" > "$tf"
  to=$(cmd sbatch --test-only @{sbatch_args[@]+"@{sbatch_args[@]}"} "$tf")
  printf ',"testOnly":%s' "$to"
  rm -f "$tf"
  # The nodes Slurm would start the job on ("… on nodes n[1-4] in partition …"): their GPUs, asked
  # from here as the GPU panel does, are the ones the run gets (not the login node's).
  tn=$(printf '%s' "$to" | sed -n 's/.* on nodes \([^ "]*\).*/\1/p' | head -n 1)
  printf ',"testNodeList":%s,"testNodes":[' "$(j "$tn")"
  # shellcheck disable=SC2046: host names are words
  [ -z "$tn" ] || ask_nodes $(scontrol show hostnames "$tn" 2>/dev/null | head -n 64)
  printf ']}'
else
  printf ',"slurm":{"asked":false,"sinfo":{"ok":false,"rc":0,"out":""},"testOnly":{"ok":false,"rc":0,"out":""}}'
fi
printf '}\n'
`.replaceAll('@{', '${');
