// The bash scripts that start, stop and equip a run's sentinel on the target, each run as
// `bash -c SCRIPT argv0 ARGS…` (remote-scripts.ts's pattern: nothing pasted into a command line).
import { SENTINEL_ALIVE_FN, sh } from '../runs/remote-scripts.js';

/**
 * Start. Args: RUN_DIR RUN_ID NODE MAIN WAIT_S.  Stdin: the sentinel's input (its URLs: never argv).
 * The run dir's lock is taken here and held by the sentinel (its fd 9) for its whole life: a second
 * start finds it held (`@@busy BEAT`, exit 5). The sentinel gets its own session and its own 0600
 * log; the script waits for its first heartbeat (`@@started PID`), or says it died (`@@failed PID`
 * and `@@log LINE`s of its log, exit 4).
 */
export const START_SENTINEL_SCRIPT = sh`set -u
run_dir=$1; run_id=$2; node=$3; main=$4; wait_s=$5
cd "$run_dir" 2>/dev/null && [ -f run.json ] || { echo "no run in $run_dir" >&2; exit 2; }
command -v flock >/dev/null || { echo "flock (util-linux) is not on the PATH of $(hostname): the sentinel's lock needs it" >&2; exit 3; }
input=$(cat)
umask 077
exec 9>>sentinel.lock
if ! flock -n 9; then
  sj=""; [ -f sentinel.json ] && IFS= read -r sj < sentinel.json
  printf '@@busy\t%s\n' "$sj"; exit 5
fi
{ printf '%s' "$input"; } 2>/dev/null | setsid "$node" --v8-pool-size=1 "$main" sentinel-run "$run_id" "$run_dir" >> sentinel.log 2>&1 &
pid=$!
exec 9>&-
n=0
while [ "$n" -lt $((wait_s * 10)) ]; do
  sj=""; [ -f sentinel.json ] && IFS= read -r sj < sentinel.json
  case $sj in *"\"pid\":$pid,"*) printf '@@started\t%s\n' "$pid"; exit 0;; esac
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1; n=$((n + 1))
done
printf '@@failed\t%s\n' "$pid"
tail -n 5 sentinel.log 2>/dev/null | while IFS= read -r l; do printf '@@log\t%s\n' "$l"; done
kill "$pid" 2>/dev/null
exit 4
`;

/**
 * Stop. Args: RUN_DIR RUN_ID GRACE_S.  SIGTERM to the sentinel named in sentinel.json (only if its
 * command line is the sentinel's of this run), SIGKILL after the grace. Output: `@@term PID`,
 * `@@kill PID`, or `@@none` (no sentinel process).
 */
export const STOP_SENTINEL_SCRIPT = sh`set -u
run_dir=$1; run_id=$2; grace=$3
${SENTINEL_ALIVE_FN}
sj=""; [ -f "$run_dir/sentinel.json" ] && IFS= read -r sj < "$run_dir/sentinel.json"
pid_re='"pid":([0-9]+)'; pid=""
[[ $sj =~ $pid_re ]] && pid=$\{BASH_REMATCH[1]}
if ! sentinel_alive "$pid" "$run_id"; then printf '@@none\n'; exit 0; fi
kill -TERM "$pid" 2>/dev/null && printf '@@term\t%s\n' "$pid"
n=0
while sentinel_alive "$pid" "$run_id" && [ "$n" -lt $((grace * 10)) ]; do sleep 0.1; n=$((n + 1)); done
if sentinel_alive "$pid" "$run_id"; then kill -KILL "$pid" 2>/dev/null && printf '@@kill\t%s\n' "$pid"; fi
true
`;

/**
 * What the target offers a sentinel. Args: SETUP_IN_WORKDIR NAME…  Output: `@@node PATH VERSION`
 * (after the setup line; empty when none), `@@os KERNEL MACHINE`, `@@cache DIR`, `@@have NAME` for
 * each bundle NAME already installed there, `@@gzip 0|1`.
 */
export const RUNTIME_PROBE_SCRIPT = sh`set -u
setup=$1; shift
cache="$HOME/.cache/awrl-tui"
printf '@@os\t%s\t%s\n@@cache\t%s\n' "$(uname -s)" "$(uname -m)" "$cache"
for name in "$@"; do [ -f "$cache/$name/.complete" ] && printf '@@have\t%s\n' "$name"; done
if command -v gzip >/dev/null; then printf '@@gzip\t1\n'; else printf '@@gzip\t0\n'; fi
eval "$setup" >/dev/null 2>&1 </dev/null
n=$(command -v node 2>/dev/null) || n=""
v=""; [ -n "$n" ] && v=$("$n" -p 'process.versions.node' 2>/dev/null </dev/null)
printf '@@node\t%s\t%s\n' "$n" "$v"
true
`;

/**
 * Install one bundle. Args: CACHE NAME MANIFEST_SHA256 GZIP(0|1).  Stdin: the bundle as a tar
 * (gzipped when GZIP=1). Extracted into a temp dir beside the final one, every file checked against
 * MANIFEST and MANIFEST against its sum, then renamed into place in one step: a home shared by
 * several nodes (or two cockpits at once) sees the whole bundle or none, and the second installer
 * keeps the first one's. Output: `@@installed DIR` or `@@present DIR`; a bad sum exits 3.
 */
export const INSTALL_SCRIPT = sh`set -u
cache=$1; name=$2; sum=$3; gz=$4
final="$cache/$name"
if [ -f "$final/.complete" ]; then cat >/dev/null; printf '@@present\t%s\n' "$final"; exit 0; fi
mkdir -p "$cache" || exit 2
tmp=$(mktemp -d "$cache/.install-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
if [ "$gz" = 1 ]; then tar -xzf - -C "$tmp" || { echo "the bundle did not unpack in $cache" >&2; exit 3; }
else tar -xf - -C "$tmp" || { echo "the bundle did not unpack in $cache" >&2; exit 3; }; fi
got=$(sha256sum < "$tmp/MANIFEST" | cut -d' ' -f1)
[ "$got" = "$sum" ] || { echo "the bundle's MANIFEST arrived with sum $got, not $sum" >&2; exit 3; }
(cd "$tmp" && sha256sum --quiet -c MANIFEST >&2) || { echo "a file of the bundle arrived damaged" >&2; exit 3; }
touch "$tmp/.complete"
if mv -T "$tmp" "$final" 2>/dev/null; then trap - EXIT; printf '@@installed\t%s\n' "$final"; exit 0; fi
[ -f "$final/.complete" ] && { printf '@@present\t%s\n' "$final"; exit 0; }
echo "could not move the bundle into $final" >&2; exit 2
`;
